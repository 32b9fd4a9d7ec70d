"""Non-learned frontier priorities: the controls an energy head must beat (issue 42).

A learned head's gain counts only against what a rule anyone can write achieves at the same
budget. ``search.priority_control`` picks one, used in place of an energy head:

- ``connectives``: energy = #∃ + #∧ + #goals over the goal targets of the state (the ``⊢``
  lines of Lean's rendering), i.e. "one unit per ∃/∧ left, one per open goal" — in the depth
  world roughly the steps left, the quantity the depth head regresses. Weighted by
  ``search.energy_weight`` like a head's energy.
- ``depth_bonus``: no energy; ``search.depth_bonus`` nats per step added to a state's
  priority, so deeper states (further along a proof) come first at equal log-probability.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["ConnectiveScorer", "connective_count"]

_COUNTED = ("∃", "∧")


def connective_count(state: str) -> int:
    """#∃ + #∧ in the goal targets of a rendered state, plus its number of goals (0 for "no goals")."""
    targets = [line[2:] for line in state.splitlines() if line.startswith("⊢ ")]
    return len(targets) + sum(target.count(symbol) for target in targets for symbol in _COUNTED)


class ConnectiveScorer:
    """A ``StateScorer`` whose energy is the remaining connective count (lower = fewer parts left)."""

    async def score(self, states: Sequence[str]) -> list[float]:
        """One energy per state: ``connective_count``."""
        return [float(connective_count(s)) for s in states]
