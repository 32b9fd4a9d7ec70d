"""Proof terms: the elaborator that types the terms given to exact / apply / refine / have /
specialize / rw / simp (unification is in elab/unify.py).

Supported forms: hypothesis names, built-in lemmas (elab/lemmas.py) applied to value and proof
arguments (implicit arguments are found by unification), projections ``.1 .2 .left .right
.mp .mpr .symm .le .elim``, anonymous constructors ``⟨a, b⟩`` for ∧ ↔ ∃ ∣ True, ``rfl``,
``?_`` holes (refine) and ``by tac`` blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import KernelReject, kterm, sequent
from burnqed.embedded.decide.certify import internal_uid, prove_fact
from burnqed.embedded.tactics.proofterm_field import modeq_field_app
from burnqed.embedded.tactics.proofterm_fun import CONGR_ARG, congr_arg
from burnqed.embedded.tactics.proofterm_named import named_app
from burnqed.embedded.tactics.proofterm_base import TacticError, conclusion as _conclusion, elab_witness, instance_app
from burnqed.embedded.elab.elaborate import ElabError, elab_prop
from burnqed.embedded.bridge.lemma_proofs import lemma_proof
from burnqed.embedded.elab.lemmas import INSTANCE_LEMMAS, LEMMAS, lemma_instances, resolve
from burnqed.embedded.elab.state import Goal, display_names, goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import (
    Binder,
    BVar,
    Conn,
    Const,
    MVar,
    ModEq,
    Op,
    Rel,
    Term,
    instantiate,
    mvars,
    pp,
    type_of,
)
from burnqed.embedded.elab.unify import (
    closes_by_rfl,
    defeq_head,
    fresh_mvar,
    instantiate_mvars,
    peel_implicit,
    rfl_normal,
    unify,
)

__all__ = [
    "ProofElab",
    "TacticError",
    "closes_by_rfl",
    "dvd_exists",
    "elab_witness",
    "fresh_mvar",
    "instantiate_mvars",
    "peel_implicit",
    "rfl_normal",
    "unify",
]



Builder = Callable[[], "k.Proof"]


@dataclass
class ProofElab:
    """Types one proof term at a goal; holes and by-blocks produce or close goals. Next to
    the proposition it builds the term's kernel proof (``proof()``, after unification:
    metavariables are instantiated only then)."""

    goal: Goal
    fresh: Callable[[], int]
    run_block: Callable[[str, Goal], list[Goal]]
    allow_holes: bool = False
    blank_holes: bool = False
    sub: dict[int, Term] = field(default_factory=dict)
    new_goals: list[Goal] = field(default_factory=list)
    builder: Builder | None = None
    postponed: list[tuple[str, Term, list[Goal]]] = field(default_factory=list)

    def names(self) -> dict[int, str]:
        """Display names of the goal's hypotheses."""
        return display_names(self.goal)

    def show(self, t: Term) -> str:
        """Print a term in the goal's context."""
        return pp(instantiate_mvars(t, self.sub), self.names())

    def text(self, s: Syn) -> str:
        """A short name for a term in messages."""
        return s.value if s.kind == "ident" else "term"

    def kt(self, t: Term) -> k.Term:
        """The kernel term of ``t`` with the metavariables assigned so far."""
        t = instantiate_mvars(t, self.sub)
        if mvars(t):
            raise TacticError("don't know how to synthesize implicit argument (a metavariable is left)")
        try:
            return kterm(t)
        except KernelReject as exc:
            raise TacticError(f"the kernel cannot read this term: {exc}") from exc

    def proof(self) -> k.Proof:
        """The kernel proof of the last term elaborated (a synthesizing proof)."""
        if self.builder is None:
            raise TacticError("no proof term was elaborated")
        return self.builder()

    def check(self, s: Syn, expected: Term) -> Term:
        """Elaborate ``s`` against ``expected``; returns the (instantiated) proved proposition."""
        prop, self.builder = self._check(s, expected)
        self._run_postponed()
        return prop

    def infer(self, s: Syn, expected: Term | None) -> Term:
        """The proposition that ``s`` proves (may contain metavariables)."""
        prop, self.builder = self._infer(s, expected)
        self._run_postponed()
        return prop

    def _run_postponed(self) -> None:
        """Run the term's ``by`` blocks on their (now instantiated) types."""
        todo, self.postponed = self.postponed, []
        for text, exp, cell in todo:
            target = instantiate_mvars(exp, self.sub)
            if mvars(target):
                raise TacticError(
                    f"don't know how to synthesize placeholder for the tactic block\ncontext:\n⊢ {self.show(target)}"
                )
            goal = self.goal.with_(self.fresh(), target=target, tag=None)
            if self.run_block(text, goal):
                raise TacticError("unsolved goals")
            cell.append(goal)

    def _check(self, s: Syn, expected: Term) -> tuple[Term, Builder]:
        got, b = self._infer(s, expected)
        new = unify(got, expected, self.sub)
        if new is None:
            raise TacticError(
                f"type mismatch\n  {self.text(s)}\nhas type\n  {self.show(got)} : Prop\n"
                f"but is expected to have type\n  {self.show(expected)} : Prop"
            )
        self.sub = new
        return instantiate_mvars(expected, self.sub), b

    def _annot(self, checked: Callable[[], k.Proof], prop: Term) -> Builder:
        """A synthesizing proof of ``prop`` from a proof checked against it."""
        return lambda: k.Annot(checked(), self.kt(prop))

    # ---------------------------------------------------------------- inference
    def _infer(self, s: Syn, expected: Term | None) -> tuple[Term, Builder]:
        while s.kind == "paren":
            s = s.args[0]
        k_ = s.kind
        if k_ == "ident":
            return self._ident(s, expected)
        if k_ == "app":
            return self._app(s, expected)
        if k_ == "proj":
            ty, b = self._infer(s.args[0], None)
            return self._proj(ty, b, s.value, s)
        if k_ in ("show", "ascribe"):
            # the stated type, checked against the proof (Lean's `show T from e`, and the
            # type ascription `(e : T)` of a proof)
            ty_syn, body = (s.args[0], s.args[1]) if k_ == "show" else (s.args[1], s.args[0])
            try:
                stated = elab_prop(ty_syn, goal_scope(self.goal))
            except ElabError as exc:
                raise TacticError(exc.message) from exc
            return self._check(body, stated)
        if k_ in ("anon", "by", "hole", "blank") or (k_ == "ident" and s.value == "rfl"):
            if expected is None:
                raise TacticError(
                    "don't know how to synthesize placeholder: the expected type is not known"
                )
            exp = instantiate_mvars(expected, self.sub)
            if k_ == "anon":
                return self._anon(s, exp)
            if k_ == "by":
                # as Lean does, a tactic block runs last, once unification has fixed its type
                cell: list[Goal] = []
                self.postponed.append((s.value, exp, cell))
                return exp, self._annot(lambda: k.Hole(cell[0]), exp)
            if (k_ == "hole" or (k_ == "blank" and self.blank_holes)) and self.allow_holes:
                new = self.goal.with_(self.fresh(), target=exp, tag=None)
                self.new_goals.append(new)
                uid = new.uid

                def hole_proof() -> k.Proof:
                    # refine replaces its new goals by instantiated copies (same uid)
                    final = next((g for g in self.new_goals if g.uid == uid), new)
                    return k.Hole(final)

                return exp, self._annot(hole_proof, exp)
            raise TacticError(
                f"don't know how to synthesize placeholder\ncontext:\n⊢ {self.show(exp)}"
            )
        raise TacticError(f"unsupported proof term: {self.text(s)}")

    def _lemma(self, name: str, statement: Term) -> tuple[Term, Builder]:
        """A built-in lemma's statement (implicit binders peeled) and its kernel proof."""
        ty, metas = _peel(statement)

        def build() -> k.Proof:
            stmt = kterm(statement)
            pf = lemma_proof(stmt)
            if pf is None:
                raise TacticError(f"the kernel has no proof of the built-in lemma {name}")
            out = k.Annot(pf, stmt)
            for m in metas:
                out = k.Inst(out, self.kt(m))
            return out

        return ty, build

    def _ident(self, s: Syn, expected: Term | None) -> tuple[Term, Builder]:
        name = s.value
        if name == "rfl":
            if expected is None:
                raise TacticError(
                    "don't know how to synthesize implicit argument of 'rfl'"
                )
            exp = instantiate_mvars(expected, self.sub)
            if isinstance(exp, Rel) and exp.op == "=" and mvars(exp):
                # rfl : ?a = ?a, unified with the expected type (occurs check included)
                new = unify(exp.lhs, exp.rhs, self.sub)
                if new is None:
                    raise TacticError(
                        f"type mismatch\n  rfl\nhas type\n  ?a = ?a\nbut is expected to have type\n  {self.show(exp)}"
                    )
                self.sub = new
                exp = instantiate_mvars(exp, self.sub)
                return exp, self._annot(lambda: k.Refl(), exp)
            if not (isinstance(exp, Rel) and exp.op == "=" and closes_by_rfl(exp)):
                raise TacticError(
                    f"type mismatch\n  rfl\nhas type\n  ?a = ?a\nbut is expected to have type\n  {self.show(exp)}"
                )
            return exp, self._annot(lambda: k.Refl(), exp)
        hyp = self.goal.hyp_named(name)
        if hyp is not None:
            if isinstance(hyp.ty, str):
                raise TacticError(
                    f"type mismatch\n  {name}\nhas type\n  {hyp.ty}\nbut is expected to have type a proposition"
                )
            uid = hyp.uid
            return hyp.ty, lambda: k.Hyp(uid)
        name = resolve(name)
        if name in INSTANCE_LEMMAS:
            return self._instance_app(name, (), expected)
        inst = lemma_instances(name) if name in LEMMAS else ()
        if inst:
            ty = inst[0]
            if len(inst) > 1 and expected is not None:
                for cand in inst:
                    if (
                        unify(
                            _conclusion(cand),
                            instantiate_mvars(expected, self.sub),
                            self.sub,
                        )
                        is not None
                    ):
                        ty = cand
                        break
            return self._lemma(name, ty)
        if "." in name:
            base, _, fld = name.rpartition(".")
            try:
                ty, b = self._ident(Syn("ident", s.pos, base), None)
            except TacticError as exc:
                if str(exc).startswith("unknown identifier"):  # a lemma name we do not know
                    raise TacticError(f"unknown identifier '{name}'") from exc
                raise
            return self._proj(ty, b, fld, s)
        raise TacticError(f"unknown identifier '{name}'")

    def _app(self, s: Syn, expected: Term | None) -> tuple[Term, Builder]:
        head, args = s.args[0], s.args[1:]
        while head.kind == "paren":
            head = head.args[0]
        if any(a.kind == "named" for a in args):
            return named_app(self, head, args, expected)
        if head.kind == "ident" and head.value in CONGR_ARG and self.goal.hyp_named(head.value) is None:
            return congr_arg(self, args)
        head, args = modeq_field_app(self.goal, head, args) or (head, args)
        if head.kind == "ident" and self.goal.hyp_named(head.value) is None:
            head = Syn("ident", head.pos, resolve(head.value))
        name, fld = (head.value, None) if head.kind == "ident" else ("", None)
        if name and name not in LEMMAS and "." in name and self.goal.hyp_named(name.rpartition(".")[0]) is None:
            # `not_le.mp h`: a generic lemma's projection, tried at each type as the lemma itself
            base, _, f = name.rpartition(".")
            if resolve(base) in LEMMAS:
                name, fld = resolve(base), f
        if name in LEMMAS and self.goal.hyp_named(name) is None:
            inst = lemma_instances(name)
            if len(inst) > 1:
                errors = []
                for cand in inst:
                    saved = dict(self.sub), list(self.new_goals), list(self.postponed)
                    try:
                        fty, b = self._lemma(name, cand)
                        if fld is not None:
                            fty, b = self._proj(fty, b, fld, head)
                        return self._apply_args(fty, b, args, expected)
                    except (TacticError, ElabError) as exc:
                        errors.append(exc)
                        self.sub, self.new_goals = dict(saved[0]), list(saved[1])
                        self.postponed = list(saved[2])
                raise TacticError(str(errors[0]))
        if head.kind == "ident" and head.value in INSTANCE_LEMMAS and self.goal.hyp_named(head.value) is None:
            return self._instance_app(head.value, args, expected)
        fty, b = self._infer(head, None)
        return self._apply_args(fty, b, args, expected)

    def _instance_app(self, name: str, args: tuple[Syn, ...], expected: Term | None) -> tuple[Term, Builder]:
        """An INSTANCE_LEMMAS lemma applied to ``args`` (proofterm_base.instance_app)."""
        return instance_app(self, name, args, expected)

    def _apply_args(
        self, fty: Term, b: Builder, args: tuple[Syn, ...], expected: Term | None
    ) -> tuple[Term, Builder]:
        scope = goal_scope(self.goal)
        for arg in args:
            fty, b = self._peel_into(instantiate_mvars(fty, self.sub), b)
            fty = defeq_head(fty)
            if isinstance(fty, Binder) and fty.q == "∀":
                if arg.kind in ("blank", "hole"):
                    val: Term = fresh_mvar(fty.ty, fty.name)
                else:
                    val = elab_witness(arg, scope, fty.ty)
                fty = instantiate(fty.body, fty.name, val)
                b = (lambda f, v: lambda: k.Inst(f(), self.kt(v)))(b, val)
            elif isinstance(fty, Conn) and fty.op == "→":
                premise = fty.args[0]
                _, q = self._check(arg, premise)
                fty = fty.args[1]
                b = (lambda f, g: lambda: k.ModusPonens(f(), g()))(b, q)
            else:
                raise TacticError(
                    f"function expected, the term has type\n  {self.show(fty)}"
                )
        return self._peel_into(instantiate_mvars(fty, self.sub), b)

    def _peel_into(self, ty: Term, b: Builder) -> tuple[Term, Builder]:
        ty, metas = _peel(ty)
        for m in metas:
            b = (lambda f, v: lambda: k.Inst(f(), self.kt(v)))(b, m)
        return ty, b

    def _fact(self, ty: Term, b: Builder, goal: Term) -> Builder:
        """A proof of ``goal`` from the proof of ``ty`` by an arithmetic certificate."""

        def build() -> k.Proof:
            seq = sequent(self.goal)
            g = self.kt(goal)
            pf = prove_fact(seq.to(g), [(b(), self.kt(ty))], g)
            if pf is None:
                raise TacticError("the kernel found no proof of this projection")
            return k.Annot(pf, g)

        return build

    def _proj(self, ty: Term, b: Builder, fld: str, s: Syn) -> tuple[Term, Builder]:
        ty = instantiate_mvars(ty, self.sub)
        if isinstance(ty, Conn) and ty.op == "∧":
            if fld in ("1", "left"):
                return ty.args[0], lambda: k.AndLeft(b())
            if fld in ("2", "right"):
                return ty.args[1], lambda: k.AndRight(b())
            if fld == "symm":
                out = Conn("∧", (ty.args[1], ty.args[0]))
                return out, self._annot(lambda: k.AndIntro(k.AndRight(b()), k.AndLeft(b())), out)
        if isinstance(ty, Conn) and ty.op == "↔":
            a, c = ty.args
            if fld in ("1", "mp"):
                return Conn("→", (a, c)), lambda: k.IffMp(b())
            if fld in ("2", "mpr"):
                return Conn("→", (c, a)), lambda: k.IffMpr(b())
            if fld == "symm":
                out = Conn("↔", (c, a))
                return out, self._annot(lambda: k.IffIntro(k.IffMpr(b()), k.IffMp(b())), out)
        if isinstance(ty, Conn) and ty.op == "∨" and fld == "symm":
            out = Conn("∨", (ty.args[1], ty.args[0]))
            u1, u2 = internal_uid(), internal_uid()
            return out, self._annot(
                lambda: k.OrElim(b(), u1, k.OrInr(k.Hyp(u1)), u2, k.OrInl(k.Hyp(u2))),
                out,
            )
        if isinstance(ty, Rel):
            derived: Term | None = None
            if fld == "symm" and ty.op in ("=", "≠"):
                derived = Rel(ty.op, ty.rhs, ty.lhs)
            if fld == "le" and ty.op in ("<", ">"):
                derived = Rel("≤" if ty.op == "<" else "≥", ty.lhs, ty.rhs)
            if fld == "ne" and ty.op == "<":
                derived = Rel("≠", ty.lhs, ty.rhs)
            if fld == "ne'" and ty.op == "<":
                derived = Rel("≠", ty.rhs, ty.lhs)
            if fld == "ge" and ty.op == "≤":
                derived = Rel("≥", ty.rhs, ty.lhs)
            if fld == "gt" and ty.op == "<":
                derived = Rel(">", ty.rhs, ty.lhs)
            if derived is not None:
                return derived, self._fact(ty, b, derived)
        if isinstance(ty, ModEq) and fld == "symm":
            # `h.symm` is `Nat.ModEq.symm h` / `Int.ModEq.symm h` (generalized field notation)
            derived = ModEq(ty.ty, ty.n, ty.b, ty.a)
            return derived, self._fact(ty, b, derived)
        if isinstance(ty, Const) and ty.name == "False" and fld == "elim":
            c = fresh_mvar("Prop", "C")
            return c, self._annot(lambda: k.FalseElim(b()), c)
        if isinstance(ty, Conn) and ty.op == "¬" and fld == "elim":
            c = fresh_mvar("Prop", "C")
            out = Conn("→", (ty.args[0], c))
            u = internal_uid()
            return out, self._annot(
                lambda: k.Intro(u, k.FalseElim(k.ModusPonens(b(), k.Hyp(u)))), out
            )
        raise TacticError(
            f"invalid field '{fld}', the environment does not contain it for\n  {self.show(ty)}"
        )

    def _anon(self, s: Syn, exp: Term) -> tuple[Term, Builder]:
        items = s.args
        orig = exp
        exp = defeq_head(exp) if isinstance(exp, Rel) and exp.op in (">", "≥") else exp
        if isinstance(exp, Const) and exp.name == "True" and not items:
            return orig, self._annot(lambda: k.TrueIntro(), orig)
        if isinstance(exp, Rel) and exp.op == "∣" and len(items) >= 2:
            w = elab_witness(items[0], goal_scope(self.goal), type_of(exp.lhs))
            eq = Rel("=", exp.rhs, Op("*", (exp.lhs, w), type_of(exp.lhs)))
            rest = items[1:]
            rest_syn = rest[0] if len(rest) == 1 else Syn("anon", rest[0].pos, None, rest)
            _, q = self._check(rest_syn, eq)
            return orig, self._annot(lambda: k.DvdIntro(self.kt(w), q()), orig)
        if len(items) < 2:
            raise TacticError(
                f"invalid constructor ⟨...⟩, expected type must be an inductive type\n  {self.show(exp)}"
            )
        first, rest = items[0], items[1:]
        rest_syn = rest[0] if len(rest) == 1 else Syn("anon", rest[0].pos, None, rest)
        if isinstance(exp, Conn) and exp.op in ("∧", "↔"):
            a, c = exp.args
            if exp.op == "↔":
                a, c = Conn("→", (a, c)), Conn("→", (c, a))
            _, p1 = self._check(first, a)
            _, p2 = self._check(rest_syn, c)
            rule = k.AndIntro if exp.op == "∧" else k.IffIntro
            return orig, self._annot(lambda: rule(p1(), p2()), orig)
        if isinstance(exp, Binder) and exp.q == "∃":
            w = elab_witness(first, goal_scope(self.goal), exp.ty)
            _, p2 = self._check(rest_syn, instantiate(exp.body, exp.name, w))
            return orig, self._annot(lambda: k.ExistsIntro(self.kt(w), p2()), orig)
        raise TacticError(
            f"invalid constructor ⟨...⟩, expected type must be an inductive type\n  {self.show(exp)}"
        )


def _peel(ty: Term) -> tuple[Term, list[MVar]]:
    """Leading implicit binders turned into fresh metavariables (returned in order)."""
    metas: list[MVar] = []
    while isinstance(ty, Binder) and ty.q == "∀" and ty.implicit:
        m = fresh_mvar(ty.ty, ty.name)
        metas.append(m)
        ty = instantiate(ty.body, ty.name, m)
    return ty, metas


def dvd_exists(t: Rel) -> Term:
    """``a ∣ b`` unfolded: ``∃ c, b = a * c``."""
    ty = type_of(t.lhs)
    return Binder("∃", "c", ty, Rel("=", t.rhs, Op("*", (t.lhs, BVar("c", ty)), ty)))
