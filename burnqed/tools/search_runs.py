"""Where a search job's statements are searched: the server's own pool, or Ray Lean actors.

``run_on_pool`` searches on the search server's LeanPool and writes the job's Parquet file
through a TrajectoryWriter; ``run_on_cluster`` sends the statements through a
``burnqed.cluster.campaign.Campaign`` (``launch_search(cluster=True)``), committing each to
a ShardStore beside the job's Parquet file and merging it when the job ends, however it
ends. Both return a ``JobRun`` that the job turns into its EvalReport. ``ClusterAccess`` is
the server's Ray: started or joined once, shared by the jobs' campaigns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from burnqed.data.theorems import Theorem
from burnqed.search.config import SearchConfig
from burnqed.tools.config import ToolsRunConfig
from burnqed.tools.jobs import JobContext, JobProgress

__all__ = ["ClusterAccess", "JobRun", "run_on_cluster", "run_on_pool"]


@dataclass(frozen=True, slots=True)
class JobRun:
    """What a search job's statements gave, wherever they were searched."""

    results: list[Any]
    label: str
    backend: str
    policy_id: str
    ebm_id: str | None
    extra: dict[str, Any] = field(default_factory=dict)


class ClusterAccess:
    """The search server's Ray: started or joined on the first cluster job, kept for the server's
    life (several jobs' campaigns share it), shut down with the server if it started it."""

    def __init__(self, config: ToolsRunConfig) -> None:
        self.config = config
        self._session: Any = None
        self._lock = anyio.Lock()

    async def start(self) -> None:
        """Ray up (RayMissing / ClusterStartError, which the error contract makes ServiceUnavailable)."""
        from burnqed.cluster.ray_support import RaySession, import_ray

        import_ray()
        async with self._lock:
            if self._session is None:
                session = RaySession(self.config.cluster, campaigns=self.config.tools.max_running_jobs)
                # a thread: starting Ray takes seconds, and the server keeps answering meanwhile
                await anyio.to_thread.run_sync(session.start)
                self._session = session

    def close(self) -> None:
        """Shut Ray down if ``start`` started it (after the jobs have stopped)."""
        if self._session is not None:
            self._session.close()
            self._session = None


async def run_on_pool(
    job: JobContext,
    pool: Any,
    comps: Any,
    theorems: Sequence[Theorem],
    config: SearchConfig,
    on_result: Callable[[Any], None],
) -> JobRun:
    """The statements searched on the server's pool with opened components; rows to the job's Parquet."""
    from burnqed.search.runner import search_theorems
    from burnqed.trajectory.writer import TrajectoryWriter

    writer = TrajectoryWriter(
        job.path(".parquet"), row_group_rows=config.row_group_rows, flush_interval_s=config.flush_interval_s
    )
    try:
        results = await search_theorems(
            pool, comps.generator, comps.scorer, theorems, config, writer=writer, on_result=on_result
        )
    finally:
        writer.finalize()  # synchronous: a cancelled job still keeps what it found
    return JobRun(results, comps.label, pool.backend, comps.policy_id, comps.ebm_id)


async def run_on_cluster(
    job: JobContext, spec: Any, theorems: Sequence[Theorem], on_result: Callable[[Any], None]
) -> JobRun:
    """The statements spread over Ray Lean actors (``spec``: a ClusterSpec); shards beside the job's Parquet."""
    from burnqed.cluster.campaign import Campaign
    from burnqed.cluster.shards import ShardStore

    job.report(JobProgress(total=len(theorems), message="starting the Lean actors"))
    store = ShardStore(job.path(".parquet"))
    try:
        async with Campaign(spec) as campaign:
            job.report(JobProgress(total=len(theorems), message=f"{len(campaign.lean_actors)} Lean actors"))
            report = await campaign.run(theorems, store=store, on_result=on_result)
            info: Any = campaign.policy_info  # set once the campaign is up
            backend = campaign.backend
    finally:
        store.finalize()  # synchronous: a cancelled job still keeps what it committed
    extra = {
        "cluster": {
            "lean_actors": spec.cluster.lean_actors,
            "requeued": report.requeued,
            "actor_failures": report.actor_failures,
        }
    }
    return JobRun(report.results, info.label, backend, info.policy_id, info.ebm_id, extra)
