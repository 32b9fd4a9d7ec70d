"""``suffices`` and ``revert``: tactics that move a statement between the context and the goal.

``suffices h : t from e`` / ``suffices h : t by tacs`` (lean4 ``src/Init/Tactics.lean``, macro
``suffices``: ``refine_lift suffices h : t from e; ?_``): ``e`` (or ``tacs``, which must close
it) proves the main goal with ``h : t`` added, and the goal becomes ``t``. Mathlib's bare
``suffices h : t`` (``Mathlib/Tactic/Have.lean``, ``elab_rules`` for ``suffices``:
``replaceMainGoal [goal2, goal1]``) leaves the main goal with ``h`` first, then ``t``.
Kernel proof of the main goal: ``have h : t := ?t; ?main``.
"""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import add_hyp, elab_in_goal, prop_in_goal
from burnqed.embedded.elab.expr import Binder, BVar, Conn, FVar, fvars, replace_fvar

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
    eng.justify(goal, k.Have(_h.uid, kterm(ty), hole(need), hole(main)))
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
    pf = k.Annot(hole(new), kterm(target))
    for h in reverted:
        if isinstance(h.ty, str):
            pf = k.Inst(pf, kterm(FVar(h.uid, h.ty)))
        else:
            pf = k.ModusPonens(pf, k.Hyp(h.uid))
    eng.justify(goal, pf)
    return [new]


@register("contrapose", "contrapose!")
def _contrapose(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """Mathlib ``Mathlib/Tactic/Contrapose.lean``: ``contrapose h`` turns ``h : Q ⊢ P`` into
    ``h : ¬P ⊢ ¬Q`` (``revert h; refine mtr ?_; intro h``); ``contrapose! h`` then runs
    ``try push_neg at h ⊢``. Kernel proof: by contradiction, the new goal applied to ``h``."""
    names = tac.data["names"]
    if len(names) != 1:
        raise TacticError("contrapose without exactly one hypothesis is not supported in this fragment")
    h = goal.hyp_named(names[0])
    if h is None or isinstance(h.ty, str):
        raise TacticError(f"unknown hypothesis '{names[0]}'")
    if any(not isinstance(o.ty, str) and h.uid in fvars(o.ty) for o in goal.hyps) or h.uid in fvars(goal.target):
        raise TacticError(f"contrapose: '{names[0]}' has dependents")
    kept = tuple(o for o in goal.hyps if o.uid != h.uid)
    base = goal.with_(goal.uid, hyps=kept)
    new, hn = add_hyp(eng, base, h.user, Conn("¬", (goal.target,)), target=Conn("¬", (h.ty,)))
    false = k.ModusPonens(k.Annot(hole(new), kterm(new.target)), k.Hyp(h.uid))
    eng.justify(goal, k.ByContra(hn.uid, false))
    if tac.name == "contrapose!":
        push = Tac("push_neg", tac.pos, {"at": [h.user, "⊢"]})
        return eng.run(Tac("try", tac.pos, {"body": push}), [new])
    return [new]
