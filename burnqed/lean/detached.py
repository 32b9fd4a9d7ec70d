"""DetachedProof: a proof handle that does not pin a worker.

A ProofHandle holds one worker from ``goal.start`` to ``close()``, because Lean's state
ids live in one process. An interactive client (an agent over MCP) keeps a proof open for
minutes between tactics; four such handles would starve a four-worker pool. A detached
proof instead keeps the *tree* of its states — each state is its parent plus a tactic —
and runs each request on whichever worker the pool gives it, replaying the path from the
root when that worker does not already hold the state.

The last worker used stays attached ("warm") while the pool has an idle worker to spare,
so consecutive tactics on one proof cost no replay; it is handed back as soon as another
acquirer could want it (no idle worker after the call) and, by ``release_if_idle``, after
``warm_s`` of inactivity. A worker that dies under a request loses only the warm copy: the
proof itself lives on and is replayed on another worker at the next call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from burnqed.lean.errors import ForeignState, HandleLost, LeanError
from burnqed.lean.protocol import Goal
from burnqed.lean.results import TacticOutcome, TacticStatus
from burnqed.lean.target import ProofTarget

if TYPE_CHECKING:
    from burnqed.lean.interface import ProofPool, ProofSession
    from burnqed.lean.protocol import GoalPrintResult

__all__ = ["DetachedProof", "ReplayDiverged"]


class ReplayDiverged(LeanError):
    """Replaying a state's path on another worker did not reproduce the state."""


@dataclass(frozen=True)
class _Node:
    parent: int | None
    tactic: str | None
    goal_id: int | None
    goals: tuple[Goal, ...]


@dataclass
class _Warm:
    handle: ProofSession
    remote: dict[int, int] = field(default_factory=dict)  # our state id -> the worker's


class DetachedProof:
    """A worker-independent proof: its states, replayed onto any worker of the pool."""

    def __init__(self, pool: ProofPool, target: ProofTarget, warm_s: float) -> None:
        self.pool = pool
        self.target = target
        self.warm_s = warm_s
        self._nodes: dict[int, _Node] = {}
        self._warm: _Warm | None = None
        self._lock = anyio.Lock()
        self._last_used = time.monotonic()
        self._closed = False
        self.replays = 0  # tactics re-run to rebuild a state on another worker

    @classmethod
    async def open(
        cls,
        pool: ProofPool,
        target: ProofTarget,
        *,
        warm_s: float = 2.0,
    ) -> DetachedProof:
        """Start the proof (the statement is checked now); its worker stays warm if it can."""
        proof = cls(pool, target, warm_s)
        handle = await pool.open_proof(target)
        proof._nodes[0] = _Node(parent=None, tactic=None, goal_id=None, goals=tuple(handle.goals))
        proof._warm = _Warm(handle, {0: handle.state_id})
        await proof._maybe_release()
        return proof

    # ------------------------------------------------------------------ the handle protocol

    @property
    def state_id(self) -> int:
        """The root state."""
        return 0

    @property
    def goals(self) -> list[Goal]:
        """The root state's goals."""
        return list(self._nodes[0].goals)

    @property
    def states(self) -> frozenset[int]:
        """Every state of this proof."""
        return frozenset(self._nodes)

    @property
    def lost(self) -> bool:
        """Never: a dead worker costs a replay, not the proof."""
        return False

    @property
    def worker_pid(self) -> int | None:
        """The warm worker's pid, if one is attached."""
        return self._warm.handle.worker_pid if self._warm is not None else None

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> TacticOutcome:
        """Run ``tactic`` on ``state_id`` (replayed onto a worker first if needed)."""
        if self._closed:
            raise HandleLost("the proof is closed")
        if state_id not in self._nodes:
            raise ForeignState(f"state {state_id} is not a state of this proof")
        async with self._lock:
            self._last_used = time.monotonic()
            try:
                warm = await self._materialize(state_id)
                out = await warm.handle.run_tactic(warm.remote[state_id], tactic, goal_id=goal_id)
                if out.status is TacticStatus.LOST or warm.handle.lost:
                    await self._drop_warm()
                    return out.model_copy(update={"state_id": state_id})
                if not out.ok or out.next_state_id is None:
                    return out.model_copy(update={"state_id": state_id})
                new = len(self._nodes)
                self._nodes[new] = _Node(parent=state_id, tactic=tactic, goal_id=goal_id, goals=tuple(out.goals))
                warm.remote[new] = out.next_state_id
                return out.model_copy(update={"state_id": state_id, "next_state_id": new})
            finally:
                self._last_used = time.monotonic()
                await self._maybe_release()

    async def print_root(self, state_id: int) -> GoalPrintResult:
        """goal.print of ``state_id`` with the root flags (replayed onto a worker if needed)."""
        if state_id not in self._nodes:
            raise ForeignState(f"state {state_id} is not a state of this proof")
        async with self._lock:
            try:
                warm = await self._materialize(state_id)
                return await warm.handle.print_root(warm.remote[state_id])
            finally:
                self._last_used = time.monotonic()
                await self._maybe_release()

    async def close(self) -> None:
        """Forget the proof and hand back its warm worker."""
        self._closed = True
        async with self._lock:
            await self._drop_warm()

    # ------------------------------------------------------------------ workers

    def depth(self, state_id: int) -> int:
        """Tactics from the root to ``state_id`` (what a cold call on it replays)."""
        return len(self._path(state_id))

    def _path(self, state_id: int) -> list[int]:
        path: list[int] = []
        node: int | None = state_id
        while node is not None and node != 0:
            path.append(node)
            node = self._nodes[node].parent
        return path[::-1]

    async def _materialize(self, state_id: int) -> _Warm:
        """A worker holding ``state_id``: the warm one if it does, else a fresh start and a replay."""
        if self._warm is not None and state_id in self._warm.remote and not self._warm.handle.lost:
            return self._warm
        await self._drop_warm()
        handle = await self.pool.open_proof(self.target)
        warm = _Warm(handle, {0: handle.state_id})
        self._warm = warm
        for node_id in self._path(state_id):
            node = self._nodes[node_id]
            assert node.parent is not None and node.tactic is not None
            out = await handle.run_tactic(warm.remote[node.parent], node.tactic, goal_id=node.goal_id)
            self.replays += 1
            if not out.ok or out.next_state_id is None:
                await self._drop_warm()
                raise ReplayDiverged(
                    f"replaying {node.tactic!r} to rebuild state {node_id} gave {out.status.value}: {out.error_text[:200]}"
                )
            warm.remote[node_id] = out.next_state_id
        return warm

    async def _maybe_release(self) -> None:
        # keep the worker only while another acquirer could still get an idle one
        status = self.pool.status()
        if self._warm is not None and (status.idle == 0 or status.waiting > 0):
            await self._drop_warm()

    async def release_if_idle(self) -> bool:
        """Hand back the warm worker after ``warm_s`` idle (the lease sweeper calls this)."""
        if self._warm is None or self._lock.locked() or time.monotonic() - self._last_used < self.warm_s:
            return False
        async with self._lock:
            await self._drop_warm()
        return True

    async def _drop_warm(self) -> None:
        warm, self._warm = self._warm, None
        if warm is not None:
            with anyio.CancelScope(shield=True):
                try:
                    await warm.handle.close()
                except LeanError:  # a dead worker cannot delete its states; the pool replaces it
                    pass
