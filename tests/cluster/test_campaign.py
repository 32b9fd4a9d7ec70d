"""Statements spread over Lean actors: the same proofs as a local search, each committed once, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pyarrow.parquet as pq
import pytest

from burnqed.cluster.campaign import Campaign
from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.sets import load_builtin
from burnqed.lean import LeanConfig, LeanPool
from burnqed.search import RuleGenerator, SearchConfig, SearchResult, search_theorems
from burnqed.search.store import StatementStore, store_dir

pytestmark = pytest.mark.anyio

SEARCH = SearchConfig(max_nodes=12, time_limit_s=30.0)
SPEC = ClusterSpec(
    cluster=ClusterConfig(lean_actors=2, workers_per_actor=1, searches_per_actor=2),
    lean=LeanConfig(backend="embedded"),
    search=SEARCH,
    policy="none",
)
THEOREMS = load_builtin("benchmark-test")[:16]


class DriverDied(Exception):
    """Stands in for the driver process dying after some commits."""


async def _local() -> list[SearchResult]:
    async with LeanPool(LeanConfig(backend="embedded", num_workers=2)) as pool:
        return await search_theorems(pool, RuleGenerator(), None, THEOREMS, SEARCH.model_copy(update={"concurrency": 2}))


def _row_counts(path: Path) -> dict[str, int]:
    frame = pq.read_table(path).to_pandas()
    assert not frame.duplicated(["theorem", "node_id"]).any()
    return frame.groupby("theorem").size().to_dict()


async def test_a_cluster_search_finds_the_local_proofs_and_resumes_from_the_manifest(
    local_ray: Any, tmp_path: Path
) -> None:
    local = await _local()
    out = tmp_path / "run.parquet"
    with anyio.fail_after(240):
        async with Campaign(SPEC) as campaign:
            assert campaign.placement == "each" and campaign.policy_info is not None
            assert campaign.policy_info.label == "automation"
            committed: list[str] = []

            def die_after_five(result: SearchResult) -> None:
                committed.append(result.theorem.name)
                if len(committed) == 5:
                    raise DriverDied

            store = StatementStore(store_dir(out), output=out)
            with pytest.RaisesGroup(DriverDied, allow_unwrapped=True, flatten_subgroups=True):
                await campaign.run(THEOREMS, store=store, on_result=die_after_five)
            resumed = StatementStore(store_dir(out), output=out, resume=True)
            assert resumed.done(THEOREMS) == set(committed)
            report = await campaign.run(THEOREMS, store=resumed)
            resumed.finalize()
    assert report.skipped == len(committed) and len(report.results) == len(THEOREMS) - len(committed)
    assert report.requeued == 0 and report.duplicates_refused == 0
    assert sum(report.by_actor.values()) == len(report.results)
    by_name = {r.theorem.name: r for r in resumed.results(THEOREMS)}
    assert {n: (r.proved, r.proof) for n, r in by_name.items()} == {r.theorem.name: (r.proved, r.proof) for r in local}
    assert _row_counts(out) == {r.theorem.name: len(r.records) for r in local if r.records}
