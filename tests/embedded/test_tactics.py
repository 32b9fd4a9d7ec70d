"""Each tactic family closes what it should, and fails the way Lean fails otherwise."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.lean.protocol import GoalStart, GoalTactic, GoalTacticResult, ReplErrorAnswer
from tests.embedded.util import Session

PROOFS: list[tuple[str, list[str]]] = [
    ("True", ["trivial"]),
    (
        "∀ (p q : Prop), p ∧ q → q ∧ p",
        ["intro p q h", "obtain ⟨hp, hq⟩ := h", "constructor", "exact hq", "exact hp"],
    ),
    ("∀ (p q : Prop), p ∧ q → q ∧ p", ["intro p q h", "exact ⟨h.2, h.1⟩"]),
    ("∀ (p q : Prop), p ∧ q → q ∧ p", ["rintro p q ⟨hp, hq⟩", "exact ⟨hq, hp⟩"]),
    (
        "∀ (p q : Prop), p ∨ q → q ∨ p",
        [
            "intro p q h",
            "rcases h with hp | hq",
            "right",
            "exact hp",
            "left",
            "exact hq",
        ],
    ),
    (
        "∀ (p q : Prop), p ∨ q → q ∨ p",
        [
            "intro p q h",
            "cases h with\n| inl hp => right; exact hp\n| inr hq => left; exact hq",
        ],
    ),
    (
        "∀ (p q : Prop), (p ↔ q) → (q ↔ p)",
        ["intro p q h", "constructor <;> intro x", "exact h.2 x", "exact h.1 x"],
    ),
    ("∀ (p q : Prop), p → (p → q) → q", ["intro p q hp hpq", "apply hpq", "exact hp"]),
    ("∀ (p : Prop), p → ¬¬p", ["intro p hp hnp", "contradiction"]),
    ("∀ (p q : Prop), p → ¬p → q", ["intro p q hp hnp", "exfalso", "exact hnp hp"]),
    ("∀ (p q : Prop), p → ¬p → q", ["intro p q hp hnp", "exact absurd hp hnp"]),
    ("∀ (p : Prop), p → p", ["intros", "assumption"]),
    ("∀ (n : Nat), n + 0 = n", ["intro n", "rfl"]),
    ("∀ (n : Nat), 0 + n = n", ["intro n", "simp"]),
    (
        "∀ (n : Nat), 0 + n = n",
        ["intro n", "induction n with\n| zero => rfl\n| succ k ih => omega"],
    ),
    ("∀ (n : Nat), n + 1 ≠ 0", ["intro n", "omega"]),
    ("∀ (n m : Nat), n + m = m + n", ["intro n m", "rw [Nat.add_comm]"]),
    ("∀ (n m : Nat), n + m = m + n", ["intro n m", "exact Nat.add_comm n m"]),
    (
        "∀ (a b c : Nat), a = b → b = c → a = c",
        ["intro a b c h₁ h₂", "rw [h₁]", "exact h₂"],
    ),
    (
        "∀ (a b c : Nat), a = b → b = c → a = c",
        ["intro a b c h₁ h₂", "rw [h₂] at h₁", "exact h₁"],
    ),
    ("∀ (a b : Int), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", ["intro a b", "ring"]),
    ("∀ (x y : Nat), x < y → x + 1 ≤ y", ["intro x y h", "linarith"]),
    (
        "∀ (x : Int), x ^ 2 - 2 * x + 1 ≥ 0",
        ["intro x", "nlinarith [sq_nonneg (x - 1)]"],
    ),
    ("∀ (x : Int), x ^ 2 + 1 > 0", ["intro x", "positivity"]),
    ("∃ (n : Nat), n * n = 49", ["use 7"]),
    ("∀ (n : Nat), n ∣ n", ["intro n", "use 1", "ring"]),
    ("∀ (n : Nat), ∃ m, m > n", ["intro n", "exact ⟨n + 1, by omega⟩"]),
    (
        "∀ (x : Nat), (∃ y, x = 2 * y) → x % 2 = 0",
        ["intro x h", "obtain ⟨y, hy⟩ := h", "omega"],
    ),
    (
        "∀ (n : Nat), n < 5 → n < 10",
        ["intro n h", "have h2 : n < 10 := by omega", "exact h2"],
    ),
    ("∀ (x : Nat), x = 3 → x * 2 = 6", ["intro x hx", "simp [hx]"]),
    ("∀ (x : Nat), x = 3 → x * 2 = 6", ["intro x hx", "subst hx", "norm_num"]),
    ("∀ (x : Nat), x + 2 = 5 → x = 3", ["intro x h", "omega"]),
    ("∀ (f : Nat), f > 0 → f ≥ 1", ["intro f h", "specialize h", "omega"]),
    (
        "∀ (h : ∀ (n : Nat), n > 0 → n ≥ 1), 3 ≥ 1",
        ["intro h", "specialize h 3 (by norm_num)", "exact h"],
    ),
    ("∀ (a b : ℕ) (h₀ : a < b), a + 1 ≤ b", ["intro a b h₀", "omega"]),
    ("2 + 2 = 4", ["decide"]),
    (
        "(7 : ℤ) / -2 = -3 ∧ (-7 : ℤ) % 2 = 1 ∧ (5 : ℕ) - 7 = 0 ∧ (5 : ℕ) / 0 = 0 ∧ (5 : ℕ) % 0 = 5",
        ["decide"],
    ),
    ("∀ (p q : Prop), p ∧ q → q", ["intro p q h", "all_goals exact h.2"]),
    (
        "∀ (n : Nat), n = n ∧ n ≤ n",
        ["intro n", "constructor", "· rfl", "· exact Nat.le_refl n"],
    ),
    (
        "∀ (a b : Nat), a ≤ b → b ≤ a → a = b",
        ["intro a b h1 h2", "apply Nat.le_antisymm", "exact h1", "exact h2"],
    ),
    (
        "∀ (a b : Nat), a ≤ b → b ≤ a → a = b",
        ["intro a b h1 h2", "first | linarith | omega"],
    ),
]


@pytest.fixture(scope="module")
def checker() -> Checker:
    """One in-process checker for the module."""
    return Checker()


def test_goal_start_refuses_binder_form_as_pantograph_does(checker: Checker) -> None:
    """Issue 26: goal.start reads ``expr`` with parseElabType; ``(a b : ℕ) (h : a < b) : P`` is no term there."""
    answer = checker.goal_start(GoalStart(expr="(a b : ℕ) (h₀ : a < b) : a + 1 ≤ b"))
    assert isinstance(answer, ReplErrorAnswer) and answer.error == "parsing", answer
    assert not checker.check_proof("(a b : ℕ) (h₀ : a < b) : a + 1 ≤ b", ["intro a b h₀", "omega"]).ok
    # a term that merely starts with a bracket is still one
    assert checker.check_proof("(2 : ℕ) + 2 = 4", ["decide"]).ok


@pytest.mark.parametrize(
    ("statement", "proof"), PROOFS, ids=[f"{i}" for i in range(len(PROOFS))]
)
def test_reference_proof_is_accepted(
    checker: Checker, statement: str, proof: list[str]
) -> None:
    result = checker.check_proof(statement, proof)
    assert result.ok, result


@pytest.mark.parametrize(
    ("statement", "tactic", "message"),
    [
        (
            "∀ (x : Nat), x - 1 + 1 = x",
            "intro x; omega",
            "omega could not prove the goal",
        ),
        (
            "∀ (x : Int), x * x ≥ 0",
            "intro x; linarith",
            "linarith failed to find a contradiction",
        ),
        (
            "2 + 2 = 5",
            "decide",
            "tactic 'decide' proved that the proposition\n  2 + 2 = 5\nis false",
        ),
        ("∀ (n : Nat), n = n", "exact foo", "unknown identifier 'foo'"),
        (
            "∀ (a b : Nat), a = b → a + 1 = b + 1",
            "intro a b h; rw [Nat.mul_comm]",
            "did not find instance of the pattern",
        ),
        # RingNF.lean: ring is `first | ring1 | try_this ring_nf`; it fails when ring_nf changes nothing
        ("∀ (n : Nat), n = 1 + n", "intro n; ring", "ring_nf failed"),
        ("∀ (n m : Nat), n = m", "intro n m; simp", "simp made no progress"),
        ("True ∧ 1 = 2", "intro h", "insufficient number of binders"),
        ("∀ (p : Prop), p", "intro p; assumption", "tactic 'assumption' failed"),
        ("∀ (x : Int), x > 0", "intro x; positivity", "failed to prove positivity"),
    ],
)
def test_failing_tactic_answers_with_lean_like_error(
    statement: str, tactic: str, message: str
) -> None:
    s = Session()
    s.start(statement)
    ans = s.tac(tactic)
    assert "nextStateId" not in ans and "goals" not in ans
    assert message in s.error_text()


def test_sorry_closes_the_goal_and_marks_the_root() -> None:
    s = Session()
    s.start("∀ (n : Nat), n = n + 1")
    ans = s.tac("intro n; sorry")
    assert ans["goals"] == [] and ans["hasSorry"] is True
    flags = s.call("goal.print", stateId=s.sid)
    assert flags["rootHasSorry"] is True and flags["rootHasMVar"] is False


def test_unknown_tactic_is_a_parse_error() -> None:
    s = Session()
    s.start("True")
    ans = s.tac("frobnicate h")
    assert set(ans) == {"parseError", "hasSorry", "hasUnsafe"} and "unknown tactic" in ans["parseError"]


def test_automatic_mode_keeps_other_goals_and_goal_id_picks_one() -> None:
    s = Session()
    s.start("∀ (p q : Prop), p → q → p ∧ q")
    s.tac("intro p q hp hq; constructor")
    ans = s.tac("exact hq", goal_id=1)
    assert [g["target"]["pp"] for g in ans["goals"]] == ["p"]
    ans = s.tac("exact hp")
    assert ans["goals"] == []


def test_dormant_goals_keep_root_mvar_when_automatic_mode_is_off() -> None:
    s = Session()
    s.call("options.set", automaticMode=False)
    s.start("∀ (p q : Prop), p → q → p ∧ q")
    s.tac("intro p q hp hq; constructor")
    ans = s.tac("exact hp")
    assert ans["goals"] == []
    flags = s.call("goal.print", stateId=s.sid)
    assert flags["rootHasMVar"] is True and flags["rootHasSorry"] is False


def test_states_are_immutable_and_can_be_branched() -> None:
    s = Session()
    s.start("∀ (p : Prop), p → p")
    first = s.tac("intro p hp")["nextStateId"]
    a = s.c.goal_tactic(GoalTactic(state_id=first, tactic="exact hp"))
    b = s.c.goal_tactic(GoalTactic(state_id=first, tactic="assumption"))
    assert isinstance(a, GoalTacticResult) and isinstance(b, GoalTacticResult)
    assert a.goals == [] and b.goals == [] and a.next_state_id != b.next_state_id


@pytest.mark.parametrize("tactic", ["simp at *", "simp_all", "norm_num at *", "rw [Nat.add_zero] at *"])
def test_locations_star_skip_a_variable_that_shadows_a_hypothesis(tactic: str) -> None:
    s = Session()
    s.start("∀ (x : Nat) (hx : x + 0 = 1), ∀ hx : Nat, hx + 0 = hx")
    s.tac("intro x hx hx")
    ans = s.tac(tactic)
    assert ans.get("goals") == [], s.error_text()
