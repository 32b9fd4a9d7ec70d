"""The Lean actor: a Ray actor body that owns one LeanPool on its node.

Two ways in. ``search`` runs a whole statement's best-first search next to the pool (the
policy calls go to the shared policy actor, or to the actor's own policy), so a search
costs one Ray call however many tactics it runs, and the unit a dead actor loses, and the
driver re-queues, is one statement. The forwarded Lean interface (``open_proof``,
``run_tactic``, ``print_root``, ``close_proof``, ``verify_proof``, ``status``) serves
``burnqed.cluster.remote.RemotePool``, which stands in for a local pool anywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from burnqed.cluster.policy_actor import PolicyInfo, RemoteGenerator, RemoteScorer, call_with_restarts, policy_info
from burnqed.cluster.spec import ActorHost, ClusterSpec
from burnqed.data.theorems import Theorem
from burnqed.lean.errors import UnknownHandle
from burnqed.lean.handle import ProofHandle
from burnqed.lean.pool import LeanPool
from burnqed.lean.protocol import Goal, GoalPrintResult
from burnqed.lean.results import PoolStatus, ProofVerdict, TacticOutcome
from burnqed.lean.target import ProofTarget
from burnqed.search.components import open_components
from burnqed.search.engine import BestFirstSearch
from burnqed.search.protocols import StateScorer, TacticGenerator
from burnqed.search.results import SearchResult
from burnqed.trajectory.writer import records_to_table

if TYPE_CHECKING:  # pyarrow and Ray load only where a cluster runs
    import pyarrow as pa
    from ray.actor import ActorHandle

    from burnqed.cluster.policy_actor import PolicyActor

__all__ = ["ActorInfo", "LeanActor", "OpenedProof", "StatementOutcome"]


class ActorInfo(BaseModel):
    """Where a Lean actor runs."""

    model_config = ConfigDict(frozen=True)

    index: int
    node_id: str
    pid: int
    backend: str
    workers: int


class OpenedProof(BaseModel):
    """A proof opened in a Lean actor: its handle id there, its root state and goals."""

    model_config = ConfigDict(frozen=True)

    handle_id: str
    state_id: int
    goals: list[Goal]


@dataclass(frozen=True, slots=True)
class StatementOutcome:
    """One statement's search, as a Lean actor returns it: the result, its records moved into
    ``rows`` (an Arrow IPC stream of the trajectory schema, cheaper to ship than a pickled
    table; None when no state was explored)."""

    result: SearchResult
    rows: bytes | None
    actor: int
    node_id: str
    actor_s: float

    def table(self) -> pa.Table | None:
        """The records as an Arrow table (None without rows)."""
        if self.rows is None:
            return None
        import pyarrow as pa

        return pa.ipc.open_stream(self.rows).read_all()


@dataclass(frozen=True, slots=True)
class _Resources:
    pool: LeanPool
    generator: TacticGenerator | None
    scorer: StateScorer | None
    policy: PolicyInfo


def _ipc(table: pa.Table) -> bytes:
    """``table`` as one Arrow IPC stream."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _node_id() -> str:
    from burnqed.cluster.ray_support import import_ray

    return str(import_ray().get_runtime_context().get_node_id())


class LeanActor:
    """Ray actor body: one LeanPool, statement searches on it, and the forwarded Lean interface."""

    def __init__(self, spec: ClusterSpec, index: int, policy_actor: ActorHandle[PolicyActor] | None = None) -> None:
        self._spec = spec
        self._index = index
        self._policy_actor = policy_actor
        self._host: ActorHost[_Resources] = ActorHost(self._open)
        self._handles: dict[str, ProofHandle] = {}

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[_Resources]:
        spec = self._spec
        lean = spec.lean.model_copy(update={"num_workers": spec.cluster.workers_per_actor})
        async with LeanPool(lean) as pool:
            if self._policy_actor is not None:
                retry = spec.cluster.policy_retry_s
                info = await call_with_restarts(self._policy_actor, "ready", retry)
                generator = RemoteGenerator(self._policy_actor, retry) if info.has_generator else None
                scorer = RemoteScorer(self._policy_actor, retry) if info.has_scorer else None
                yield _Resources(pool, generator, scorer, info)
                return
            async with open_components(
                spec.policy_config, spec.paths, policy=spec.policy, model_dir=spec.model_dir, ebm=spec.ebm
            ) as comps:
                yield _Resources(pool, comps.generator, comps.scorer, policy_info(comps))

    async def ready(self) -> ActorInfo:
        """Start the pool (first call) and say where this actor runs."""
        res = await self._host.get()
        return ActorInfo(
            index=self._index,
            node_id=_node_id(),
            pid=os.getpid(),
            backend=res.pool.backend,
            workers=res.pool.status().workers,
        )

    async def policy(self) -> PolicyInfo:
        """The ids of the policy and energy head this actor's searches use."""
        return (await self._host.get()).policy

    async def search(self, theorem: Theorem, iteration: int) -> StatementOutcome:
        """Search one statement on this actor's pool; its records come back as one Arrow table."""
        res = await self._host.get()
        t0 = time.perf_counter()
        result = await BestFirstSearch(res.pool, res.generator, res.scorer, self._spec.search).prove(
            theorem, iteration=iteration
        )
        return StatementOutcome(
            result=result.model_copy(update={"records": []}),
            rows=_ipc(records_to_table(result.records)) if result.records else None,
            actor=self._index,
            node_id=_node_id(),
            actor_s=time.perf_counter() - t0,
        )

    # ------------------------------------------------------------------ the forwarded Lean interface

    async def open_proof(self, target: ProofTarget) -> OpenedProof:
        """Open a proof on this actor's pool; the caller closes it with ``close_proof``."""
        res = await self._host.get()
        handle = await res.pool.open_proof(target)
        self._handles[handle.id] = handle
        return OpenedProof(handle_id=handle.id, state_id=handle.state_id, goals=list(handle.goals))

    def _handle(self, handle_id: str) -> ProofHandle:
        handle = self._handles.get(handle_id)
        if handle is None:
            raise UnknownHandle(f"no open proof handle {handle_id!r} on Lean actor {self._index}")
        return handle

    async def run_tactic(self, handle_id: str, state_id: int, tactic: str, goal_id: int | None) -> TacticOutcome:
        """``run_tactic`` on an open proof."""
        return await self._handle(handle_id).run_tactic(state_id, tactic, goal_id)

    async def print_root(self, handle_id: str, state_id: int) -> GoalPrintResult:
        """``print_root`` on an open proof."""
        return await self._handle(handle_id).print_root(state_id)

    async def close_proof(self, handle_id: str) -> None:
        """Close an open proof (unknown ids are ignored: closing twice is harmless)."""
        handle = self._handles.pop(handle_id, None)
        if handle is not None:
            await handle.close()

    async def verify_proof(self, target: ProofTarget, tactics: Sequence[str]) -> ProofVerdict:
        """The replay gate on this actor's pool."""
        res = await self._host.get()
        return await res.pool.verify_proof(target, list(tactics))

    async def status(self) -> PoolStatus:
        """The pool's status."""
        res = await self._host.get()
        return res.pool.status()

    async def stop(self) -> None:
        """Close the open proofs and the pool."""
        for handle in list(self._handles.values()):
            await handle.close()
        self._handles.clear()
        await self._host.stop()
