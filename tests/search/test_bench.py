"""The search benchmark's writing part runs on a synthetic batch and reports JSON-able figures."""

from __future__ import annotations

import json

from burnqed.bench.search import bench_writer, synthetic_records
from burnqed.trajectory.writer import records_to_table


def test_writer_benchmark_reports_rates() -> None:
    result = bench_writer(2_000, 512)
    json.dumps(result)
    assert result["rows"] == 2_000 and result["rows_per_s"] > 0 and result["target_rows_per_s"] == 200_000


def test_synthetic_records_fit_the_schema() -> None:
    table = records_to_table(synthetic_records(250))
    assert table.num_rows == 250 and len(set(table.column("theorem").to_pylist())) == 3
