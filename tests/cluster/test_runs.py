"""The one run call: a local attempt killed half way is resumed on Ray from the same store
(and gives the local proofs, each statement once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pyarrow.parquet as pq
import pytest

from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.sets import load_builtin
from burnqed.lean import LeanConfig, LeanPool
from burnqed.runs import Local, RunStart, StatementRun, run_statements
from burnqed.search import SearchConfig
from burnqed.search.store import StatementStore, store_dir
from tests.fixtures.runs import RULES, interrupted_local_run

pytestmark = pytest.mark.anyio

SEARCH = SearchConfig(max_nodes=12, time_limit_s=30.0, concurrency=1)
SPEC = ClusterSpec(
    cluster=ClusterConfig(lean_actors=2, workers_per_actor=1, searches_per_actor=2),
    lean=LeanConfig(backend="embedded"),
    search=SEARCH,
    policy="none",
)
THEOREMS = load_builtin("benchmark-test")[:12]


async def test_a_local_attempt_is_resumed_on_ray_from_the_same_store(local_ray: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    with anyio.fail_after(240):
        async with LeanPool(LeanConfig(backend="embedded", num_workers=2)) as pool:
            first = await interrupted_local_run(pool, THEOREMS, SEARCH, store_dir(out), after=3, trajectories=out)
            # what a local rerun would give: the reference for the proofs
            whole = await run_statements(
                StatementRun(THEOREMS, SEARCH, Local(pool, RULES), tmp_path / "ref", resume=False)
            )
        assert not out.exists() and StatementStore(store_dir(out), resume=True).done(THEOREMS) == {
            r.theorem.name for r in first
        }
        starts: list[RunStart] = []
        ran = await run_statements(
            StatementRun(THEOREMS, SEARCH, SPEC, store_dir(out), trajectories=out), on_start=starts.append
        )
    assert starts[0].done == 3 and starts[0].lean_actors == 2
    assert ran.skipped == 3 and ran.searched == len(THEOREMS) - 3 and ran.cluster is not None
    assert [r.theorem.name for r in ran.results] == [t.name for t in THEOREMS]  # the local three kept, in order
    assert {r.theorem.name: (r.proved, r.proof) for r in ran.results} == {
        r.theorem.name: (r.proved, r.proof) for r in whole.results
    }
    frame = pq.read_table(out).to_pandas()
    assert not frame.duplicated(["theorem", "node_id"]).any() and not store_dir(out).exists()


@pytest.mark.parametrize("mode", ["whole", "hybrid"])
async def test_ray_runs_the_whole_and_hybrid_modes_as_a_local_run(mode: str, local_ray: Any, tmp_path: Path) -> None:
    search = SEARCH.model_copy(update={"mode": mode, "whole_samples": 3})
    spec = SPEC.model_copy(update={"search": search})
    theorems = THEOREMS[:6]
    with anyio.fail_after(240):
        async with LeanPool(LeanConfig(backend="embedded", num_workers=2)) as pool:
            local = await run_statements(StatementRun(theorems, search, Local(pool, RULES), tmp_path / "local", resume=False))
        ran = await run_statements(StatementRun(theorems, search, spec, tmp_path / "ray", resume=False))
    assert ran.cluster is not None and ran.searched == len(theorems)
    assert {r.theorem.name: (r.proved, r.proof) for r in ran.results} == {
        r.theorem.name: (r.proved, r.proof) for r in local.results
    }
    if mode == "whole":  # k proofs at the root: one expansion per statement on the actors too
        assert all(r.stats.nodes_expanded == 1 for r in ran.results)
