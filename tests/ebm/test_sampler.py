"""Contrastive groups: negative kinds, ratios, fall-backs, inputs."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from burnqed.ebm import ContrastiveSampler, EBMConfig, EBMDataError
from burnqed.ebm.synthetic import synthetic_trajectories
from burnqed.trajectory.schema import SCHEMA, TrajectoryRecord

STAMP = datetime(2026, 1, 1, tzinfo=UTC)


def _row(
    theorem: str,
    node: int,
    parent: int | None,
    state: str,
    label: int,
    remaining: int | None = None,
    done: bool = False,
) -> dict:
    return TrajectoryRecord(
        theorem=theorem, statement_sha="0" * 64, node_id=node, parent_id=parent, state=state, depth=0 if parent is None else 1,
        remaining_depth=remaining, label=label, proof_complete=done, backend="embedded", timestamp=STAMP,
    ).model_dump()  # fmt: skip


def _table() -> pa.Table:
    rows = [
        _row("A", 0, None, "A0", 1, 2),
        _row("A", 1, 0, "A1", 1, 1),
        _row("A", 2, 0, "A-dead-2", 0),
        _row("A", 3, 0, "A-dead-3", 0),
        _row("A", 4, 1, "no goals", 1, 0, done=True),
        _row("A", 5, 1, "A-dead-5", 0),
        _row("A", 6, 2, "A-dead-6", 0),
        _row("A", 7, 3, "A1", 0),  # the proof-path state reached again elsewhere: never a negative
        _row("B", 0, None, "B0", 1, 1),
        _row("B", 1, 0, "no goals", 1, 0, done=True),
        _row("B", 2, 0, "B-dead-2", 0),
    ]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _config(**kw: float) -> EBMConfig:
    return EBMConfig(num_negatives=4, **kw)


def test_negative_kinds_follow_the_trajectory_structure() -> None:
    sampler = ContrastiveSampler(_table(), _config(hard_ratio=0.5, medium_ratio=0.25, easy_ratio=0.25))
    groups = {g.positive: g for g in sampler.groups(0)}
    assert set(groups) == {"A0", "A1", "B0"}  # terminal "no goals" states are left out by default
    g = groups["A1"]
    assert g.remaining_depth == 1
    kinds = dict(zip(g.negatives, g.kinds, strict=True))
    assert Counter(g.kinds) == {"hard": 2, "medium": 1, "easy": 1}
    assert {s for s, k in kinds.items() if k == "hard"} == {"A-dead-2", "A-dead-3"}  # siblings of A1
    assert {s for s, k in kinds.items() if k == "medium"} <= {"A-dead-5", "A-dead-6"}
    assert {s for s, k in kinds.items() if k == "easy"} == {"B-dead-2"}
    assert all("A1" != s for gr in groups.values() for s in gr.negatives)


def test_short_kinds_pass_their_share_on() -> None:
    # the root has no siblings: the hard share goes to medium, then easy; K=4 from 4+1 dead ends
    sampler = ContrastiveSampler(_table(), _config(hard_ratio=1.0, medium_ratio=0.0, easy_ratio=0.0))
    root = next(g for g in sampler.groups(0) if g.positive == "A0")
    assert len(root.negatives) == 4 and len(set(root.negatives)) == 4
    assert "hard" not in root.kinds


def test_too_few_negatives_are_repeated_to_fill_the_group() -> None:
    sampler = ContrastiveSampler(_table(), EBMConfig(num_negatives=9))
    for g in sampler.groups(0):
        assert len(g.negatives) == 9 == len(g.kinds)


def test_ratios_shape_the_mix_over_many_groups() -> None:
    table = synthetic_trajectories(30, seed=1, max_siblings=6)
    easy_only = ContrastiveSampler(table, EBMConfig(num_negatives=6, hard_ratio=0, medium_ratio=0, easy_ratio=1))
    owners: dict[str, set[str]] = {}
    for row in table.select(["theorem", "state"]).to_pylist():
        owners.setdefault(row["state"], set()).add(row["theorem"])
    for g in easy_only.groups(0):
        assert set(g.kinds) == {"easy"}
        assert all(owners[n] - {g.theorem} for n in g.negatives)  # each comes from another theorem
    mixed = ContrastiveSampler(table, EBMConfig(num_negatives=6, hard_ratio=1, medium_ratio=1, easy_ratio=1))
    counts = Counter(k for g in mixed.groups(0) for k in g.kinds)
    total = sum(counts.values())
    assert counts["easy"] / total >= 1 / 3 - 0.01  # easy never runs short; it also takes the others' shortfall
    assert counts["hard"] / total > 0.15 and counts["medium"] / total > 0.15


def test_groups_are_deterministic_per_epoch_and_differ_across_epochs() -> None:
    sampler = ContrastiveSampler(synthetic_trajectories(10, seed=2), EBMConfig(seed=5))
    assert sampler.groups(0) == sampler.groups(0)
    assert sampler.groups(0) != sampler.groups(1)
    assert len(sampler) == len(sampler.groups(3))


def test_reads_files_and_folders(tmp_path: Path) -> None:
    pq.write_table(synthetic_trajectories(3, seed=1, prefix="a"), tmp_path / "a.parquet")
    pq.write_table(synthetic_trajectories(2, seed=2, prefix="b"), tmp_path / "b.parquet")
    from_files = ContrastiveSampler([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert from_files.theorems == ["a_0", "a_1", "a_2", "b_0", "b_1"]
    assert ContrastiveSampler(tmp_path).theorems == from_files.theorems
    assert set(from_files.states()) >= {g.positive for g in from_files.groups(0)}


def test_split_holds_out_whole_theorems() -> None:
    sampler = ContrastiveSampler(synthetic_trajectories(10, seed=4))
    train, val = sampler.split(0.3, seed=0)
    assert val is not None
    assert len(val.theorems) == 3 and not set(train.theorems) & set(val.theorems)
    assert sampler.split(0.0)[1] is None


def test_trajectories_without_a_proof_are_a_data_error(tmp_path: Path) -> None:
    table = pa.Table.from_pylist([_row("A", 0, None, "A0", 0), _row("A", 1, 0, "A1", 0)], schema=SCHEMA)
    with pytest.raises(EBMDataError):
        ContrastiveSampler(table)
    with pytest.raises(EBMDataError, match="cannot read"):
        ContrastiveSampler([tmp_path / "missing.parquet"])
