"""The small protocols through which the search uses a policy, an energy head and the Lean pool.

The pool side mirrors ``burnqed.lean.LeanPool`` / ``ProofHandle`` / ``TacticOutcome`` /
``ProofVerdict``: the search needs only these members, so any pool with them (the real
one on any backend, or a test double) can drive it.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, runtime_checkable

from burnqed.lean.protocol import Goal
from burnqed.policy.types import TacticCandidate

__all__ = ["Outcome", "ProofPool", "ProofSession", "RootFlags", "StateScorer", "TacticGenerator", "Verdict"]


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


class Outcome(Protocol):
    """What running one tactic gave (``burnqed.lean.TacticOutcome``)."""

    @property
    def status(self) -> str:
        """success | failed | parse_error | timeout | lost."""
        ...

    @property
    def next_state_id(self) -> int | None:
        """The new state's id on success."""
        ...

    @property
    def goals(self) -> Sequence[Goal] | None:
        """The new state's goals on success (empty: no goals remain)."""
        ...

    @property
    def proof_complete(self) -> bool:
        """Success with no goals left."""
        ...


class Verdict(Protocol):
    """The replay gate's answer (``burnqed.lean.ProofVerdict``)."""

    @property
    def ok(self) -> bool:
        """The proof replays from scratch with no goals, sorry or metavariables left."""
        ...

    @property
    def reason(self) -> str | None:
        """Why it was rejected."""
        ...


class RootFlags(Protocol):
    """goal.print's flags on a state's root expression (``GoalPrintResult``)."""

    @property
    def root_has_sorry(self) -> bool:
        """The proof term so far uses sorry."""
        ...

    @property
    def root_has_mvar(self) -> bool:
        """The proof term so far has unassigned metavariables."""
        ...


class ProofSession(Protocol):
    """One proof attempt holding one worker (``burnqed.lean.ProofHandle``)."""

    @property
    def state_id(self) -> int:
        """The root state's id."""
        ...

    @property
    def goals(self) -> Sequence[Goal]:
        """The root state's goals."""
        ...

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> Outcome:
        """Run ``tactic`` on a goal of ``state_id`` (default: the first)."""
        ...

    async def print_root(self, state_id: int) -> RootFlags:
        """goal.print of ``state_id`` with the root flags."""
        ...


class ProofPool(Protocol):
    """The Lean pool as the search sees it (``burnqed.lean.LeanPool``)."""

    @property
    def backend(self) -> str:
        """embedded | pantograph | command."""
        ...

    def start_proof(
        self, statement: str | None = None, *, name: str | None = None
    ) -> AbstractAsyncContextManager[ProofSession]:
        """A handle on a fresh proof of ``statement`` (or of constant ``name``)."""
        ...

    async def verify_proof(
        self, statement: str | None, tactics: Sequence[str], *, name: str | None = None
    ) -> Verdict:
        """Replay ``tactics`` from a fresh start (of ``statement`` or constant ``name``); the replay gate."""
        ...
