"""``simpa [rules] (using e)`` (lean4 src/Lean/Elab/Tactic/Simpa.lean), built from simp's
and assumption's kernel-checked steps (tactics_rewrite)."""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import add_hyp, elab_in_goal, show
from burnqed.embedded.tactics.rewrite import _assume, _simp
from burnqed.embedded.elab.evaluate import try_eval
from burnqed.embedded.elab.expr import defeq_key, mvars

__all__: list[str] = []


def _simp_quiet(eng: Engine, goal: Goal, data: dict[str, Any], pos: int) -> list[Goal]:
    """``simp`` with ``failIfUnchanged := false`` (what simpa runs): no progress leaves the goal."""
    try:
        return _simp(eng, goal, Tac("simp", pos, data))
    except TacticError as exc:
        if str(exc) == "simp made no progress":
            return [goal]
        raise


_SIMPA_HYP = "this✝simpa"


@register("simpa")
def _simpa(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """``simpa [rules] using e`` as lean4 src/Lean/Elab/Tactic/Simpa.lean: simp the goal
    (failIfUnchanged false); with ``using e`` (or a hypothesis ``this``) simp e's type the
    same way and close the goal with it (as ``exact``, here up to the key ``assumption``
    compares); else ``assumption``. Every step is simp's or assumption's, kernel-checked."""
    d = tac.data
    if d.get("at") is not None:
        raise TacticError("simpa does not take a location")
    base = {"rules": d.get("rules", []), "only": d.get("only", False), "at": None}
    goals = _simp_quiet(eng, goal, base, tac.pos)
    if not goals:
        return []
    (g,) = goals
    if "using" in d:
        prop, pe = elab_in_goal(eng, g, d["using"], None)
        if mvars(prop) or pe.new_goals:
            raise TacticError("simpa: don't know how to synthesize placeholder in the term after `using`")
        new, h = add_hyp(eng, g, _SIMPA_HYP, prop)
        eng.justify(g, k.Have(h.uid, kterm(prop), pe.proof() if eng.kernel_on else k.Sorry(), hole(new)))
        g, name = new, _SIMPA_HYP
    elif g.hyp_named("this") is not None:
        name = "this"
    else:
        return _assume(eng, g)
    at = next(i for i, x in enumerate(g.hyps) if x.uid == g.hyp_named(name).uid)  # type: ignore[union-attr]
    out = _simp_quiet(eng, g, {**base, "at": [name]}, tac.pos)
    if not out:
        return []
    (g2,) = out
    if len(g2.hyps) != len(g.hyps):  # simp made the term's type True: nothing closes the goal
        raise TacticError(f"simpa: the term's type simplified to True\n{render([g2])}")
    h2 = g2.hyps[at]
    if isinstance(h2.ty, str) or defeq_key(h2.ty, try_eval) != defeq_key(g2.target, try_eval):
        raise TacticError(
            f"type mismatch\n  h\nhas type\n  {show(g2, h2.ty)}\nbut is expected to have type\n  {show(g2, g2.target)}"  # type: ignore[arg-type]
        )
    eng.justify(g2, k.Hyp(h2.uid))
    return []
