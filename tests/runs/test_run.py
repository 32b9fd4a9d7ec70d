"""run_statements on the local pool: this run's results keep their records (the held-out
report's ranking quality reads them), results an earlier attempt committed come without."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from burnqed.data.sets import load_builtin
from burnqed.lean import LeanConfig, LeanPool
from burnqed.runs import Local, StatementRun, run_statements
from burnqed.search import SearchConfig
from burnqed.search.evaluation import report_from_results
from burnqed.search.ranking import ranking_quality
from tests.fixtures.runs import RULES, interrupted_local_run

pytestmark = pytest.mark.anyio

SEARCH = SearchConfig(max_nodes=12, time_limit_s=30.0, concurrency=1)
THEOREMS = [t for t in load_builtin("benchmark-test") if t.statement.startswith("∀")][:8]


async def test_this_runs_results_carry_their_records_and_resumed_ones_do_not(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with anyio.fail_after(120):
        async with LeanPool(LeanConfig(backend="embedded", num_workers=2)) as pool:
            first = await interrupted_local_run(pool, THEOREMS, SEARCH, store, after=2)
            ran = await run_statements(StatementRun(THEOREMS, SEARCH, Local(pool, RULES), store, finalize=False))
    earlier = {r.theorem.name for r in first}
    assert ran.skipped == 2 and len(ran.results) == len(THEOREMS)
    for result in ran.results:
        # every search has at least its root record; the store drops them
        assert bool(result.records) == (result.theorem.name not in earlier), result.theorem.name
    report = report_from_results(ran.results, label="t", backend="embedded", search=SEARCH, policy="none")
    # the proofs of more than one step found by this run are what the ranking is measured on
    assert report.ranking is not None and report.ranking.theorems > 0
    assert report.ranking == ranking_quality(r.records for r in ran.results if r.theorem.name not in earlier)
