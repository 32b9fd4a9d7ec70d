"""Mathlib's ``cases'`` (the other case splits are in tactics/cases.py)."""

from __future__ import annotations

from burnqed.embedded.elab.expr import Binder, Conn, Const
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.tactic_parser import Pattern, Tac
from burnqed.embedded.tactics.basic import show
from burnqed.embedded.tactics.cases import _cases_nat, _destructure, _drop, _hyp_or_term, _unfold
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.tactics.proofterm import TacticError

__all__: list[str] = []


@register("cases'")
def _cases_prime(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """Mathlib's ``cases' e with x y …`` (Mathlib/Tactic/Cases.lean, ``elab (name := cases')``,
    ``ElimApp.evalNames``): ``cases`` on ``e`` with the names given to the constructors' fields
    in order (``_`` or a missing name: inaccessible); a hypothesis target is cleared. Here the
    one-level split of ∧ ↔ ∃ ∣ ∨ False and of a ℕ variable (``zero`` / ``succ n``), as rcases
    patterns of one level; anything else is refused."""
    names: list[str] = tac.data.get("names", [])
    hyp, prop, pf = _hyp_or_term(eng, goal, tac, "target")

    def field(i: int) -> Pattern:
        return ("name", names[i]) if i < len(names) and names[i] != "_" else ("blank",)

    if hyp is not None and isinstance(hyp.ty, str):
        if hyp.ty != "Nat":
            raise TacticError(f"tactic 'cases'' is not supported on a variable of type {hyp.ty} here")
        return _cases_nat(eng, goal, hyp, names[0] if names and names[0] != "_" else None)
    p = _unfold(prop)
    if isinstance(p, Conn) and p.op in ("∧", "↔") or isinstance(p, Binder) and p.q == "∃":
        pat: Pattern = ("tuple", [field(0), field(1)])
    elif isinstance(p, Conn) and p.op == "∨":
        pat = ("alts", [field(0), field(1)])
    elif isinstance(p, Const) and p.name == "False":
        pat = ("tuple", [])
    else:
        raise TacticError(
            f"tactic 'cases'' failed, the type is not an inductive type it can split here\n  {show(goal, prop)}"
        )
    if len(names) > 2:
        raise TacticError("too many variable names provided")
    base = goal.with_(eng.fresh(), hyps=_drop(goal, hyp.uid) if hyp is not None else goal.hyps)
    return _destructure(eng, goal, base, prop, pat, hyp.user if hyp is not None else "h", pf)
