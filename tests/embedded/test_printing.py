"""Goals print the way Lean 4 core prints them."""

from __future__ import annotations

import pytest

from tests.embedded.util import Session


@pytest.mark.parametrize(
    ("source", "printed"),
    [
        ("∀ (a b : ℕ), a + b = b + a", "∀ (a b : Nat), a + b = b + a"),
        ("∀ (a : ℕ) (b : ℤ), (a : ℤ) + b = b", "∀ (a : Nat) (b : Int), ↑a + b = b"),
        ("∀ (a b : ℕ) (h₀ : a < b), a + 1 ≤ b", "∀ (a b : Nat), a < b → a + 1 ≤ b"),
        # untyped binders: numerals default them to Nat (Lean refuses `∀ x y, x * y = y * x`)
        ("∀ x y, x * y = y * x + 0", "∀ (x y : Nat), x * y = y * x + 0"),
        ("∃ (x : ℕ), x > 0 ∧ x < 5", "∃ x, x > 0 ∧ x < 5"),
        ("∃ x > 0, x < 5", "∃ x, x > 0 ∧ x < 5"),
        (
            "∀ p q r : Prop, ¬ (p ∧ q) → (p → q) → r",
            "∀ (p q r : Prop), ¬(p ∧ q) → (p → q) → r",
        ),
        ("∀ p q : Prop, ¬p ∧ q ∨ p ↔ q", "∀ (p q : Prop), ¬p ∧ q ∨ p ↔ q"),
        ("(∀ n : ℕ, n ≥ 0) ∧ True", "(∀ (n : Nat), n ≥ 0) ∧ True"),
        ("¬∀ n : ℕ, n > 2", "¬∀ (n : Nat), n > 2"),
        (
            "∀ a b c : ℕ, a - (b - c) = a - b - c",
            "∀ (a b c : Nat), a - (b - c) = a - b - c",
        ),
        (
            "∀ a b c : ℕ, a * (b + c) = (a + b) * c",
            "∀ (a b c : Nat), a * (b + c) = (a + b) * c",
        ),
        ("2 ^ 3 ^ 2 = (2 ^ 3) ^ 2", "2 ^ 3 ^ 2 = (2 ^ 3) ^ 2"),
        ("∀ x : ℤ, -x ^ 2 ≤ (-x) ^ 2", "∀ (x : Int), -x ^ 2 ≤ (-x) ^ 2"),
        (
            "∀ a b : ℕ, a ∣ b → a ≠ 0 → a ≤ b ∨ b = 0",
            "∀ (a b : Nat), a ∣ b → a ≠ 0 → a ≤ b ∨ b = 0",
        ),
        ("∀ {a b : Prop}, a ∧ b ↔ b ∧ a", "∀ {a b : Prop}, a ∧ b ↔ b ∧ a"),
    ],
)
def test_statement_prints_like_lean(source: str, printed: str) -> None:
    s = Session()
    assert "stateId" in s.start(source)
    assert s.goals_text() == f"⊢ {printed}"


def test_intro_shows_hypotheses_with_lean_types() -> None:
    s = Session()
    s.start("∀ (a b : ℕ) (h : a < b), ∃ c, a + c = b")
    s.tac("intro a b h")
    assert s.goals_text() == "a b : Nat\nh : a < b\n⊢ ∃ c, a + c = b"


def test_induction_names_like_lean() -> None:
    s = Session()
    s.start("∀ (n : Nat), n + 0 = n")
    s.tac("intro n")
    s.tac("induction n")
    assert s.goals_text() == (
        "case zero\n⊢ 0 + 0 = 0\n\ncase succ\nn✝ : Nat\na✝ : n✝ + 0 = n✝\n⊢ n✝ + 1 + 0 = n✝ + 1"
    )
    goals = s.last["goals"]
    assert [g.get("userName") for g in goals] == ["zero", "succ"]
    assert goals[1]["vars"][0]["isInaccessible"] is True


def test_induction_with_names_and_reverted_hypotheses() -> None:
    s = Session()
    s.start("∀ (n m : Nat), m < n → m < n + 1")
    s.tac("intro n m h")
    s.tac("induction n with\n| zero => skip\n| succ k ih => skip")
    assert s.goals_text() == (
        "case zero\nm : Nat\nh : m < 0\n⊢ m < 0 + 1\n\n"
        "case succ\nm k : Nat\nih : m < k → m < k + 1\nh : m < k + 1\n⊢ m < k + 1 + 1"
    )


def test_cases_names_are_inaccessible_and_tagged() -> None:
    s = Session()
    s.start("∀ (p q : Prop), p ∨ q → q ∨ p")
    s.tac("intro p q h")
    s.tac("cases h")
    assert (
        s.goals_text()
        == "case inl\np q : Prop\nh✝ : p\n⊢ q ∨ p\n\ncase inr\np q : Prop\nh✝ : q\n⊢ q ∨ p"
    )


def test_shadowed_hypothesis_prints_with_dagger() -> None:
    s = Session()
    s.start("∀ (n : Nat), ∀ (n : Nat), n = n")
    s.tac("intro n n")
    assert s.goals_text() == "n✝ n : Nat\n⊢ n = n"


def test_constructor_tags_and_copy_from_lemma() -> None:
    s = Session()
    sid = s.call("goal.start", copyFrom="Nat.add_comm")["stateId"]
    s.sid = sid
    assert s.goals_text() == "⊢ ∀ (n m : Nat), n + m = m + n"
    s.start("∀ (p q : Prop), p ∧ q")
    s.tac("intro p q; constructor")
    assert [g["userName"] for g in s.last["goals"]] == ["left", "right"]
