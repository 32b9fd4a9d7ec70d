"""Issue 24 end to end: false statements about divisors that are zero, ediv/emod with
negative operands, casts and powers are refused by every script (the kernel decides), and
their true counterparts still prove."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.soundness.campaign import FAMILY_SCRIPTS, GENERIC_SCRIPTS, falsified

FALSE = [
    "(0 : ℤ) ∣ -1",
    "(0 : ℤ) ∣ 5",
    "(0 : ℕ) ∣ 3",
    "(0 * 7 : ℤ) ∣ -2",
    "∀ x : ℤ, x * 0 ∣ -1",
    "∀ x : ℤ, 0 * x ∣ x - 1",
    "∀ x : ℤ, x - x ∣ -1",
    "∀ n : ℕ, ((n - n : ℕ) : ℤ) ∣ -1",
    "∀ m n : ℕ, m ≤ n → ((m - n : ℕ) : ℤ) ∣ -1",
    "∀ x : ℤ, x = 0 → x ∣ -1",
    "∀ x : ℤ, ¬ 0 ∣ x → x > 0",
    "∀ x : ℤ, x % 0 = 0",
    "∀ x : ℤ, x / 0 = x",
    "(-7 : ℤ) / 2 = -3",
    "(-7 : ℤ) % 2 = -1",
    "(7 : ℤ) / -2 = -4",
    "(-7 : ℤ) % -2 = -1",
    "∀ x : ℤ, x % (-3) < 0",
    "∀ x : ℤ, (-x) / 2 = -(x / 2)",
    "∀ x y : ℤ, y ≠ 0 → x % y < y",
    "∀ m n : ℕ, ((m - n : ℕ) : ℤ) = (m : ℤ) - (n : ℤ)",
    "∀ n : ℕ, ((n - 1 : ℕ) : ℤ) + 1 = n",
    "∀ (x : ℤ) (n : ℕ), x ^ n ≥ 0",
    "∀ (x : ℤ) (n : ℕ), x ^ (n + 1) = x ^ n * x + 1",
    "(0 : ℤ) ^ 0 = 0",
]

TRUE = [
    ("(0 : ℤ) ∣ 0", ["decide"]),
    ("¬ (0 : ℤ) ∣ -1", ["omega"]),
    ("∀ x : ℤ, ¬ 0 ∣ x → x ≠ 0", ["omega"]),
    ("∀ x : ℤ, x % 0 = x", ["omega"]),
    ("∀ x : ℤ, x / 0 = 0", ["omega"]),
    ("(-7 : ℤ) / 2 = -4", ["decide"]),
    ("(-7 : ℤ) % -2 = 1", ["omega"]),
    ("∀ x : ℤ, x % (-3) < 3", ["omega"]),
    ("∀ x : ℤ, x % (-3) ≥ 0", ["omega"]),
    ("∀ x : ℤ, x * 0 ∣ x → x = 0", ["omega"]),
    ("∀ (x : ℤ) (n : ℕ), x ^ (n + 1) = x ^ n * x", ["intro x n", "ring"]),
    ("∀ (x : ℤ) (n : ℕ), x ^ (n + 1) = x ^ n * x", ["intro x n", "rw [pow_succ]"]),
    ("∀ (n : ℕ), n < 2 ^ n", ["intro n", "exact Nat.lt_two_pow_self"]),
    ("∀ (n : ℕ), n < 2 ^ n", ["intro n", "exact Nat.lt_two_pow n"]),
]


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker()


@pytest.mark.parametrize("statement", FALSE)
def test_false_statements_are_refused_by_every_script(checker: Checker, statement: str) -> None:
    assert falsified(statement) is True  # false in Lean: the oracle finds a counterexample
    for script in [*GENERIC_SCRIPTS, *FAMILY_SCRIPTS]:
        assert not checker.check_proof(statement, script).ok, (statement, script)


@pytest.mark.parametrize(("statement", "script"), TRUE)
def test_true_counterparts_still_prove(checker: Checker, statement: str, script: list[str]) -> None:
    result = checker.check_proof(statement, script)
    assert result.ok, result


def test_each_lt_two_pow_takes_its_argument_as_lean_does(checker: Checker) -> None:
    # core's Nat.lt_two_pow_self has n implicit; Mathlib's `theorem Nat.lt_two_pow (n : ℕ)`
    # (the release the miniF2F proofs were checked with) has it explicit: `exact` of the bare
    # name is a type mismatch in Lean, and so is an argument given to the implicit one
    assert not checker.check_proof("∀ (n : ℕ), n < 2 ^ n", ["intro n", "exact Nat.lt_two_pow"]).ok
    assert not checker.check_proof("∀ (n : ℕ), n < 2 ^ n", ["intro n", "exact Nat.lt_two_pow_self n"]).ok
