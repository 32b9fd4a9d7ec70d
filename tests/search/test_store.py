"""StatementStore, the one resume store of a run: a statement committed once, a torn line or an
orphan shard or an infrastructure outcome not done, a changed statement searched again, the
shards merged into one output."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from burnqed.data.theorems import Theorem
from burnqed.search.results import SearchResult, SearchStats
from burnqed.search.store import MANIFEST_NAME, StatementStore, store_dir
from burnqed.trajectory.schema import NEGATIVE, TrajectoryRecord
from burnqed.trajectory.writer import records_to_table


def _result(name: str, rows: int, statement: str = "True", reason: str = "exhausted") -> tuple[SearchResult, pa.Table | None]:
    theorem = Theorem(name=name, statement=statement)
    records = [
        TrajectoryRecord(
            theorem=name, statement_sha=theorem.sha, node_id=i, parent_id=None if i == 0 else 0, state_id=i,
            state=f"⊢ s{i}", tactic=None if i == 0 else "rfl", depth=min(i, 1), remaining_depth=None, label=NEGATIVE,
            log_prob=0.0, energy=None, proof_complete=False, iteration=0, backend="embedded",
            timestamp=datetime.now(UTC),
        )
        for i in range(rows)
    ]
    result = SearchResult(theorem=theorem, proved=False, stats=SearchStats(), backend="embedded", reason=reason)  # type: ignore[arg-type]
    return result, (records_to_table(records) if records else None)


def _theorems(*names: str) -> list[Theorem]:
    return [Theorem(name=n, statement="True") for n in names]


def test_a_statement_is_committed_once_and_the_output_merges_every_shard(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    store = StatementStore(store_dir(out), output=out)
    assert store.commit(*_result("a", 3), actor=0, node_id="n0")
    assert store.commit(*_result("b", 0))  # no rows: a manifest line, no shard
    assert not store.commit(*_result("a", 5))  # a re-queued statement's second result
    assert store.duplicates_refused == 1
    assert store.done(_theorems("a", "b", "c")) == {"a", "b"}
    store.finalize()
    table = pq.read_table(out)
    assert table.num_rows == 3 and set(table.column("theorem").to_pylist()) == {"a"}
    assert not store_dir(out).exists()


def test_the_records_of_a_local_result_are_its_shard(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    result, table = _result("a", 2)
    assert table is not None
    store = StatementStore(store_dir(out), output=out)
    store.commit(result.model_copy(update={"records": [TrajectoryRecord(**row) for row in table.to_pylist()]}))
    store.finalize()
    assert pq.read_table(out).num_rows == 2


def test_resume_reads_the_manifest_and_skips_a_torn_line_and_an_orphan_shard(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first = StatementStore(store_dir(out), output=out)
    first.commit(*_result("a", 2))
    first.commit(*_result("b", 2))
    first.close()
    manifest = store_dir(out) / MANIFEST_NAME
    lines = manifest.read_text(encoding="utf-8").splitlines()
    # the driver died while appending b's line: b's shard is an orphan, its line torn
    manifest.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2], encoding="utf-8")
    resumed = StatementStore(store_dir(out), output=out, resume=True)
    assert resumed.done(_theorems("a", "b")) == {"a"}
    assert resumed.commit(*_result("b", 4))  # searched again, its own orphan overwritten
    resumed.finalize()
    counts = pq.read_table(out).to_pandas().groupby("theorem").size().to_dict()
    assert counts == {"a": 2, "b": 4}


def test_an_infrastructure_outcome_and_a_changed_statement_are_searched_again(tmp_path: Path) -> None:
    directory = tmp_path / "r.json.shards"
    first = StatementStore(directory)
    first.commit(*_result("a", 0))
    first.commit(*_result("b", 0, reason="lost"))  # a lost worker: no evidence about b
    assert [r.theorem.name for r in first.results(_theorems("a", "b"))] == ["a", "b"]  # this run reports it
    resumed = StatementStore(directory, resume=True)
    assert resumed.done(_theorems("a", "b")) == {"a"}
    changed = [Theorem(name="a", statement="False")]
    assert resumed.done(changed) == set() and resumed.results(changed) == []
    assert resumed.commit(*_result("a", 0, statement="False"))
    again = StatementStore(directory, resume=True)
    assert again.done(changed) == {"a"} and again.done(_theorems("a")) == set()


def test_a_resumed_run_keeps_the_finalised_output_and_adds_new_statements(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first = StatementStore(store_dir(out), output=out)
    first.commit(*_result("a", 2))
    first.finalize()
    again = StatementStore(store_dir(out), output=out, resume=True)
    assert again.done(_theorems("a")) == {"a"}
    assert not again.commit(*_result("a", 9))
    again.commit(*_result("c", 1))
    again.finalize()
    counts = pq.read_table(out).to_pandas().groupby("theorem").size().to_dict()
    assert counts == {"a": 2, "c": 1}


def test_without_resume_an_earlier_run_is_cleared(tmp_path: Path) -> None:
    out = tmp_path / "run.parquet"
    first = StatementStore(store_dir(out), output=out)
    first.commit(*_result("a", 2))
    first.close()
    fresh = StatementStore(store_dir(out), output=out)
    assert fresh.done(_theorems("a")) == set()
    assert fresh.results(_theorems("a")) == []


def test_a_store_kept_elsewhere_merges_into_a_new_directory_and_one_without_output_keeps_results(
    tmp_path: Path,
) -> None:
    out = tmp_path / "trajectories" / "iter_0.parquet"  # its directory does not exist yet
    kept = tmp_path / "stores" / "iter_0_search"
    store = StatementStore(kept, output=out, resume=True)
    assert store.commit(*_result("a", 2)) and store.commit(*_result("b", 1))
    assert (kept / MANIFEST_NAME).is_file() and not store_dir(out).exists()
    store.close()
    resumed = StatementStore(kept, output=out, resume=True)  # a crashed driver's rerun
    assert resumed.done(_theorems("a", "b")) == {"a", "b"} and not resumed.commit(*_result("a", 2))
    assert resumed.finalize() == out and not kept.exists()
    assert pq.read_table(out).num_rows == 3

    manifest_only = StatementStore(tmp_path / "r.json.shards")
    assert manifest_only.commit(*_result("c", 4))
    assert [p.name for p in (tmp_path / "r.json.shards").iterdir()] == [MANIFEST_NAME]  # no shard written
    again = StatementStore(tmp_path / "r.json.shards", resume=True)
    assert [r.theorem.name for r in again.results(_theorems("c"))] == ["c"]
    assert again.finalize() is None and not (tmp_path / "r.json.shards").exists()


def _garble_pages(path: Path) -> None:
    """Overwrite the bytes between the magic and the footer: the footer still reads."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    for i in range(4, len(data) - footer):
        data[i] = 0xA5
    path.write_bytes(bytes(data))


def test_a_garbled_shard_with_an_intact_footer_is_searched_again_not_merged(tmp_path: Path) -> None:
    """Issue 41: it passed the readability check and every resume failed with `Couldn't deserialize thrift`."""
    import pytest

    from burnqed.trajectory.writer import TrajectoryWriteError

    out = tmp_path / "run.parquet"
    first = StatementStore(store_dir(out), output=out)
    first.commit(*_result("a", 50))
    first.commit(*_result("b", 50))
    first.close()
    shard = next(p for p in store_dir(out).glob("*.parquet") if "b" in pq.read_table(p).column("theorem").to_pylist())
    _garble_pages(shard)
    pq.read_metadata(shard)  # the footer is intact
    resumed = StatementStore(store_dir(out), output=out, resume=True)
    assert resumed.done(_theorems("a", "b")) == {"a"}  # a's work kept, b searched again
    assert resumed.commit(*_result("b", 3))
    resumed.finalize()
    counts = pq.read_table(out).to_pandas().groupby("theorem").size().to_dict()
    assert counts == {"a": 50, "b": 3}
    # a finalised output garbled the same way: the resume names it and the way out, in one line
    _garble_pages(out)
    with pytest.raises(TrajectoryWriteError) as caught:  # on opening (its names) or on merging (its rows)
        again = StatementStore(store_dir(out), output=out, resume=True)
        again.commit(*_result("c", 2))
        again.finalize()
    text = str(caught.value)
    assert str(out) in text and "\n" not in text and "--force" in text
