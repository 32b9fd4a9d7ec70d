"""Trajectory Parquet: round trips through pandas, polars and DuckDB; atomic, resumable writing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow.parquet as pq

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
from burnqed.trajectory.writer import parts_dir


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
    assert out.is_file() and not parts_dir(out).exists()
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


def test_interrupted_run_leaves_readable_parts_and_resume_skips_done(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    first = TrajectoryWriter(out, row_group_rows=1)
    first.write(_records("a", 3, proved=True))
    first.write(_records("b", 2, proved=False))
    # no finalize: as if the process had been killed
    assert not out.exists()
    assert theorems_in(out) == {"a", "b"}
    assert read_trajectories(out).num_rows == 5

    second = TrajectoryWriter(out, resume=True, row_group_rows=1)
    assert second.done_theorems() == {"a", "b"}
    second.write(_records("c", 2, proved=False))
    second.finalize()
    table = read_trajectories(out)
    assert sorted(set(table.column("theorem").to_pylist())) == ["a", "b", "c"]
    assert table.num_rows == 7

    third = TrajectoryWriter(out, resume=True)
    assert third.done_theorems() == {"a", "b", "c"}
    third.write(_records("d", 1, proved=False))
    third.finalize()
    assert pq.read_table(out).num_rows == 8


def test_merge_never_duplicates_a_theorem(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    with TrajectoryWriter(out) as writer:
        writer.write(_records("a", 3, proved=True))
    # a crash after the rename but before the parts were removed leaves a copy of "a"
    stale = TrajectoryWriter(out, resume=True)
    stale.write_table(pq.read_table(out))
    stale.flush()
    resumed = TrajectoryWriter(out, resume=True)
    resumed.finalize()
    assert pq.read_table(out).num_rows == 3


def test_without_resume_an_old_output_is_replaced(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    with TrajectoryWriter(out) as writer:
        writer.write(_records("a", 3, proved=True))
    with TrajectoryWriter(out) as writer:
        assert writer.done_theorems() == set()
        writer.write(_records("b", 2, proved=False))
    assert theorems_in(out) == {"b"}


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
