"""The depth world: composed statements, a held-out set fixed by its seed, an unlabeled deep pool."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from burnqed.data.benchmark import BenchmarkError
from burnqed.data.depth import (
    DEPTH_TEST_LEVELS, DEPTH_TEST_SEED, DEPTH_TEST_SIZE, DEPTH_TUNE_SEED, depth_pool, depth_statement, depth_test, depth_tune,
)  # fmt: skip
from burnqed.data.sets import depth_split_path, load_builtin
from burnqed.embedded.repl.verify import check_proof, closes_in_one, new_checker


@pytest.fixture(scope="module")
def depth_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home for the module: the split files the first test caches, the next reads (each split is drawn once)."""
    return tmp_path_factory.mktemp("depth-home")


def _depth(theorem) -> int:
    return next(int(t.split(":")[1]) for t in theorem.tags if t.startswith("depth:"))


def test_a_statement_of_depth_d_has_d_parts_and_a_checked_proof_no_automation_closes() -> None:
    checker = new_checker(10.0)
    for depth in (1, 3, 5):
        statement, proof = depth_statement(random.Random(f"t{depth}"), depth)
        assert statement.count(" ∧ ") == depth - 1
        assert proof.count("constructor") == depth - 1 and len(proof) >= 2 * depth
        assert check_proof(checker, statement, proof).ok
        assert not any(closes_in_one(checker, statement, t) for t in ("omega", "simp", "norm_num", "decide"))


def test_the_held_out_set_is_fixed_and_deeper_than_any_labelled_pool_statement(depth_home: Path) -> None:
    held = depth_test()
    assert held == depth_test()  # the same statements on every call
    assert len(held) == DEPTH_TEST_SIZE and {_depth(t) for t in held} == set(DEPTH_TEST_LEVELS)
    # the built-in set is the same: the shipped file is a fresh draw (after a DEPTH_VERSION change,
    # burnqed.data.sets.write_depth_splits() writes the new files)
    assert depth_split_path("depth-test").is_file() and depth_split_path("depth-tune").is_file()
    assert load_builtin("depth-test", home=depth_home) == held == load_builtin("depth-test", home=depth_home)
    shas = {t.sha for t in held}
    pool = depth_pool(60, 1, labelled_depth=2, exclude=shas)
    assert not shas & {t.sha for t in pool}
    assert {_depth(t) for t in pool} == {1, 2, 3, 4, 5, 6}
    # only shallow pool statements carry a reference proof: no labelled proof is as deep as a held-out one
    labelled = [t for t in pool if t.proof is not None]
    assert labelled and all(_depth(t) <= 2 for t in labelled)
    assert all(t.proof is None for t in pool if _depth(t) > 2)


def test_the_held_out_seeds_are_reserved() -> None:
    for seed in (DEPTH_TEST_SEED, DEPTH_TUNE_SEED):
        with pytest.raises(BenchmarkError, match="reserved"):
            depth_pool(6, seed)


def test_the_tuning_split_is_the_test_splits_distribution_from_another_seed_and_disjoint(depth_home: Path) -> None:
    from burnqed.data.sets import split_of

    test, tune = load_builtin("depth-test", home=depth_home), load_builtin("depth-tune", home=depth_home)
    assert tune == depth_tune() and DEPTH_TUNE_SEED != DEPTH_TEST_SEED
    # seeded differently: the sources name each split's seed, and not one statement is shared
    assert {t.source for t in tune} == {f"burnqed.depth:v2:depth_tune:seed={DEPTH_TUNE_SEED}"}
    assert {t.source for t in test} == {f"burnqed.depth:v2:depth_test:seed={DEPTH_TEST_SEED}"}
    assert not {t.sha for t in test} & {t.sha for t in tune}
    # the same distribution: as many statements of each depth
    assert sorted(_depth(t) for t in tune) == sorted(_depth(t) for t in test)
    assert len({t.name for t in tune}) == len(tune) and all(t.name.startswith("depth_tune_") for t in tune)
    assert (split_of("depth-tune[150]"), split_of("depth-test[60]"), split_of("/x/held.jsonl[3]")) == (
        "tune", "test", "own")
