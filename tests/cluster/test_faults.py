"""Faults on a Ray cluster of raylets on this machine: a node killed mid-search, the policy actor killed.

Every statement finishes, none is lost, none is written twice, and the proofs are those of
a local search.
"""

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
THEOREMS = load_builtin("benchmark-test")[:16]


def _spec(placement: str) -> ClusterSpec:
    return ClusterSpec(
        cluster=ClusterConfig(
            lean_actors=2,
            workers_per_actor=1,
            searches_per_actor=2,
            lean_actor_resources={"lean": 1},
            policy_placement=placement,  # type: ignore[arg-type]
            policy_actor_cpus=1,
            restart_wait_s=60.0,
            policy_retry_s=60.0,
        ),
        lean=LeanConfig(backend="embedded"),
        search=SEARCH,
        policy="none",
    )


async def _local() -> dict[str, tuple[bool, list[str] | None]]:
    async with LeanPool(LeanConfig(backend="embedded", num_workers=1)) as pool:
        results = await search_theorems(pool, RuleGenerator(), None, THEOREMS, SEARCH.model_copy(update={"concurrency": 1}))
    return {r.theorem.name: (r.proved, r.proof) for r in results}


def _check_output(out: Path, results: list[SearchResult]) -> None:
    frame = pq.read_table(out).to_pandas()
    assert not frame.duplicated(["theorem", "node_id"]).any(), "a statement's rows were written twice"
    assert set(frame["theorem"]) == {r.theorem.name for r in results if r.stats.states}
    assert sorted(r.theorem.name for r in results) == sorted(t.name for t in THEOREMS)


async def test_killing_a_node_mid_search_loses_and_duplicates_nothing(ray_cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    killed: list[str] = []
    with anyio.fail_after(240):
        async with Campaign(_spec("each")) as campaign:
            victim = campaign.actor_infos[0].node_id

            def kill_the_first_actors_node(result: SearchResult) -> None:
                if not killed:
                    node = next(n for n in ray_cluster.lean_nodes if n.node_id == victim)
                    ray_cluster.remove_node(node)
                    killed.append(victim)

            store = StatementStore(store_dir(out), output=out)
            report = await campaign.run(THEOREMS, store=store, on_result=kill_the_first_actors_node)
            store.finalize()
    assert killed and report.actor_failures >= 1 and report.requeued >= 1
    assert report.duplicates_refused == 0 and all(r.reason != "lost" for r in report.results)
    _check_output(out, report.results)
    assert {r.theorem.name: (r.proved, r.proof) for r in report.results} == await _local()


async def test_killing_the_policy_actor_restarts_it_and_the_search_completes(ray_cluster: Any, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    out = tmp_path / "run.parquet"
    with anyio.fail_after(240):
        async with Campaign(_spec("actor")) as campaign:
            before = await campaign.batch_stats()
            kills: list[int] = []

            def kill_the_policy(result: SearchResult) -> None:
                if not kills:
                    ray.kill(campaign.policy_actor, no_restart=False)
                    kills.append(1)

            store = StatementStore(store_dir(out), output=out)
            report = await campaign.run(THEOREMS, store=store, on_result=kill_the_policy)
            store.finalize()
            after = await campaign.batch_stats()
    assert before is not None and after is not None and after.pid != before.pid, "the policy actor was not restarted"
    assert report.duplicates_refused == 0 and all(r.reason not in ("lost", "error") for r in report.results)
    _check_output(out, report.results)
    assert {r.theorem.name: (r.proved, r.proof) for r in report.results} == await _local()
