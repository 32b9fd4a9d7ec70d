"""The protocols through which the search uses a policy and an energy head; the Lean side
is the one Lean interface (burnqed.lean.interface), re-exported here for the search's users.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from burnqed.lean.interface import ProofPool, ProofSession
from burnqed.policy.types import PromptContext, TacticCandidate

__all__ = ["ProofPool", "ProofSession", "StateScorer", "TacticGenerator", "propose"]


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


def reads_contexts(generator: object) -> bool:
    """Whether ``generator.generate`` takes ``contexts=`` (the theorem and proof so far per state)."""
    try:
        return "contexts" in inspect.signature(generator.generate).parameters  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False


async def propose(
    generator: TacticGenerator, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None
) -> list[list[TacticCandidate]]:
    """``generator``'s candidates, handing it the prompt contexts when it reads them."""
    if contexts is not None and reads_contexts(generator):
        return await generator.generate(states, n, contexts=contexts)  # type: ignore[call-arg]
    return await generator.generate(states, n)
