"""Per-statement shards and the manifest: committed once, resumable, merged into one output."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq

from burnqed.cluster.shards import MANIFEST_NAME, ShardStore, shards_dir
from burnqed.data.theorems import Theorem
from burnqed.search.results import SearchResult, SearchStats
from burnqed.trajectory.schema import NEGATIVE, TrajectoryRecord
from burnqed.trajectory.writer import records_to_table


def _result(name: str, rows: int) -> tuple[SearchResult, object]:
    theorem = Theorem(name=name, statement="True")
    records = [
        TrajectoryRecord(
            theorem=name, statement_sha=theorem.sha, node_id=i, parent_id=None if i == 0 else 0, state_id=i,
            state=f"⊢ s{i}", tactic=None if i == 0 else "rfl", depth=min(i, 1), remaining_depth=None, label=NEGATIVE,
            log_prob=0.0, energy=None, proof_complete=False, iteration=0, backend="embedded",
            timestamp=datetime.now(UTC),
        )
        for i in range(rows)
    ]
    result = SearchResult(theorem=theorem, proved=False, stats=SearchStats(), backend="embedded", reason="exhausted")
    return result, (records_to_table(records) if records else None)


def test_a_statement_is_committed_once_and_the_output_merges_every_shard(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    store = ShardStore(out)
    assert store.commit(*_result("a", 3), actor=0, node_id="n0")
    assert store.commit(*_result("b", 0))  # no rows: a manifest line, no shard
    assert not store.commit(*_result("a", 5))  # a re-queued statement's second result
    assert store.duplicates_refused == 1
    assert store.done_theorems() == {"a", "b"}
    store.finalize()
    table = pq.read_table(out)
    assert table.num_rows == 3 and set(table.column("theorem").to_pylist()) == {"a"}
    assert not shards_dir(out).exists()


def test_resume_reads_the_manifest_and_skips_a_torn_line_and_an_orphan_shard(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first = ShardStore(out)
    first.commit(*_result("a", 2))
    first.commit(*_result("b", 2))
    manifest = shards_dir(out) / MANIFEST_NAME
    lines = manifest.read_text(encoding="utf-8").splitlines()
    # the driver died while appending b's line: b's shard is an orphan, its line torn
    manifest.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2], encoding="utf-8")
    resumed = ShardStore(out, resume=True)
    assert resumed.done_theorems() == {"a"}
    assert resumed.commit(*_result("b", 4))  # searched again, its own orphan overwritten
    resumed.finalize()
    counts = pq.read_table(out).to_pandas().groupby("theorem").size().to_dict()
    assert counts == {"a": 2, "b": 4}


def test_a_resumed_run_keeps_the_finalised_output_and_adds_new_statements(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first = ShardStore(out)
    first.commit(*_result("a", 2))
    first.finalize()
    again = ShardStore(out, resume=True)
    assert again.done_theorems() == {"a"}
    assert not again.commit(*_result("a", 9))
    again.commit(*_result("c", 1))
    again.finalize()
    counts = pq.read_table(out).to_pandas().groupby("theorem").size().to_dict()
    assert counts == {"a": 2, "c": 1}


def test_without_resume_an_earlier_run_is_cleared(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    ShardStore(out).commit(*_result("a", 2))
    fresh = ShardStore(out)
    assert fresh.done_theorems() == set()
    assert fresh.results() == []


def test_a_store_kept_elsewhere_merges_into_a_new_directory_and_one_without_output_keeps_results(
    tmp_path: Path,
) -> None:
    out = tmp_path / "trajectories" / "iter_0.parquet"  # its directory does not exist yet
    kept = tmp_path / "cluster" / "iter_0_search"
    store = ShardStore(out, resume=True, directory=kept)
    assert store.commit(*_result("a", 2)) and store.commit(*_result("b", 1))
    assert (kept / MANIFEST_NAME).is_file() and not shards_dir(out).exists()
    resumed = ShardStore(out, resume=True, directory=kept)  # a crashed driver's rerun
    assert resumed.done_theorems() == {"a", "b"} and not resumed.commit(*_result("a", 2))
    assert resumed.finalize() == out and not kept.exists()
    assert pq.read_table(out).num_rows == 3

    manifest_only = ShardStore(None, directory=tmp_path / "r.json.shards")
    assert manifest_only.commit(*_result("c", 4))
    assert [p.name for p in (tmp_path / "r.json.shards").iterdir()] == [MANIFEST_NAME]  # no shard written
    again = ShardStore(None, resume=True, directory=tmp_path / "r.json.shards")
    assert [r.theorem.name for r in again.results()] == ["c"]
    assert again.finalize() is None and not (tmp_path / "r.json.shards").exists()
