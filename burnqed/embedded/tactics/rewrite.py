"""Rewriting tactics: rw / rwa (with motives the kernel checks) and simp / simp only /
simp_all / norm_num (with ``at``), each step proved by congruence and certificates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.decide.certify import internal_uid
from burnqed.embedded.tactics.lemma_use import PerUse, instance_proof
from burnqed.embedded.tactics.simp_prover import SimpProver
from burnqed.embedded.tactics.rewrite_open import close_open_rewrite
from burnqed.embedded.tactics.rewrite_match import abstract_all as _abstract_all, find_instance as _find_instance
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.bridge.lemma_proofs import lemma_proof
from burnqed.embedded.elab.lemmas import DEFINITIONS, INSTANCE_LEMMAS, LEMMAS, NO_INSTANCE, ONE_WAY, lemma_instances, resolve
from burnqed.embedded.tactics.proofterm import ProofElab, TacticError, fresh_mvar, instantiate_mvars
from burnqed.embedded.tactics.simp import Rule, SimpSet, conditional_rules, rules_from_prop, simplify
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import elab_in_goal, show
from burnqed.embedded.elab.unify import closes_by_reducible_rfl
from burnqed.embedded.elab.expr import Binder, Conn, Const, MVar, Rel, Term, instantiate, mvars

__all__ = ["Equation", "rewrite_term"]

TRUE, FALSE = Const("True"), Const("False")


# ---------------------------------------------------------------- rw


RuleProof = Callable[[], k.Proof]


def _lemma_builder(name: str, statement: Term) -> RuleProof:
    def build() -> k.Proof:
        stmt = kterm(statement)
        pf = lemma_proof(stmt)
        if pf is None:
            raise TacticError(f"the kernel has no proof of the built-in lemma {name}")
        return k.Annot(pf, stmt)

    return build


def _rule_props(eng: Engine, goal: Goal, s: Syn, simp: bool = False, rev: bool = False) -> list[tuple[Term, RuleProof]]:
    """The propositions a rule names, each with a builder of its kernel proof. A NO_INSTANCE
    lemma names none: simp uses it for nothing, as Lean's simp does a lemma whose class has no
    instance at ℕ or ℤ or whose pattern never occurs here; `rw` fails with Lean's error."""
    if s.kind == "ident" and goal.hyp_named(s.value) is None:
        s = Syn("ident", s.pos, resolve(s.value))
    if s.kind == "ident" and goal.hyp_named(s.value) is None and s.value in NO_INSTANCE:
        if simp and not (rev and s.value in ONE_WAY):
            return []
        if simp:  # `simp [← Nat.even_iff]`: Lean rewrites into a term outside the fragment
            raise TacticError(f"simp [← {s.value}] is not supported by the embedded checker")
        raise TacticError(NO_INSTANCE[s.value])
    if s.kind == "ident" and goal.hyp_named(s.value) is None and (s.value in LEMMAS or s.value in DEFINITIONS):
        return [(t, _lemma_builder(s.value, t)) for t in lemma_instances(s.value)]
    if s.kind == "ident" and goal.hyp_named(s.value) is None and s.value in INSTANCE_LEMMAS:
        return [(t, PerUse(s.value)) for t in lemma_instances(s.value)]
    prop, pe = elab_in_goal(eng, goal, s, None)
    return [(prop, pe.proof)]


@dataclass
class Equation:
    """A rewrite rule read from a proposition: ``lhs`` becomes ``rhs`` once the ∀s are
    instantiated (``path``: ("inst", mvar) / ("app", premise index), in order) and the
    premises proved; ``kind`` says how the conclusion gives ``lhs = rhs`` or ``lhs ↔ rhs``."""

    lhs: Term
    rhs: Term
    premises: list[Term]
    path: list[tuple[str, Any]]
    kind: str

    def proof(self, base: k.Proof, sub: dict[int, Term], premise_proofs: list[k.Proof]) -> k.Proof:
        """The kernel proof of ``lhs = rhs`` / ``lhs ↔ rhs`` from a proof of the rule."""
        pf = base
        for step, val in self.path:
            if step == "inst":
                v = instantiate_mvars(val, sub)
                if mvars(v):
                    raise TacticError("tactic 'rewrite' failed, could not synthesize the equation's arguments")
                pf = k.Inst(pf, kterm(v))
            else:
                pf = k.ModusPonens(pf, premise_proofs[val])
        if self.kind in ("eq", "iff"):
            return pf
        u, v = internal_uid(), internal_uid()
        if self.kind == "false":  # ¬A, a ≠ b: A ↔ False
            return k.IffIntro(k.Intro(u, k.ModusPonens(pf, k.Hyp(u))),
                k.Intro(v, k.FalseElim(k.Hyp(v))),
            )
        return k.IffIntro(k.Intro(u, k.TrueIntro()), k.Intro(v, pf))


def _equation(prop: Term) -> Equation:
    premises: list[Term] = []
    path: list[tuple[str, Any]] = []
    t = prop
    while True:
        if isinstance(t, Binder) and t.q == "∀":
            m = fresh_mvar(t.ty, t.name)
            path.append(("inst", m))
            t = instantiate(t.body, t.name, m)
        elif isinstance(t, Conn) and t.op == "→":
            path.append(("app", len(premises)))
            premises.append(t.args[0])
            t = t.args[1]
        else:
            break
    if isinstance(t, Rel) and t.op == "=":
        return Equation(t.lhs, t.rhs, premises, path, "eq")
    if isinstance(t, Conn) and t.op == "↔":
        return Equation(t.args[0], t.args[1], premises, path, "iff")
    if isinstance(t, Rel) and t.op == "≠":
        return Equation(Rel("=", t.lhs, t.rhs), FALSE, premises, path, "false")
    if isinstance(t, Conn) and t.op == "¬":
        return Equation(t.args[0], FALSE, premises, path, "false")
    return Equation(t, TRUE, premises, path, "true")


def rewrite_term(
    goal: Goal, t: Term, lhs: Term, rhs: Term, where: str, open_ok: bool = False
) -> tuple[Term, dict[int, Term], Term, Term]:
    """Rewrite every instance of the first match of ``lhs`` in ``t`` by ``rhs``: the new
    term, the match, the instantiated pattern and ``t`` with its instances written as it."""
    if isinstance(lhs, MVar):
        raise TacticError(
            f"tactic 'rewrite' failed, pattern is a metavariable\n  {show(goal, lhs)}\nfrom equation"
        )
    sub = _find_instance(lhs, t)
    if sub is None:
        raise TacticError(
            f"tactic 'rewrite' failed, did not find instance of the pattern in the {where}\n  {show(goal, lhs)}\n{render([goal])}"
        )
    pat = instantiate_mvars(lhs, sub)
    val = instantiate_mvars(rhs, sub)
    if mvars(val) and not open_ok:
        raise TacticError(
            "tactic 'rewrite' failed, motive is not type correct (uninstantiated arguments)"
        )
    # the kernel's motive abstracts ``pat`` itself: the instances matched up to offsets are
    # first written as ``pat`` (the kernel's rw accepts that up to the values of arithmetic)
    return _abstract_all(t, pat, val, True), sub, pat, _abstract_all(t, pat, pat, True)


def _locations(goal: Goal, locs: list[str] | None) -> tuple[list[Hyp], bool]:
    if locs is None:
        return [], True
    hyps: list[Hyp] = []
    target = False
    for loc in locs:
        if loc == "⊢":
            target = True
        elif loc == "*":
            hyps.extend(h for h in goal.hyps if not isinstance(h.ty, str))
            target = True
        else:
            h = goal.hyp_named(loc)
            if h is None:
                raise TacticError(f"unknown hypothesis '{loc}'")
            if isinstance(h.ty, str):
                raise TacticError(f"'{loc}' is a variable, not a hypothesis")
            hyps.append(h)
    return hyps, target


def _replace_hyp(eng: Engine, goal: Goal, old: Hyp, ty: Term) -> Goal:
    hyps = tuple(
        Hyp(eng.fresh(), h.user, ty, h.hygienic) if h.uid == old.uid else h
        for h in goal.hyps
    )
    return goal.with_(eng.fresh(), hyps=hyps)


@register("rw", "rewrite", "rwa")
def _rw(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    side: list[Goal] = []
    hyps, at_target = _locations(goal, tac.data["at"])
    positions = {h.uid: i for i, h in enumerate(goal.hyps)}
    for i, (rev, s) in enumerate(tac.data["rules"]):
        last_rule = i == len(tac.data["rules"]) - 1
        props = _rule_props(eng, goal, s)
        last: TacticError | None = None
        for prop, build in props:
            eq = _equation(prop)
            lhs, rhs = (eq.rhs, eq.lhs) if rev else (eq.lhs, eq.rhs)
            try:
                new_goal = goal
                steps: list[tuple[Goal, int | None, Goal, dict[int, Term], Term, Term]] = []
                for h in hyps:
                    # by position, not by name: a later local may shadow the name, and a
                    # rewritten hypothesis keeps its place under a fresh id
                    cur = new_goal.hyps[positions[h.uid]]
                    if isinstance(cur.ty, str):
                        raise TacticError(f"'{cur.user}' is a variable, not a hypothesis")
                    ty, subs, pat, old = rewrite_term(new_goal, cur.ty, lhs, rhs, "hypothesis")
                    nxt = _replace_hyp(eng, new_goal, cur, ty)
                    steps.append((new_goal, positions[h.uid], nxt, subs, pat, old))
                    new_goal = nxt
                if at_target:
                    target, subs, pat, old = rewrite_term(
                        new_goal, new_goal.target, lhs, rhs, "target expression", open_ok=last_rule and not hyps
                    )
                    if mvars(target):
                        target = close_open_rewrite(target, subs)
                    nxt = new_goal.with_(eng.fresh(), target=target)
                    steps.append((new_goal, None, nxt, subs, pat, old))
                    new_goal = nxt
                # `rw [h, h, …]` with h : n = n + n doubles the term per rule
                eng.ctx.check_size(new_goal)
                for before, at, after, subs, pat, old in steps:
                    pending = [instantiate_mvars(p, subs) for p in eq.premises]
                    if any(mvars(p) for p in pending):
                        raise TacticError(
                            "tactic 'rewrite' failed, could not synthesize the equation's arguments"
                        )
                    goals = [before.with_(eng.fresh(), target=p, tag=None) for p in pending]
                    side.extend(goals)
                    if not eng.kernel_on:
                        continue
                    args = [k.Annot(hole(g), kterm(g.target)) for g in goals]
                    if isinstance(build, PerUse):
                        eq_pf = instance_proof(
                            eng, before, eq, subs, [(a, g.target) for a, g in zip(args, goals, strict=True)], build.name
                        )
                    else:
                        owner = getattr(build, "__self__", None)
                        if isinstance(owner, ProofElab):
                            # an applied instance lemma (`mul_right_inj' h`) is proved as the
                            # instance it is once the match fixed its open arguments
                            owner.sub = {**owner.sub, **subs}
                        eq_pf = eq.proof(build(), subs, args)
                    motive = k.abstract(kterm(old), kterm(pat))
                    if at is None:
                        eng.justify(before, k.Rewrite(eq_pf, motive, rev, hole(after)))
                    else:
                        # the hypothesis rewritten, by position (its id changes with each rule)
                        new_h, old_h = after.hyps[at], before.hyps[at]
                        prev = k.Rewrite(eq_pf, motive, not rev, k.Hyp(old_h.uid))
                        eng.justify(
                            before,
                            k.Have(new_h.uid, kterm(new_h.ty), prev, hole(after)),  # type: ignore[arg-type]
                        )
                goal = new_goal
                last = None
                break
            except TacticError as exc:
                last = exc
        if last is not None:
            raise last
    # Lean's `rw` is `rewrite; with_reducible rfl` (Init/Tactics.lean): only Eq.refl /
    # Iff.refl at reducible transparency, on the main goal whatever the location
    if closes_by_reducible_rfl(goal.target):
        eng.justify(goal, k.Refl())
        if tac.name == "rwa":  # Mathlib's rwa is `rw …; assumption`: the next goal, if any
            if not side:
                raise TacticError("no goals to be proved")
            return _assume(eng, side[0]) + side[1:]
        return side
    if tac.name == "rwa":
        return _assume(eng, goal) + side
    return [goal, *side]


def _assume(eng: Engine, goal: Goal) -> list[Goal]:
    from burnqed.embedded.tactics.basic import _assumption_hyp

    h = _assumption_hyp(goal)
    if h is None:
        raise TacticError(f"tactic 'assumption' failed\n{render([goal])}")
    eng.justify(goal, k.Hyp(h.uid))
    return []


# ---------------------------------------------------------------- simp / norm_num


def _simp_rules(
    eng: Engine, goal: Goal, rules: list[tuple[bool, Syn]], skip: int | None = None
) -> tuple[list[Rule], list[tuple[Term, RuleProof]]]:
    """The simp rules named in ``simp [...]`` and the propositions they come from."""
    out: list[Rule] = []
    sources: list[tuple[Term, RuleProof]] = []
    for rev, s in rules:
        if s.kind == "binop" and s.value == "*":
            continue
        if s.kind == "ident" and s.value == "*":
            continue
        for prop, build in _rule_props(eng, goal, s, simp=True, rev=rev):
            sources.append((prop, build))
            for r in rules_from_prop(prop):
                out.append(Rule(r.rhs, r.lhs, r.permutative) if rev else r)
    return out, sources


def _all_hyp_rules(goal: Goal, skip: int | None) -> list[Rule]:
    out: list[Rule] = []
    for h in goal.hyps:
        if h.uid != skip and not isinstance(h.ty, str):
            out.extend(rules_from_prop(h.ty))
            # `∀ k, 2 ≤ k → … → C`: a conditional rule, as Lean's simp_all uses every
            # hypothesis as a simp lemma (src/Lean/Meta/Tactic/Simp/SimpAll.lean)
            out.extend(conditional_rules(h.ty, h.uid))
    return out


def _instances(ss: SimpSet) -> list[tuple[k.Proof, k.Term]]:
    """The instances of the hypotheses whose conditional rules simp used, with their proofs
    (``∀ xs, P → C`` at the match: ``P → C``), for the certificates of the steps."""
    out: list[tuple[k.Proof, k.Term]] = []
    for r, sub in ss.used:
        uid, stmt, metas = r.origin
        pf, t = k.Hyp(uid), stmt
        for m in metas:
            v = instantiate_mvars(m, sub)
            if mvars(v):
                break
            assert isinstance(t, Binder)
            pf, t = k.Inst(pf, kterm(v)), instantiate(t.body, t.name, v)
        else:
            out.append((pf, kterm(t)))
    return out


@register("simp", "norm_num", "simp_arith", "field_simp", "simp_all")
def _simp(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    name = tac.name
    cfg = eng.ctx.config
    named = d.get("rules", [])
    if name == "simp_all":
        # simp_all simplifies with every hypothesis already, each in the context it is in
        # then; a hypothesis named again would be the proof of its first form, gone once
        # simp_all rewrote it
        named = [(rev, s) for rev, s in named if not (s.kind == "ident" and goal.hyp_named(s.value) is not None)]
    rules, sources = _simp_rules(eng, goal, named)
    prover = SimpProver(eng, sources, goal, lambda g: _simp_rules(eng, g, named)[1])
    on = eng.kernel_on
    star = any(s.kind == "ident" and s.value == "*" for _, s in d.get("rules", []))
    if name == "simp_all":
        if d.get("at") is not None:  # Lean's simp_all syntax has no location
            raise TacticError("unexpected token 'at'; expected simp_all arguments")
        hyps, at_target = [h for h in goal.hyps if not isinstance(h.ty, str)], True
    else:
        hyps, at_target = _locations(goal, d.get("at"))

    def ss_for(skip: int | None) -> SimpSet:
        extra = _all_hyp_rules(goal, skip) if (star or name == "simp_all") else []
        return SimpSet(
            rules + extra,
            cfg.max_bits,
            cfg.max_expand_exponent,
            not d.get("only"),
            eng.ctx.check_time,
            cfg.max_term_size,
            pow_mod=name == "norm_num",
        )

    progress = False
    for cur in hyps:
        # each location is simplified once and only its own entry is replaced, so the
        # hypothesis found by _locations is still the current one (a name could be shadowed)
        if isinstance(cur.ty, str):
            continue
        ss = ss_for(cur.uid)
        new = simplify(cur.ty, ss)
        prover.instances = _instances(ss)
        if new == cur.ty and not cur.unreduced:
            continue
        progress = True
        if new == FALSE:
            if on:
                pf = prover.fact(goal, k.FALSE) or k.ModusPonens(k.IffMp(prover.iff(goal, kterm(cur.ty), k.FALSE)), k.Hyp(cur.uid)
                )
                eng.justify(goal, k.FalseElim(k.Annot(pf, k.FALSE)))
            return []
        if new == TRUE and name == "simp_all":
            # simp_all drops a hypothesis that became True (Lean/Meta/Tactic/Simp/SimpAll.lean)
            after = goal.with_(
                eng.fresh(), hyps=tuple(x for x in goal.hyps if x.uid != cur.uid)
            )
            eng.justify(goal, hole(after))
        elif new == TRUE:
            # `simp at h` / `norm_num at h` keep `h : True`: core's simpGoal asserts the new type
            # whatever it is (lean4 src/Lean/Meta/Tactic/Simp/Main.lean, simpGoal: `toAssert`,
            # or `replaceLocalDeclDefEq` for a definitional step), as Mathlib's normNumAt does
            # (Mathlib/Tactic/NormNum/Core.lean); nothing clears a True hypothesis
            after = _replace_hyp(eng, goal, cur, TRUE)
            new_h = after.hyps[goal.hyps.index(cur)]
            eng.justify(goal, k.Have(new_h.uid, kterm(TRUE), k.TrueIntro(), hole(after)))
        else:
            after = _replace_hyp(eng, goal, cur, new)
            if on:
                new_h = after.hyps[goal.hyps.index(cur)]
                eng.justify(goal, k.Have(new_h.uid, kterm(new), prover.hyp(goal, cur, new), hole(after)))
        goal = after
    if at_target:
        ss = ss_for(None)
        new = simplify(goal.target, ss)
        prover.instances = _instances(ss)
        if new == TRUE:
            if on:
                eng.justify(goal, prover.target(goal, new, None))
            return []
        if new != goal.target:
            progress = True
            after = goal.with_(eng.fresh(), target=new)
            if on:
                eng.justify(goal, prover.target(goal, new, after))
            goal = after
    if not progress:
        if name == "norm_num":
            # Mathlib's norm_num has no progress check: normNumAt / elabNormNum apply the
            # simp result as it is (Mathlib/Tactic/NormNum/Core.lean), Simp.main never fails
            # for an unchanged term, and the current elabNormNum passes
            # `failIfUnchanged := false` to transformAtNondepPropLocation; only core's simp
            # (simpGoal: "simp made no progress") fails
            return [goal]
        raise TacticError("simp made no progress")
    return [goal]
