"""Mathlib's ``cases' e with x y`` (Mathlib/Tactic/Cases.lean, ``elab (name := cases')``): the
names go to the constructors' fields in order, a hypothesis target is cleared."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict

CASES = [
    ("or", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "cases' h with hp hq\n· exact Or.inr hp\n· exact Or.inl hq", True),
    ("or-swapped-false", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "cases' h with hp hq\n· exact Or.inl hp\n· exact Or.inr hq", False),
    ("exists", "theorem t (n : ℕ) (h : ∃ k, n = 2 * k) : n % 2 = 0", "cases' h with k hk\nomega", True),
    ("exists-false", "theorem t (n : ℕ) (h : ∃ k, n = 2 * k + 1) : n % 2 = 0", "cases' h with k hk\nomega", False),
    ("and", "theorem t (a b : ℕ) (h : a = 1 ∧ b = 2) : a + b = 3", "cases' h with ha hb\nomega", True),
    # the target hypothesis is cleared, as by cases
    ("and-cleared", "theorem t (a b : ℕ) (h : a = 1 ∧ b = 2) : a + b = 3", "cases' h with ha hb\nexact h.1", False),
    ("nat", "theorem t (n : ℕ) : n * n ≥ n", "cases' n with m\n· simp\n· nlinarith", True),
    ("term-target", "theorem t (x : ℤ) (h : x = 1 ∨ x = 2) : x ≤ 2",
     "cases' id h with h1 h2 <;> omega", True),
    ("too-many-names", "theorem t (a b : ℕ) (h : a = 1 ∧ b = 2) : a + b = 3", "cases' h with ha hb hc\nomega", False),
    # Lean splits `Nat.le`'s constructors here; the embedded cases' refuses (weaker, never stronger)
    ("nat-le-refused", "theorem t (a : ℕ) (h : a < 2) : a < 3", "cases' h with x\nomega", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_cases_prime(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)
