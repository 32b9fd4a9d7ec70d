"""No tactic closes a false goal; Lean's arithmetic semantics are the ones checked."""

from __future__ import annotations

import pytest

from tests.embedded.util import Session

FALSE_GOALS = [
    "∀ (x : Nat), x - 1 + 1 = x",
    "∀ (x y : Nat), x - y + y = x",
    "∀ (x : Int), x / 2 * 2 = x",
    "∀ (x : Nat), x / 0 = x",
    "∀ (x : Nat), x % 0 = 0",
    "(-7 : ℤ) / 2 = -3",
    "(-7 : ℤ) % 2 = -1",
    "∀ (x : Int), x * x > 0",
    "∀ (x y : Nat), x * y > x",
    "∀ (p q : Prop), p ∨ q → p",
    "∀ (p : Prop), p",
    "∀ (h : ∀ (n : Nat), n > 0), False",
    "∃ (n : Nat), n + 1 = 0",
    "∀ (a b : Int), a < b → a * a < b * b",
    "∀ (n : Nat), 2 ^ n > n * n",
    "∀ (x : Nat), x ∣ 6 → x ≤ 3",
]
ATTACKS = [
    "omega",
    "linarith",
    "nlinarith",
    "simp",
    "norm_num",
    "decide",
    "ring",
    "positivity",
    "trivial",
    "rfl",
    "assumption",
    "contradiction",
    "simp_all",
    "exact trivial",
    "constructor",
    "tauto",
]


@pytest.mark.parametrize("statement", FALSE_GOALS)
def test_no_tactic_proves_a_false_statement(statement: str) -> None:
    s = Session()
    assert "stateId" in s.start(statement)
    start = s.sid
    ans = s.tac("intros")
    intro_sid = s.sid
    for tactic in ATTACKS:
        for sid in {start, intro_sid}:
            s.sid = sid
            ans = s.tac(tactic)
            if ans.get("nextStateId") is not None:
                assert ans["goals"] != [] or ans["hasSorry"], (
                    f"{tactic} closed false goal {statement}"
                )


@pytest.mark.parametrize(
    "statement",
    [
        "(7 : ℤ) / -2 = -3",
        "(-7 : ℤ) / 2 = -4",
        "(-7 : ℤ) % 2 = 1",
        "(-7 : ℤ) % -2 = 1",
        "(5 : ℕ) - 7 = 0",
        "∀ (x : Nat), x / 0 = 0 ∧ x % 0 = x",
        "∀ (x : Int), x / 0 = 0 ∧ x % 0 = x",
    ],
)
def test_lean_division_semantics(statement: str) -> None:
    s = Session()
    s.start(statement)
    s.tac("intros")
    ans = s.tac("omega")
    assert ans.get("goals") == [], s.error_text()
