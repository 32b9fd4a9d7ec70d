"""``unfold Nat.ModEq Int.ModEq (at h ⊢ / at *)`` (issue 37).

Lean 4's ``unfold id+ (location)?`` (lean4 ``src/Lean/Elab/Tactic/Unfold.lean``, with
``Meta.unfoldTarget`` / ``unfoldLocalDecl`` in ``src/Lean/Meta/Tactic/Unfold.lean``) rewrites
every occurrence of the definitions by their equation lemmas; a location where nothing
unfolds is an error ("unfold failed to unfold"), and ``at *`` fails only when nothing unfolds
anywhere. The definitions known here are ``Nat.ModEq`` and ``Int.ModEq`` (elab/lemmas.py
``DEFINITIONS``); naming anything else is refused. The kernel sees every ModEq as its body
already, so the new goal's sequent is the old one (``hole``).
"""

from __future__ import annotations

from burnqed.embedded.bridge.translate import hole
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.elab.lemmas import DEFINITIONS, resolve
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import show
from burnqed.embedded.elab.expr import ModEq, Term, replace, unfold_modeq

__all__: list[str] = []

_TYPE = {"Nat.ModEq": "Nat", "Int.ModEq": "Int"}


def _unfold(t: Term, types: set[str]) -> Term:
    """``t`` with the ModEq of the named types replaced by their bodies."""

    def fn(s: Term) -> Term | None:
        if isinstance(s, ModEq) and s.ty in types:
            return _unfold(unfold_modeq(s), types)
        return None

    return replace(t, fn)


@register("unfold")
def _unfold_tac(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    names = [resolve(n) for n in tac.data["names"]]
    for n in names:
        if n not in DEFINITIONS:
            raise TacticError(f"unfold: the embedded checker unfolds only {', '.join(DEFINITIONS)}, not '{n}'")
    types = {_TYPE[n] for n in names}
    locs = tac.data.get("at")
    wildcard = locs is not None and "*" in locs
    at_target = locs is None or "⊢" in locs or wildcard
    hyps: list[Hyp] = []
    for loc in locs or []:
        if loc == "*":
            hyps.extend(h for h in goal.hyps if not isinstance(h.ty, str))
        elif loc != "⊢":
            h = goal.hyp_named(loc)
            if h is None:
                raise TacticError(f"unknown hypothesis '{loc}'")
            if isinstance(h.ty, str):
                raise TacticError(f"'{loc}' is a variable, not a hypothesis")
            hyps.append(h)
    changed = False
    new_hyps = list(goal.hyps)
    for h in hyps:
        new = _unfold(h.ty, types)  # type: ignore[arg-type]
        if new == h.ty:
            if not wildcard:
                raise TacticError(f"unfold failed to unfold '{names[0]}' at\n  {show(goal, h.ty)}")  # type: ignore[arg-type]
            continue
        changed = True
        # the same hypothesis (same id): its kernel type does not change
        new_hyps[goal.hyps.index(h)] = Hyp(h.uid, h.user, new, h.hygienic)
    target = goal.target
    if at_target:
        target = _unfold(goal.target, types)
        if target == goal.target and not wildcard:
            raise TacticError(f"unfold failed to unfold '{names[0]}' at\n  {show(goal, goal.target)}")
        changed = changed or target != goal.target
    if not changed:
        raise TacticError(f"unfold failed to unfold '{names[0]}'")
    after = goal.with_(eng.fresh(), hyps=tuple(new_hyps), target=target)
    if eng.kernel_on:
        eng.justify(goal, hole(after))
    return [after]
