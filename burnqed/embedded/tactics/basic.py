"""Structural tactics: intro/intros, exact, apply, refine, constructor, left, right, exfalso,
contradiction, assumption, trivial, rfl, decide, sorry (the context tactics are in
tactics/hypotheses.py), and the helpers other tactic modules share."""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.elab.evaluate import TooLarge, eval_prop, is_closed, try_eval
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import prove_fact
from burnqed.embedded.tactics.decide_bounded import bounded_forall, decide_bounded
from burnqed.embedded.elab.elaborate import ElabError, elab_prop
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.elab.unify import closes_by_reducible_rfl, reducible_normal
from burnqed.embedded.tactics.proofterm import (
    ProofElab,
    TacticError,
    closes_by_rfl,
    fresh_mvar,
    instantiate_mvars,
    unify,
)
from burnqed.embedded.elab.state import Goal, Hyp, display_names, goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.elab.expr import (
    Binder,
    Conn,
    Const,
    FVar,
    Rel,
    Term,
    defeq_key,
    instantiate,
    mvars,
    pp,
)

__all__ = ["add_hyp", "discharge", "elab_in_goal", "intro_one", "prop_in_goal", "show"]


def show(goal: Goal, t: Term) -> str:
    """Print a term in a goal's context."""
    return pp(t, display_names(goal))


def prop_in_goal(goal: Goal, s: Syn) -> Term:
    """Elaborate a proposition typed in a tactic at this goal."""
    try:
        return elab_prop(s, goal_scope(goal))
    except ElabError as exc:
        raise TacticError(exc.message) from exc


def elab_in_goal(
    eng: Engine, goal: Goal, s: Syn, expected: Term | None, holes: bool = False, blanks: bool = False
) -> tuple[Term, ProofElab]:
    """Elaborate a proof term at this goal (returns its proposition and the elaborator);
    ``holes``: ``?_`` become new goals, ``blanks``: so do ``_`` (refine')."""
    pe = ProofElab(goal, eng.fresh, eng.run_text, allow_holes=holes, blank_holes=blanks)
    try:
        if expected is not None:
            prop = pe.check(s, expected)
        else:
            prop = instantiate_mvars(pe.infer(s, None), pe.sub)
    except ElabError as exc:
        raise TacticError(exc.message) from exc
    return prop, pe


def add_hyp(
    eng: Engine,
    goal: Goal,
    name: str,
    ty: str | Term,
    target: Term | None = None,
    hygienic: bool = False,
) -> tuple[Goal, Hyp]:
    """A copy of the goal with one more hypothesis (and optionally a new target)."""
    h = Hyp(eng.fresh(), name, ty, hygienic)
    return goal.with_(eng.fresh(), hyps=(*goal.hyps, h), target=target), h


def intro_one(eng: Engine, goal: Goal, name: str | None) -> Goal:
    """Introduce one binder or premise (``name`` None: an inaccessible name)."""
    t = goal.target
    if isinstance(t, Rel) and t.op == "≠":
        t = Conn("→", (Rel("=", t.lhs, t.rhs), Const("False")))
    if isinstance(t, Conn) and t.op == "¬":
        t = Conn("→", (t.args[0], Const("False")))
    hygienic = name is None or name == "_"
    if isinstance(t, Binder) and t.q == "∀":
        user = t.name if hygienic or name is None else name
        h = Hyp(eng.fresh(), user, t.ty, hygienic)
        body = instantiate(t.body, t.name, FVar(h.uid, t.ty))
        new = goal.with_(eng.fresh(), hyps=(*goal.hyps, h), target=body)
        eng.justify(goal, k.Intro(h.uid, hole(new)))
        return new
    if isinstance(t, Conn) and t.op == "→":
        user = "a" if hygienic or name is None else name
        h = Hyp(eng.fresh(), user, t.args[0], hygienic)
        new = goal.with_(eng.fresh(), hyps=(*goal.hyps, h), target=t.args[1])
        eng.justify(goal, k.Intro(h.uid, hole(new)))
        return new
    raise TacticError("tactic 'introN' failed, insufficient number of binders")


def _introducible(t: Term) -> bool:
    return (
        (isinstance(t, Binder) and t.q == "∀")
        or (isinstance(t, Conn) and t.op in ("→", "¬"))
        or (isinstance(t, Rel) and t.op == "≠")
    )


@register("intro")
def _intro(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    names = tac.data["names"] or [None]
    for n in names:
        goal = intro_one(eng, goal, n)
    return [goal]


@register("intros")
def _intros(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    names = tac.data["names"]
    if names:
        for n in names:
            goal = intro_one(eng, goal, n)
        return [goal]
    while (
        isinstance(goal.target, Binder | Conn)
        and _introducible(goal.target)
        and not (isinstance(goal.target, Conn) and goal.target.op == "¬")
    ):
        goal = intro_one(eng, goal, None)
    return [goal]


@register("exact", "exact_mod_cast")
def _exact(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    _prop, pe = elab_in_goal(eng, goal, tac.data["term"], goal.target)
    if pe.new_goals:
        raise TacticError("don't know how to synthesize placeholder")
    if eng.kernel_on:
        eng.justify(goal, pe.proof())
    return []


@register("refine")
def _refine(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    _prop, pe = elab_in_goal(eng, goal, tac.data["term"], goal.target, holes=True)
    goals = [
        g.with_(g.uid, target=instantiate_mvars(g.target, pe.sub)) for g in pe.new_goals
    ]
    if any(mvars(g.target) for g in goals):
        # goals sharing an unassigned metavariable would be closed independently: refuse
        raise TacticError(
            "don't know how to synthesize placeholder: a new goal mentions an unknown argument"
        )
    pe.new_goals = goals
    if eng.kernel_on:
        eng.justify(goal, pe.proof())
    return goals


@register("apply")
def _apply(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    ty, pe = elab_in_goal(eng, goal, tac.data["term"], None)
    premises: list[Term] = []
    # how the conclusion is reached: ("inst", mvar) or ("app", premise index), in order
    path: list[tuple[str, Any]] = []
    cur = ty
    tried: list[Term] = []
    while True:
        sub = unify(cur, goal.target, pe.sub)
        if sub is not None:
            pending = [instantiate_mvars(p, sub) for p in premises]
            leftover = set().union(*(mvars(p) for p in pending)) if pending else set()
            if leftover:
                raise TacticError(
                    f"tactic 'apply' failed, could not synthesize the arguments of\n  {show(goal, instantiate_mvars(ty, sub))}"
                )
            pe.sub = sub
            tag_goals = []
            args: list[k.Proof] = []
            for p in pending:
                if isinstance(p, Const) and p.name == "True":
                    args.append(k.TrueIntro())
                    continue
                g = goal.with_(eng.fresh(), target=p, tag=None)
                tag_goals.append(g)
                args.append(k.Annot(hole(g), pe.kt(p)) if eng.kernel_on else k.Sorry())
            if eng.kernel_on:
                pf = pe.proof()
                for kind, val in path:
                    pf = k.Inst(pf, pe.kt(val)) if kind == "inst" else k.ModusPonens(pf, args[val])
                eng.justify(goal, pf)
            return tag_goals
        tried.append(cur)
        c = cur
        if isinstance(c, Rel) and c.op == "≠":
            c = Conn("→", (Rel("=", c.lhs, c.rhs), Const("False")))
        if isinstance(c, Conn) and c.op == "¬":
            c = Conn("→", (c.args[0], Const("False")))
        if isinstance(c, Binder) and c.q == "∀":
            m = fresh_mvar(c.ty, c.name)
            path.append(("inst", m))
            cur = instantiate(c.body, c.name, m)
        elif isinstance(c, Conn) and c.op == "→":
            path.append(("app", len(premises)))
            premises.append(c.args[0])
            cur = c.args[1]
        else:
            break
    raise TacticError(
        f"tactic 'apply' failed, could not unify the conclusion of `{_term_text(tac)}`\n  {show(goal, instantiate_mvars(tried[-1], pe.sub))}\n"
        f"with the goal\n  {show(goal, goal.target)}"
    )


def _term_text(tac: Tac) -> str:
    s = tac.data.get("term")
    if s is not None and s.kind == "ident":
        return s.value
    return "term"


@register("constructor")
def _constructor(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    if isinstance(t, Conn) and t.op == "∧":
        out = [
            goal.with_(eng.fresh(), target=t.args[0], tag="left"),
            goal.with_(eng.fresh(), target=t.args[1], tag="right"),
        ]
        eng.justify(goal, k.AndIntro(hole(out[0]), hole(out[1])))
        return out
    if isinstance(t, Conn) and t.op == "↔":
        a, b = t.args
        out = [
            goal.with_(eng.fresh(), target=Conn("→", (a, b)), tag="mp"),
            goal.with_(eng.fresh(), target=Conn("→", (b, a)), tag="mpr"),
        ]
        eng.justify(goal, k.IffIntro(hole(out[0]), hole(out[1])))
        return out
    if isinstance(t, Const) and t.name == "True":
        eng.justify(goal, k.TrueIntro())
        return []
    if isinstance(t, Rel) and t.op == "=" and closes_by_rfl(t):  # `apply Eq.refl`: sides defeq
        eng.justify(goal, k.Refl())
        return []
    raise TacticError(
        f"tactic 'constructor' failed, target is not an inductive datatype\n{render([goal])}"
    )


@register("left", "right")
def _left_right(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    if isinstance(t, Conn) and t.op == "∨":
        side = t.args[0] if tac.name == "left" else t.args[1]
        new = goal.with_(eng.fresh(), target=side, tag="h")
        eng.justify(goal, (k.OrInl if tac.name == "left" else k.OrInr)(hole(new)))
        return [new]
    raise TacticError(
        f"tactic '{tac.name}' failed, target is not an inductive datatype with two constructors\n{render([goal])}"
    )


@register("exfalso")
def _exfalso(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    if goal.target == Const("False"):
        return [goal]
    new = goal.with_(eng.fresh(), target=Const("False"))
    eng.justify(goal, k.FalseElim(k.Annot(hole(new), kterm(new.target))))
    return [new]


def _closed_false(t: Term) -> bool:
    if not is_closed(t):
        return False
    try:
        return not eval_prop(t)
    except (ValueError, TooLarge):
        return False


def _contradiction_found(goal: Goal) -> bool:
    props = [h.ty for h in goal.hyps if not isinstance(h.ty, str)]
    keys = {defeq_key(p, try_eval) for p in props}
    for p in props:
        if p == Const("False"):
            return True
        if isinstance(p, Conn) and p.op == "¬":
            if defeq_key(p.args[0], try_eval) in keys:
                return True
            if p.args[0] == Const("True") or closes_by_rfl(p.args[0]):
                return True
        if isinstance(p, Rel) and p.op == "≠" and closes_by_rfl(Rel("=", p.lhs, p.rhs)):
            return True
        if isinstance(p, Rel) and _closed_false(p):
            return True
    return False


@register("contradiction")
def _contradiction(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    if _contradiction_found(goal):
        if eng.kernel_on:
            eng.justify(goal, _from_false(goal, _refute_context(goal)))
        return []
    raise TacticError(f"tactic 'contradiction' failed\n{render([goal])}")


def _assumption_hyp(goal: Goal) -> Hyp | None:
    # isDefEq at default transparency: Nat.ModEq / Int.ModEq unfold (delta)
    key = defeq_key(goal.target, try_eval, delta=True)
    for h in reversed(goal.hyps):
        if not isinstance(h.ty, str) and defeq_key(h.ty, try_eval, delta=True) == key:
            return h
    return None


def _assumption_closes(goal: Goal) -> bool:
    return _assumption_hyp(goal) is not None


def _refute_context(goal: Goal) -> k.Proof:
    """A kernel proof of False from the goal's hypotheses (an arithmetic certificate)."""
    seq = sequent(goal).to(k.FALSE)
    premises = [(k.Hyp(e.uid), e.ty) for e in seq.ctx if not isinstance(e.ty, str)]
    pf = prove_fact(seq, premises, k.FALSE)
    if pf is None:
        raise TacticError("the kernel found no proof of the contradiction")
    return pf


def _from_false(goal: Goal, pf: k.Proof) -> k.Proof:
    return k.FalseElim(k.Annot(pf, k.FALSE))


def discharge_proof(goal: Goal, reducible: bool = False) -> k.Proof | None:
    """A kernel proof for the closers of ``trivial`` / ``exists`` (None: they fail), or with
    ``reducible`` of ``use``'s ``try with_reducible use_discharger`` (Mathlib/Tactic/Use.lean:
    And.intro, rfl, assumption, True.intro at reducible transparency; no decide)."""
    t = goal.target
    if t == Const("True"):
        return k.TrueIntro()
    if closes_by_reducible_rfl(t) if reducible else closes_by_rfl(t):
        return k.Refl()
    if reducible:
        key = defeq_key(reducible_normal(t))
        h = next(
            (x for x in reversed(goal.hyps) if not isinstance(x.ty, str) and defeq_key(reducible_normal(x.ty)) == key),
            None,
        )
    else:
        h = _assumption_hyp(goal)
    if h is not None:
        return k.Hyp(h.uid)
    if reducible:
        if isinstance(t, Conn) and t.op == "∧":
            a = discharge_proof(goal.with_(goal.uid, target=t.args[0]), True)
            b = discharge_proof(goal.with_(goal.uid, target=t.args[1]), True) if a else None
            return k.AndIntro(a, b) if a and b else None
        return None
    if is_closed(t):
        try:
            return k.Decide() if eval_prop(t) else None
        except (ValueError, TooLarge):
            return None
    if isinstance(t, Conn) and t.op == "∧":
        a = discharge_proof(goal.with_(goal.uid, target=t.args[0]))
        b = discharge_proof(goal.with_(goal.uid, target=t.args[1])) if a else None
        return k.AndIntro(a, b) if a and b else None
    return None


@register("assumption")
def _assumption(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    h = _assumption_hyp(goal)
    if h is not None:
        eng.justify(goal, k.Hyp(h.uid))
        return []
    raise TacticError(f"tactic 'assumption' failed\n{render([goal])}")


def discharge(goal: Goal) -> bool:
    """Whether the closers of ``trivial`` and ``use`` (rfl, True, assumption, decide on
    closed goals, ∧ of those) close the goal."""
    return discharge_proof(goal) is not None


@register("trivial")
def _trivial(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    pf = discharge_proof(goal)
    if pf is not None:
        eng.justify(goal, pf)
        return []
    raise TacticError(f"tactic 'trivial' failed\n{render([goal])}")


@register("rfl")
def _rfl(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    if closes_by_rfl(goal.target):
        eng.justify(goal, k.Refl())
        return []
    t = goal.target
    if (
        isinstance(t, Rel)
        and t.op in ("=", "≤", "≥")
        or isinstance(t, Conn)
        and t.op == "↔"
    ):
        raise TacticError(
            "The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation (neither `=` nor a relation "
            "with a @[refl] lemma).\n- The arguments of the relation are not equal.\nTry using the reflexivity lemma "
            f"for your relation explicitly, e.g. `exact Eq.refl _` or\n`exact HEq.rfl` etc.\n{render([goal])}"
        )
    raise TacticError(
        f"The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation.\n{render([goal])}"
    )


@register("decide")
def _decide(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    text = show(goal, t)
    if bounded_forall(t) is not None:  # Nat.decidableBallLT / decidableBallLe
        return decide_bounded(eng, goal, text)
    if not is_closed(t):
        raise TacticError(
            f"expected type must not contain free or meta variables\n  {text}"
        )
    try:
        value = eval_prop(t, eng.ctx.config.max_bits)
    except TooLarge as exc:
        raise TacticError(
            f"maximum recursion depth has been reached (the numbers in\n  {text}\nare too large: {exc})"
        ) from exc
    except ValueError as exc:
        raise TacticError(f"failed to synthesize\n  Decidable ({text})") from exc
    if value:
        eng.justify(goal, k.Decide())
        return []
    raise TacticError(
        f"tactic 'decide' proved that the proposition\n  {text}\nis false"
    )


@register("sorry", "admit")
def _sorry(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    eng.ctx.used_sorry = True
    eng.justify(goal, k.Sorry())
    return []


@register("refine'")
def _refine_prime(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """``refine'`` (lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean, ``refine'`` elaborates
    with ``allowNaturalHoles := true``): ``refine`` where a ``_`` left unassigned is a new
    goal too; here a ``_`` in a proposition's place is one, as ``?_`` is."""
    _prop, pe = elab_in_goal(eng, goal, tac.data["term"], goal.target, holes=True, blanks=True)
    goals = [g.with_(g.uid, target=instantiate_mvars(g.target, pe.sub)) for g in pe.new_goals]
    if any(mvars(g.target) for g in goals):
        raise TacticError("don't know how to synthesize placeholder: a new goal mentions an unknown argument")
    pe.new_goals = goals
    if eng.kernel_on:
        eng.justify(goal, pe.proof())
    return goals
