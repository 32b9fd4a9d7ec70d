"""Many theorems at once: order, trajectories, interruption and resume; evaluation reports."""

from __future__ import annotations

from pathlib import Path

import anyio
import pyarrow.parquet as pq
import pytest

from burnqed.data.theorems import Theorem
from burnqed.search import RuleGenerator, SearchConfig, SearchResult, search_theorems
from burnqed.search.comparison import compare_reports
from burnqed.search.evaluation import EvalReport, load_report, report_from_results
from burnqed.search.store import StatementStore, store_dir
from burnqed.trajectory import read_trajectories, summarize
from tests.search.toy_pool import ToyPool

pytestmark = pytest.mark.anyio

CONFIG = SearchConfig(automation_tactics=["trivial", "rfl"], time_limit_s=10.0, concurrency=3, max_nodes=20)


async def evaluate(pool: ToyPool, generator: RuleGenerator | None, theorems: list[Theorem], config: SearchConfig, label: str) -> EvalReport:
    """Search ``theorems`` and reduce the results to a report, as every evaluation does."""
    results = await search_theorems(pool, generator, None, theorems, config)
    return report_from_results(results, label=label, backend=pool.backend, search=config, policy="none")


def _theorems() -> list[Theorem]:
    return [
        Theorem(name=f"t{i}", statement=s)
        for i, s in enumerate(["True", "True ∧ True", "False", "(1 = 1) ∨ False", "False ∨ False", "True ∧ (2 = 2)"])
    ]


async def test_results_come_back_in_input_order_with_trajectories(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    seen: list[str] = []
    store = StatementStore(store_dir(out), output=out)
    with anyio.fail_after(20):
        results = await search_theorems(
            ToyPool(), RuleGenerator(), None, _theorems(), CONFIG, store=store, iteration=2,
            on_result=lambda r: seen.append(r.theorem.name),
        )
    store.finalize()
    assert [r.theorem.name for r in results] == [t.name for t in _theorems()]
    assert sorted(seen) == sorted(r.theorem.name for r in results)
    assert [r.proved for r in results] == [True, True, False, True, False, True]
    summary = summarize(out)
    assert summary.theorems == 6 and summary.proved == 4 and summary.iterations == [2]
    assert summary.states == sum(len(r.records) for r in results)


async def test_interrupted_run_resumes_without_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first: list[SearchResult] = []
    store = StatementStore(store_dir(out), output=out, row_group_rows=1)
    with anyio.fail_after(20):
        with anyio.CancelScope() as scope:

            def stop_after_two(result: SearchResult) -> None:
                first.append(result)
                if len(first) == 2:
                    scope.cancel()

            cfg = CONFIG.model_copy(update={"concurrency": 1})
            await search_theorems(ToyPool(), RuleGenerator(), None, _theorems(), cfg, store=store, on_result=stop_after_two)
    assert scope.cancelled_caught
    store.finalize()
    assert {r.theorem.name for r in first} == set(pq.read_table(out).column("theorem").to_pylist())

    pool = ToyPool()
    resumed = StatementStore(store_dir(out), output=out, resume=True)
    with anyio.fail_after(20):
        rest = await search_theorems(pool, RuleGenerator(), None, _theorems(), CONFIG, store=resumed)
    resumed.finalize()
    assert 2 <= len(first) < len(_theorems())
    assert pool.started == len(_theorems()) - len(first)
    assert {r.theorem.name for r in first}.isdisjoint(r.theorem.name for r in rest)
    table = read_trajectories(out)
    names = table.column("theorem").to_pylist()
    assert set(names) == {t.name for t in _theorems()}
    keys = list(zip(names, table.column("node_id").to_pylist(), strict=True))
    assert len(keys) == len(set(keys))


async def test_eval_report_round_trips_and_compares(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        rules = await evaluate(ToyPool(), RuleGenerator(), _theorems(), CONFIG, label="automation")
        bare = await evaluate(
            ToyPool(), None, _theorems(), CONFIG.model_copy(update={"automation_tactics": ["trivial"]}),
            label="trivial_only",
        )
    assert rules.solved == 4 and rules.total == 6 and rules.solve_rate == pytest.approx(4 / 6)
    assert rules.backend == "toy" and rules.search == CONFIG
    path = tmp_path / "r.json"
    path.write_text(rules.model_dump_json(), encoding="utf-8")
    assert load_report(path) == rules
    diff = compare_reports(bare, rules, resamples=500)
    assert bare.solved == 1
    assert diff.only_b == ["t1", "t3", "t5"] and diff.only_a == [] and (diff.n, diff.b, diff.c) == (6, 0, 3)
    assert diff.diff_points == pytest.approx(100 * 3 / 6) and diff.p_value == pytest.approx(0.25)
    assert rules.outside_fragment == 0 and rules.in_fragment_solve_rate is None


async def test_eval_report_counts_statements_outside_the_fragment_apart() -> None:
    theorems = [*_theorems(), Theorem(name="real1", statement="Real x"), Theorem(name="real2", statement="Real y")]
    with anyio.fail_after(20):
        report = await evaluate(ToyPool(), RuleGenerator(), theorems, CONFIG, label="mixed")
    assert report.total == 8 and report.solved == 4 and report.outside_fragment == 2
    assert report.solve_rate == pytest.approx(4 / 8) and report.in_fragment_solve_rate == pytest.approx(4 / 6)
    assert {o.reason for o in report.outcomes if o.name.startswith("real")} == {"outside_fragment"}


async def test_eval_outcomes_carry_their_theorems_tags() -> None:
    theorems = [Theorem(name="d3", statement="True", tags=["family:depth_chain", "depth:3"]),
                Theorem(name="plain", statement="True ∧ True")]
    with anyio.fail_after(20):
        report = await evaluate(ToyPool(), RuleGenerator(), theorems, CONFIG, "tags")
    tags = {o.name: o.tags for o in report.outcomes}
    assert tags == {"d3": ["family:depth_chain", "depth:3"], "plain": []}  # what the report's per-depth rows read
