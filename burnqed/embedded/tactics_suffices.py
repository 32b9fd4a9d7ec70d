"""``suffices`` and ``revert``: tactics that move a statement between the context and the goal.

``suffices h : t from e`` / ``suffices h : t by tacs`` (lean4 ``src/Init/Tactics.lean``, macro
``suffices``: ``refine_lift suffices h : t from e; ?_``): ``e`` (or ``tacs``, which must close
it) proves the main goal with ``h : t`` added, and the goal becomes ``t``. Mathlib's bare
``suffices h : t`` (``Mathlib/Tactic/Have.lean``, ``elab_rules`` for ``suffices``:
``replaceMainGoal [goal2, goal1]``) leaves the main goal with ``h`` first, then ``t``.
Kernel proof of the main goal: ``have h : t := ?t; ?main``.
"""

from __future__ import annotations

from burnqed.embedded.bridge import hole, kterm, proof
from burnqed.embedded.engine import Engine, register, render
from burnqed.embedded.proofterm import TacticError
from burnqed.embedded.state import Goal
from burnqed.embedded.tactic_syntax import Tac
from burnqed.embedded.tactics_basic import add_hyp, elab_in_goal, prop_in_goal
from burnqed.embedded.terms import Binder, BVar, Conn, FVar, fvars, replace_fvar

__all__: list[str] = []


@register("suffices")
def _suffices(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    ty = prop_in_goal(goal, d["type"])
    need = goal.with_(eng.fresh(), target=ty, tag=None)
    main, _h = add_hyp(eng, goal, d["name"], ty)
    if "by" in d:
        left = eng.run(d["by"], [main])
        if left:
            raise TacticError("unsolved goals\n" + render(left))
        out = [need]
    elif "term" in d:
        _prop, pe = elab_in_goal(eng, main, d["term"], main.target)
        if pe.new_goals:
            raise TacticError("don't know how to synthesize placeholder")
        if eng.kernel_on:
            eng.justify(main, pe.proof())
        out = [need]
    else:
        out = [main, need]
    eng.justify(goal, proof("have", _h.uid, kterm(ty), hole(need), hole(main)))
    return out


@register("revert")
def _revert(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """lean4 ``src/Lean/Elab/Tactic/Generalize.lean`` ``evalRevert`` / ``MVarId.revert``: the
    named hypotheses and every hypothesis that depends on them (context order) go back into
    the target, a variable as ``∀``, a proposition as ``→``. Kernel proof: the new goal
    applied to the reverted variables and hypotheses."""
    chosen: set[int] = set()
    for n in tac.data["names"]:
        h = goal.hyp_named(n)
        if h is None:
            raise TacticError(f"unknown identifier '{n}'")
        chosen.add(h.uid)
    for h in goal.hyps:  # dependents come later in the context
        if not isinstance(h.ty, str) and fvars(h.ty) & chosen:
            chosen.add(h.uid)
    reverted = [h for h in goal.hyps if h.uid in chosen]
    target = goal.target
    for h in reversed(reverted):
        if isinstance(h.ty, str):
            target = Binder("∀", h.user, h.ty, replace_fvar(target, h.uid, BVar(h.user, h.ty)))
        else:
            target = Conn("→", (h.ty, target))
    kept = tuple(h for h in goal.hyps if h.uid not in chosen)
    new = goal.with_(eng.fresh(), hyps=kept, target=target)
    pf = proof("annot", hole(new), kterm(target))
    for h in reverted:
        pf = proof("inst", pf, kterm(FVar(h.uid, h.ty))) if isinstance(h.ty, str) else proof("app", pf, proof("hyp", h.uid))
    eng.justify(goal, pf)
    return [new]
