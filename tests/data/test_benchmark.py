"""The benchmark generator: graded, deterministic per seed, disjoint from the held-out set, proofs checked."""

from __future__ import annotations

import random

import pytest

from burnqed.data.benchmark import (
    MAX_LEVEL,
    TEST_SEED,
    TEST_SIZE,
    BenchmarkError,
    build_slot,
    generate,
    generate_train,
    level_of_slot,
)
from burnqed.data.families import FAMILIES, families_by_level
from burnqed.data.sets import held_out_hashes, load_builtin
from burnqed.embedded.repl.verify import CheckerLike, check_proof


def test_slots_are_graded_from_one_to_six_steps() -> None:
    levels = [level_of_slot(i, TEST_SIZE) for i in range(TEST_SIZE)]
    assert levels == sorted(levels)
    assert set(levels) == set(range(1, MAX_LEVEL + 1))
    assert set(families_by_level()) == set(range(1, MAX_LEVEL + 1))


def test_the_same_seed_draws_the_same_set_and_another_seed_a_fresh_one() -> None:
    first = generate("train", 40, 7, verify=False)
    assert generate("train", 40, 7, verify=False) == first
    other = generate("train", 40, 8, verify=False)
    assert len({t.sha for t in first} & {t.sha for t in other}) < 10


def test_every_family_draws_statements_whose_proof_checks(data_checker: CheckerLike) -> None:
    for family in FAMILIES.values():
        rng = random.Random(f"family-test:{family.name}")
        drafts = [family.make(rng) for _ in range(3)]
        verdicts = [check_proof(data_checker, d.statement, d.proof, truncate=True) for d in drafts]
        assert any(v.ok for v in verdicts), (family.name, [(d.statement, v.error) for d, v in zip(drafts, verdicts)])


def test_a_training_set_never_contains_a_held_out_statement(data_checker: CheckerLike) -> None:
    held_out = load_builtin("benchmark-test")
    # exclude the first held-out statements from a set drawn with the test seed's slots: they must be redrawn
    reject = {t.sha for t in held_out[:5]}
    for index in range(5):
        theorem = build_slot("train", TEST_SIZE, TEST_SEED, index, reject=reject)
        assert theorem.sha not in reject
    train = generate_train(12, 3, checker=data_checker, held_out=held_out_hashes())
    assert not {t.sha for t in train} & held_out_hashes()


def test_the_held_out_seed_is_reserved() -> None:
    with pytest.raises(BenchmarkError, match="reserved"):
        generate_train(3, TEST_SEED, verify=False, held_out=held_out_hashes())


def test_generated_theorems_carry_family_and_step_tags_and_checked_proofs(data_checker: CheckerLike) -> None:
    train = generate_train(12, 5, checker=data_checker, held_out=held_out_hashes())
    for theorem in train:
        family = next(t for t in theorem.tags if t.startswith("family:")).removeprefix("family:")
        assert family in FAMILIES
        assert f"steps:{len(theorem.proof or [])}" in theorem.tags
        assert check_proof(data_checker, theorem.statement, theorem.proof or []).ok


@pytest.mark.parametrize("index", [0, 57, 123, 188, 241, 299])
def test_the_shipped_held_out_set_is_what_the_generator_draws(data_checker: CheckerLike, index: int) -> None:
    shipped = load_builtin("benchmark-test")
    earlier = {t.sha for t in shipped[:index]}
    assert build_slot("test", TEST_SIZE, TEST_SEED, index, reject=earlier, checker=data_checker) == shipped[index]


def test_the_shipped_held_out_proofs_check_on_a_sample(data_checker: CheckerLike) -> None:
    shipped = load_builtin("benchmark-test")
    for theorem in shipped[::15]:
        verdict = check_proof(data_checker, theorem.statement, theorem.proof or [])
        assert verdict.ok, (theorem.name, theorem.statement, verdict.error)


def test_generate_test_reproduces_the_shipped_file_byte_for_byte(tmp_path, data_checker: CheckerLike) -> None:
    from burnqed.data.benchmark import generate_test
    from burnqed.data.sets import shipped_path
    from burnqed.data.theorems import save_theorems

    save_theorems(tmp_path / "test.jsonl", generate_test(checker=data_checker))
    assert (tmp_path / "test.jsonl").read_bytes() == shipped_path("benchmark-test").read_bytes()
