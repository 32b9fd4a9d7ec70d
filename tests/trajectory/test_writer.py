"""Trajectory Parquet: round trips through pandas, polars and DuckDB; atomic writing (whole or absent)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

from burnqed.trajectory import (
    NEGATIVE,
    POSITIVE,
    SCHEMA,
    TrajectoryRecord,
    TrajectoryWriter,
    iter_records,
    read_trajectories,
    summarize,
    theorems_in,
)


def _records(theorem: str, n: int, *, proved: bool) -> list[TrajectoryRecord]:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    rows = []
    for i in range(n):
        on_path = proved and i < 3
        rows.append(
            TrajectoryRecord(
                theorem=theorem,
                statement_sha="ab" * 32,
                node_id=i,
                parent_id=None if i == 0 else i - 1,
                state_id=i,
                state=f"n : ℕ\n⊢ n + {i} = {i} + n",
                tactic=None if i == 0 else "omega",
                depth=min(i, 2) if on_path else i,
                remaining_depth=2 - i if on_path else None,
                label=POSITIVE if on_path else NEGATIVE,
                log_prob=None if i == 0 else -0.25,
                energy=1.5,
                proof_complete=on_path and i == 2,
                iteration=1,
                backend="embedded",
                timestamp=now,
            )
        )
    return rows


def test_round_trip_through_pandas_polars_and_duckdb(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    records = _records("a", 5, proved=True) + _records("b", 4, proved=False)
    with TrajectoryWriter(out) as writer:
        writer.write(records[:5])
        writer.write(records[5:])
    assert out.is_file() and not (tmp_path / ".t.parquet.tmp").exists()
    assert pq.read_schema(out).equals(SCHEMA)
    assert list(iter_records(out)) == records

    df = pd.read_parquet(out)
    assert len(df) == 9 and df["state"].iloc[1] == "n : ℕ\n⊢ n + 1 = 1 + n"
    assert str(df["timestamp"].dt.tz) == "UTC"
    pdf = pl.read_parquet(out)
    assert pdf.filter(pl.col("label") == POSITIVE).height == 3
    con = duckdb.connect()
    count, proved = con.execute(
        f"select count(*), count(distinct theorem) filter (where proof_complete) from read_parquet('{out}')"
    ).fetchone()
    assert (count, proved) == (9, 1)


def test_an_unfinished_writer_leaves_the_previous_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    with TrajectoryWriter(out) as writer:
        writer.write(_records("a", 3, proved=True))
    second = TrajectoryWriter(out, row_group_rows=1)
    second.write(_records("b", 2, proved=False))  # row groups already in the temp file
    # no finalize: as if the process had been killed; the output is the first run's
    assert theorems_in(out) == {"a"}
    second.finalize()
    assert theorems_in(out) == {"b"} and pq.ParquetFile(out).num_row_groups == 2


def test_a_failed_block_discards_its_rows(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    with TrajectoryWriter(out) as writer:
        writer.write(_records("a", 3, proved=True))
    with pytest.raises(RuntimeError), TrajectoryWriter(out) as writer:
        writer.write_table(read_trajectories(out))
        raise RuntimeError("the run failed")
    assert read_trajectories(out).num_rows == 3  # the first run's file, untouched
    assert not (tmp_path / ".t.parquet.tmp").exists()


def test_summary_counts_theorems_labels_and_depths(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    with TrajectoryWriter(out) as writer:
        writer.write(_records("a", 5, proved=True))
        writer.write(_records("b", 4, proved=False))
    s = summarize(out)
    assert (s.theorems, s.proved, s.states) == (2, 1, 9)
    assert s.label_counts == {"positive": 3, "negative": 6}
    assert sum(s.depth_histogram.values()) == 9
    assert s.proof_lengths == {2: 1}
    assert s.backends == ["embedded"] and s.iterations == [1]
