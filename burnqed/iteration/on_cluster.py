"""The iteration's search and evaluate steps on Ray (``iteration.cluster``).

The statements go through ``burnqed.cluster.campaign.Campaign``: each Lean actor searches
whole statements next to its pool, and the iteration's checkpoint (policy and energy head)
is loaded in the policy actor (or in every Lean actor for ``policy_placement = "each"``).
What the steps write is what the local path writes:

- ``search``: every finished statement is committed to a ShardStore whose shards and
  manifest live in the run directory (``RUN/cluster/iter_N_search/``); the step merges them
  into ``trajectories/iter_N.parquet`` however it ends, so a rerun searches only what is
  missing and nothing is written twice. Parts left by a local attempt of the same step are
  merged first (and ``merge_cluster_shards`` does the converse for a local rerun).
- ``evaluate``: each finished statement is appended to the step's ``ResultCheckpoint``
  (``eval_results/iter_N*.json.partial.jsonl``), the same file the local path resumes from.

``ray_session`` starts (or joins) Ray once for a run of several steps; a campaign then
finds it up and leaves it running.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from burnqed.data.theorems import Theorem
from burnqed.iteration.config import IterationRunConfig
from burnqed.search.config import SearchConfig
from burnqed.search.results import SearchResult

if TYPE_CHECKING:
    from burnqed.cluster.policy_actor import PolicyInfo
    from burnqed.cluster.spec import ClusterSpec

__all__ = [
    "ClusterEval",
    "cluster_spec",
    "evaluate_on_cluster",
    "merge_cluster_shards",
    "ray_session",
    "search_on_cluster",
]


@asynccontextmanager
async def ray_session(config: IterationRunConfig) -> AsyncIterator[None]:
    """Ray up for the body when ``iteration.cluster`` (started here, or joined; shut down only
    if started here); nothing otherwise. RayMissing / ClusterStartError when it cannot be."""
    if not config.iteration.cluster:
        yield
        return
    from burnqed.cluster.ray_support import RaySession, import_ray

    import_ray()
    session = RaySession(config.cluster)
    # a thread: starting Ray takes seconds, and Ray leaves the main thread's signal handlers alone
    await anyio.to_thread.run_sync(session.start)
    try:
        yield
    finally:
        session.close()


def cluster_spec(config: IterationRunConfig, search: SearchConfig, model_dir: Path, ebm: Path | None) -> ClusterSpec:
    """The actors' configs: the iteration's budgets, its policy checkpoint and energy head (absolute paths)."""
    from burnqed.cluster.spec import ClusterSpec

    return ClusterSpec(
        cluster=config.cluster,
        lean=config.lean,
        search=search,
        policy_config=config.policy,
        paths=config.paths,
        policy="model",
        model_dir=model_dir.resolve(),
        ebm=ebm.resolve() if ebm is not None else None,
    )


def merge_cluster_shards(path: Path, directory: Path) -> None:
    """A local search step: fold in what a cluster attempt of it committed to ``directory`` (if any)."""
    if directory.is_dir():
        from burnqed.cluster.shards import ShardStore

        ShardStore(path, resume=True, directory=directory).finalize()


async def search_on_cluster(
    spec: ClusterSpec,
    theorems: Sequence[Theorem],
    path: Path,
    directory: Path,
    *,
    iteration: int,
    on_result: Callable[[SearchResult], None],
    on_resume: Callable[[set[str]], None] | None = None,
) -> None:
    """Search ``theorems`` on the cluster, committing to ``directory``; merged into ``path`` however
    it ends. ``on_resume`` gets the theorems already done before the campaign starts."""
    from burnqed.cluster.campaign import Campaign
    from burnqed.cluster.shards import ShardStore
    from burnqed.trajectory.writer import TrajectoryWriter, parts_dir

    if parts_dir(path).is_dir():
        TrajectoryWriter(path, resume=True).finalize()  # a local attempt's finished theorems
    store = ShardStore(path, resume=True, directory=directory)
    if on_resume is not None:
        on_resume(store.done_theorems())
    try:
        async with Campaign(spec) as campaign:
            await campaign.run(theorems, store=store, iteration=iteration, on_result=on_result)
    finally:
        store.finalize()  # synchronous: a cancellation cannot cut the merge short


class ClusterEval:
    """What an evaluation on the cluster reports besides its results."""

    def __init__(self, results: list[SearchResult], info: PolicyInfo, backend: str) -> None:
        self.results, self.info, self.backend = results, info, backend


async def evaluate_on_cluster(
    spec: ClusterSpec, theorems: Sequence[Theorem], *, iteration: int, on_result: Callable[[SearchResult], None]
) -> ClusterEval:
    """Search ``theorems`` on the cluster (no shards: ``on_result`` checkpoints each statement)."""
    from burnqed.cluster.campaign import Campaign

    async with Campaign(spec) as campaign:
        report = await campaign.run(theorems, iteration=iteration, on_result=on_result)
        info: Any = campaign.policy_info
        backend = campaign.backend
    return ClusterEval(report.results, info, backend)
