"""The protocols through which the search uses a policy and an energy head; the Lean side
is the one Lean interface (burnqed.lean.interface), re-exported here for the search's users.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from burnqed.lean.interface import ProofPool, ProofSession
from burnqed.policy.types import TacticCandidate

__all__ = ["ProofPool", "ProofSession", "StateScorer", "TacticGenerator"]


@runtime_checkable
class TacticGenerator(Protocol):
    """Proposes tactics for proof states (rendered goal text)."""

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        """Up to ``n`` de-duplicated candidates per state, best first."""
        ...


@runtime_checkable
class StateScorer(Protocol):
    """Scores proof states with an energy: lower = more provable."""

    async def score(self, states: Sequence[str]) -> list[float]:
        """One energy per state."""
        ...
