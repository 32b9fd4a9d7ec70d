"""The built-in sets: names, shipped files, the core set's worked proofs, the training cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.data.benchmark import TEST_SIZE
from burnqed.data.config import DataConfig
from burnqed.data.sets import (
    builtin_sets,
    held_out_hashes,
    load_builtin,
    shipped_path,
    train_cache_path,
)
from burnqed.data.theorems import TheoremSetError, load_theorems
from burnqed.embedded.repl.verify import CheckerLike, check_proof

CORE = load_theorems(shipped_path("core"))


def test_builtin_sets_are_core_test_train_and_the_depth_splits() -> None:
    assert builtin_sets() == ["core", "benchmark-test", "benchmark-train", "depth-test", "depth-tune"]


def test_unknown_set_is_a_theorem_set_error() -> None:
    with pytest.raises(TheoremSetError, match="unknown built-in set"):
        load_builtin("nope")


def test_core_set_has_about_25_named_theorems_with_proofs() -> None:
    assert 25 <= len(CORE) <= 40
    assert all(t.proof and t.source == "core" for t in CORE)
    assert {"Nat.add_zero", "Nat.zero_add", "Nat.succ_ne_zero", "And.comm", "Or.comm", "Eq.trans"} <= {
        t.name for t in CORE
    }


@pytest.mark.parametrize("theorem", CORE, ids=[t.name for t in CORE])
def test_every_core_theorem_has_a_worked_proof_in_the_checker(data_checker: CheckerLike, theorem) -> None:
    verdict = check_proof(data_checker, theorem.statement, theorem.proof)
    assert verdict.ok, verdict.error


def test_shipped_held_out_set_has_300_unique_statements() -> None:
    test_set = load_builtin("benchmark-test")
    assert len(test_set) == TEST_SIZE
    assert len({t.sha for t in test_set}) == TEST_SIZE
    assert held_out_hashes() == frozenset(t.sha for t in test_set)


def test_shipped_held_out_set_is_byte_identical_on_every_load() -> None:
    path = shipped_path("benchmark-test")
    first = path.read_bytes()
    load_builtin("benchmark-test")
    assert path.read_bytes() == first


def test_benchmark_train_is_generated_once_then_read_from_the_cache(tmp_path: Path, data_checker: CheckerLike) -> None:
    config = DataConfig(train_size=6, train_seed=11)
    first = load_builtin("benchmark-train", home=tmp_path, config=config)
    path = train_cache_path(tmp_path, 6, 11)
    assert path.is_file() and len(first) == 6
    stamp = path.stat().st_mtime_ns
    assert load_builtin("benchmark-train", home=tmp_path, config=config) == first
    assert path.stat().st_mtime_ns == stamp


def test_the_held_out_set_uses_every_family() -> None:
    from burnqed.data.families import FAMILIES

    tags = {tag for t in load_builtin("benchmark-test") for tag in t.tags if tag.startswith("family:")}
    assert tags == {f"family:{name}" for name in FAMILIES}


def test_at_most_a_third_of_the_held_out_set_falls_to_one_automation_tactic(data_checker: CheckerLike) -> None:
    from burnqed.data.automation import automation_share

    sample = load_builtin("benchmark-test")[::2]
    share = automation_share(sample, DataConfig().automation_tactics, checker=data_checker)
    assert share.size == 150
    assert share.union_share <= 1 / 3
