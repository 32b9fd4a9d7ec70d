"""The driver of a cluster run: actors up, statements spread over them, results committed once.

``Campaign`` starts (or joins) Ray, the shared policy actor when the placement asks for
one, and ``cluster.lean_actors`` Lean actors, each searched by ``searches_per_actor``
slots. ``run`` feeds statements through one queue: a slot sends a statement to its actor
(``LeanActor.search``) and commits the outcome (``StatementStore.commit``) before reporting
it. When an actor or its node dies, the statements it was searching go back to the queue
(at most ``statement_retries`` times each; then the statement is recorded as ``lost``),
the slot waits for Ray to restart the actor (``restart_wait_s``) and retires if it does
not come back. Every statement therefore ends with exactly one committed result.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Self

import anyio
import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

from burnqed.cluster.errors import ClusterError, NoLiveActors
from burnqed.cluster.lean_actor import ActorInfo, LeanActor, StatementOutcome
from burnqed.cluster.policy_actor import BatchStats, PolicyActor, PolicyInfo
from burnqed.cluster.ray_support import (
    actor_options,
    campaign_cpus,
    import_ray,
    init_ray,
    is_actor_failure,
    task_error_cause,
    unwrapped,
)
from burnqed.cluster.remote import RemotePool
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.theorems import Theorem
from burnqed.search.results import SearchReason, SearchResult, SearchStats
from burnqed.search.store import StatementStore

if TYPE_CHECKING:  # Ray is imported only when a campaign starts
    from ray.actor import ActorHandle

__all__ = ["Campaign", "CampaignReport", "OutcomeCallback"]

log = logging.getLogger(__name__)

OutcomeCallback = Callable[[SearchResult], None]
_PING_INTERVAL_S = 0.5  # between probes of a restarting actor
_STOP_TIMEOUT_S = 10.0  # an actor gets this long to close its pool before it is killed


class CampaignReport(BaseModel):
    """What one ``Campaign.run`` did."""

    model_config = ConfigDict(frozen=True)

    results: list[SearchResult] = Field(description="this run's results (records in the shards), input order")
    skipped: int = Field(description="statements already committed before this run (resume)")
    backend: str
    requeued: int = Field(description="statements sent again after their actor or node died")
    actor_failures: int = Field(description="calls that found their actor dead")
    errors: int = Field(description="searches that raised inside an actor")
    duplicates_refused: int = Field(description="results dropped because their statement was already committed")
    wall_s: float
    by_actor: dict[int, int] = Field(description="statements committed per Lean actor")
    policy_batch: BatchStats | None = Field(default=None, description="the policy actor's batching, when asked for")


@dataclass(slots=True)
class _Item:
    index: int
    theorem: Theorem
    attempts: int = 0


class Campaign:
    """The actors of one cluster run: ``async with Campaign(spec) as c: report = await c.run(theorems)``."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self.placement = spec.placement()
        self.policy_actor: ActorHandle[PolicyActor] | None = None
        self.policy_info: PolicyInfo | None = None
        self.lean_actors: list[ActorHandle[LeanActor]] = []
        self.actor_infos: list[ActorInfo] = []
        self._started_ray = False

    @property
    def backend(self) -> str:
        """The Lean backend the actors run."""
        return self.actor_infos[0].backend if self.actor_infos else self.spec.lean.backend

    async def __aenter__(self) -> Self:
        """Start (or join) Ray, then the policy actor and the Lean actors; wait until every pool is up."""
        ray = import_ray()
        cfg = self.spec.cluster
        self._started_ray = init_ray(cfg, cpus_needed=campaign_cpus(cfg, policy_actor=self.placement == "actor"))
        try:
            if self.placement == "actor":
                options = actor_options(
                    cfg.policy_actor_cpus, cfg.policy_actor_gpus, cfg.policy_actor_resources, cfg.actor_max_restarts
                )
                self.policy_actor = ray.remote(PolicyActor).options(**options).remote(self.spec)
                self.policy_info = await unwrapped(self.policy_actor.ready.remote())
            options = actor_options(cfg.lean_actor_cpus, 0, cfg.lean_actor_resources, cfg.actor_max_restarts)
            remote_class = ray.remote(LeanActor).options(**options)
            self.lean_actors = [remote_class.remote(self.spec, i, self.policy_actor) for i in range(cfg.lean_actors)]
            infos: list[ActorInfo | None] = [None] * len(self.lean_actors)

            async def ready(i: int) -> None:
                infos[i] = await unwrapped(self.lean_actors[i].ready.remote())

            async with anyio.create_task_group() as tg:
                for i in range(len(self.lean_actors)):
                    tg.start_soon(ready, i)
            self.actor_infos = [info for info in infos if info is not None]
        except BaseException:
            await self._shutdown()
            raise
        if self.policy_info is None:
            self.policy_info = await unwrapped(self.lean_actors[0].policy.remote())
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop the actors (and Ray, when this campaign started it)."""
        await self._shutdown()

    async def _shutdown(self) -> None:
        ray = import_ray()
        with anyio.CancelScope(shield=True):
            for actor in [*self.lean_actors, *([self.policy_actor] if self.policy_actor is not None else [])]:
                with anyio.move_on_after(_STOP_TIMEOUT_S):
                    try:
                        await actor.stop.remote()
                    except Exception as exc:  # noqa: BLE001 - a dead actor has nothing left to stop
                        log.debug("stopping an actor: %s", exc)
                ray.kill(actor, no_restart=True)
            self.lean_actors, self.policy_actor = [], None
            if self._started_ray:
                ray.shutdown()
                self._started_ray = False

    def remote_pool(self, index: int = 0) -> RemotePool:
        """Lean actor ``index`` as a ProofPool (every call forwarded)."""
        return RemotePool(self.lean_actors[index], self.backend)

    async def batch_stats(self) -> BatchStats | None:
        """The policy actor's batch counters (None without a policy actor)."""
        if self.policy_actor is None:
            return None
        stats: BatchStats = await self.policy_actor.stats.remote()
        return stats

    async def run(
        self,
        theorems: Sequence[Theorem],
        *,
        store: StatementStore | None = None,
        iteration: int = 0,
        on_result: OutcomeCallback | None = None,
    ) -> CampaignReport:
        """Search every statement not yet in ``store``; each ends with exactly one committed result."""
        if not self.lean_actors:
            raise ClusterError("the campaign is not started: use `async with Campaign(spec) as campaign`")
        return await _Run(self, store, iteration, on_result).run(theorems)


class _Run:
    """One pass of the queue over the campaign's actors."""

    def __init__(
        self, campaign: Campaign, store: StatementStore | None, iteration: int, on_result: OutcomeCallback | None
    ) -> None:
        self.c, self.store, self.iteration, self.on_result = campaign, store, iteration, on_result
        self.results: dict[int, SearchResult] = {}
        self.finished: set[str] = set()
        self.outstanding = 0
        self.live_slots = 0
        self.requeued = self.actor_failures = self.errors = self.duplicates = 0
        self.by_actor: dict[int, int] = {}
        self.send, self.recv = anyio.create_memory_object_stream[_Item](math.inf)

    async def run(self, theorems: Sequence[Theorem]) -> CampaignReport:
        started = time.perf_counter()
        done = self.store.done(theorems) if self.store is not None else set()
        todo = [_Item(i, t) for i, t in enumerate(theorems) if t.name not in done]
        self.outstanding = len(todo)
        for item in todo:
            self.send.send_nowait(item)
        if not todo:
            self.send.close()
        cfg = self.c.spec.cluster
        try:
            async with anyio.create_task_group() as tg:
                for index, actor in enumerate(self.c.lean_actors):
                    for _ in range(cfg.searches_per_actor):
                        self.live_slots += 1
                        tg.start_soon(self._slot, index, actor)
        finally:
            self.send.close()
            self.recv.close()
        if self.outstanding:
            raise NoLiveActors(f"every Lean actor died; {self.outstanding} statement(s) not searched (resume later)")
        return CampaignReport(
            results=[self.results[i] for i in sorted(self.results)],
            skipped=len(theorems) - len(todo),
            backend=self.c.backend,
            requeued=self.requeued,
            actor_failures=self.actor_failures,
            errors=self.errors,
            duplicates_refused=self.duplicates,
            wall_s=time.perf_counter() - started,
            by_actor=self.by_actor,
        )

    async def _slot(self, index: int, actor: ActorHandle[LeanActor]) -> None:
        try:
            async with self.recv.clone() as items:
                async for item in items:
                    item.attempts += 1
                    try:
                        outcome: StatementOutcome = await actor.search.remote(item.theorem, self.iteration)
                    except Exception as exc:
                        if not is_actor_failure(exc):
                            self.errors += 1
                            self._retry(item, "error", repr(task_error_cause(exc)))
                            continue
                        self.actor_failures += 1
                        log.warning("Lean actor %d failed searching %s: %s", index, item.theorem.name, exc)
                        self._retry(item, "lost", str(exc))
                        if not await self._back(actor):
                            log.error("Lean actor %d did not come back; its slot retires", index)
                            return
                        continue
                    self._finish(item, outcome.result, outcome.table(), outcome.actor, outcome.node_id)
        finally:
            self.live_slots -= 1
            if self.live_slots == 0:
                self.send.close()

    def _retry(self, item: _Item, reason: SearchReason, detail: str) -> None:
        """Back to the queue, or, out of retries, recorded as a failed result."""
        if item.attempts <= self.c.spec.cluster.statement_retries:
            self.requeued += 1
            self.send.send_nowait(item)
            return
        result = SearchResult(
            theorem=item.theorem,
            proved=False,
            stats=SearchStats(attempts=item.attempts),
            backend=self.c.backend,
            reason=reason,
            detail=detail[:1000],
            iteration=self.iteration,
        )
        self._finish(item, result, None, None, None)

    def _finish(
        self, item: _Item, result: SearchResult, table: pa.Table | None, actor: int | None, node: str | None
    ) -> None:
        name = item.theorem.name
        if name in self.finished:
            self.duplicates += 1
            return
        if self.store is not None and not self.store.commit(result, table, actor=actor, node_id=node):
            self.duplicates += 1
            return
        self.finished.add(name)
        self.results[item.index] = result
        if actor is not None:
            self.by_actor[actor] = self.by_actor.get(actor, 0) + 1
        self.outstanding -= 1
        if self.outstanding == 0:
            self.send.close()
        if self.on_result is not None:
            self.on_result(result)

    async def _back(self, actor: ActorHandle[LeanActor]) -> bool:
        """Wait for Ray to restart ``actor`` (its pool up again); False if it is gone for good."""
        ray = import_ray()
        with anyio.move_on_after(self.c.spec.cluster.restart_wait_s):
            while True:
                try:
                    await actor.ready.remote()
                    return True
                except ray.exceptions.ActorDiedError:
                    return False
                except Exception as exc:  # noqa: BLE001 - unavailable while restarting: probe again
                    log.debug("waiting for a Lean actor: %s", exc)
                await anyio.sleep(_PING_INTERVAL_S)
        return False
