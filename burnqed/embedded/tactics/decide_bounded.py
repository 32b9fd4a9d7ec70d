"""``decide`` on a bounded ∀ over ℕ: ``∀ x, x < c → P x`` and ``∀ x, x ≤ c → P x`` with a
numeral ``c`` (``∀ x < c, P x`` is notation for the first). Lean decides these with the
instances ``Nat.decidableBallLT`` / ``Nat.decidableBallLe`` (lean4 src/Init/Data/Nat/Basic.lean,
Mathlib/Order/...: each value below the bound checked in turn), nested quantifiers included.

Here the proof is the case analysis itself: ``intro x h``, ``interval_cases x``, then
``decide`` on each closed instance, each step checked by the kernel as those tactics are. The
bound is kept small (``MAX_VALUES``): Lean's kernel evaluates the instance by recursion on
``c``, and a large bound fails there (maximum recursion depth), so a large one is refused here.
"""

from __future__ import annotations

from burnqed.embedded.elab.evaluate import try_eval
from burnqed.embedded.tactics.interpreter import Engine, Exhausted
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.elab.expr import Binder, BVar, Conn, Rel, Term

__all__ = ["MAX_VALUES", "bounded_forall", "decide_bounded"]

MAX_VALUES = 64


def bounded_forall(t: Term) -> int | None:
    """The number of values of ``∀ x : ℕ, x < c → P`` / ``x ≤ c → P`` (None: not that form)."""
    if not (isinstance(t, Binder) and t.q == "∀" and t.ty == "Nat"):
        return None
    body = t.body
    if not (isinstance(body, Conn) and body.op == "→"):
        return None
    bound = body.args[0]
    if not (isinstance(bound, Rel) and bound.op in ("<", "≤") and isinstance(bound.lhs, BVar) and bound.lhs.name == t.name):
        return None
    c = try_eval(bound.rhs)
    if c is None:
        return None
    return max(c, 0) if bound.op == "<" else max(c + 1, 0)


def decide_bounded(eng: Engine, goal: Goal, text: str) -> list[Goal]:
    """Close ``goal`` (a bounded ∀, ``bounded_forall``) value by value, or fail as Lean's
    decide does."""
    n = bounded_forall(goal.target)
    assert isinstance(goal.target, Binder) and n is not None
    if n > MAX_VALUES:
        raise TacticError("maximum recursion depth has been reached\n(decide on a bound larger than the embedded checker evaluates)")
    name = goal.target.name
    try:
        left = eng.run_text(f"intro {name} h_bound\ninterval_cases {name} <;> decide", goal)
    except Exhausted:
        raise
    except TacticError as exc:
        if "is false" in str(exc):
            raise TacticError(f"tactic 'decide' proved that the proposition\n  {text}\nis false") from exc
        raise
    if left:
        raise TacticError(f"tactic 'decide' failed for proposition\n  {text}")
    return []
