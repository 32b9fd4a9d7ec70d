"""The one Lean interface: what every layer above uses of a pool and of an open proof.

``LeanPool`` (and its ``ProofHandle`` / ``DetachedProof``) satisfy it; so must anything that
stands in for a pool (a remote pool of a later issue, a test double). The search, the
tools, the iteration and the audit all type against these two protocols and nothing else.
Outcomes are this layer's own models (TacticOutcome, ProofVerdict, PoolStatus).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from burnqed.lean.protocol import Goal, GoalPrintResult
from burnqed.lean.results import PoolStatus, ProofVerdict, TacticOutcome
from burnqed.lean.target import ProofTarget

__all__ = ["ProofPool", "ProofSession"]


class ProofSession(Protocol):
    """One open proof: its root state and goals, tactics on any of its states, close."""

    @property
    def state_id(self) -> int:
        """The root state's id."""
        ...

    @property
    def goals(self) -> Sequence[Goal]:
        """The root state's goals."""
        ...

    @property
    def lost(self) -> bool:
        """The process under the proof died: every later call fails."""
        ...

    @property
    def worker_pid(self) -> int | None:
        """The pid of the process the proof is on now (None when it holds none)."""
        ...

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> TacticOutcome:
        """Run ``tactic`` on a goal of ``state_id`` (default: the first)."""
        ...

    async def print_root(self, state_id: int) -> GoalPrintResult:
        """goal.print of ``state_id`` with the root flags (sorry, metavariables)."""
        ...

    async def close(self) -> None:
        """Release the proof's states (and a worker it holds)."""
        ...


class ProofPool(Protocol):
    """A pool of Lean processes: open proofs, replay whole proofs (the gate), report status."""

    @property
    def backend(self) -> str:
        """embedded | pantograph | command."""
        ...

    def start_proof(self, target: ProofTarget) -> AbstractAsyncContextManager[ProofSession]:
        """A proof of ``target`` for an ``async with`` block.

        Its statement is a proposition or a theorem in theorem form (or it names a constant);
        its header holds the theorem's imports and ``open`` / ``set_option`` lines
        (burnqed.lean.statement)."""
        ...

    async def open_proof(self, target: ProofTarget) -> ProofSession:
        """A proof of ``target`` that the caller closes."""
        ...

    async def verify_proof(self, target: ProofTarget, tactics: Sequence[str]) -> ProofVerdict:
        """The replay gate: ``tactics`` from a fresh start; ok only with no goals, no sorry and
        no metavariables left. Every place a proof counts calls this."""
        ...

    def status(self) -> PoolStatus:
        """A snapshot of the pool's workers and requests."""
        ...

    def worker_pids(self) -> list[int]:
        """Pids of the live worker processes (empty where workers are not local processes)."""
        ...
