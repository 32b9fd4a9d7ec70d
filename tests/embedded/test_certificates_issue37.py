"""Issue 37, the decision and certificate side: Lean-checked steps the embedded checker used to
refuse because its decision procedure read facts differently from Mathlib's or found no kernel
certificate, each beside a false or Lean-refused variant that must stay refused. Whole files go
through ``frontend.process``; every accepted step is re-checked by the independent kernel."""

from __future__ import annotations

import pytest

from tests.embedded.test_fidelity_issue37 import _verdict

# (id, header, script, Lean accepts)
CASES = [
    # Mathlib/Tactic/Linarith/Frontend.lean LinarithConfig.splitHypotheses := true:
    # Preprocessing.lean splitConjunctions runs before filterComparisons
    ("linarith-splits-conjunctions", "theorem t (a b : ℤ) (h : 1 ≤ a ∧ a ≤ b) : 1 ≤ b", "linarith", True),
    ("linarith-splits-conjunctions-false", "theorem t (a b : ℤ) (h : 1 ≤ a ∧ a ≤ b) : 2 ≤ b", "linarith", False),
    # Mathlib/Tactic/Linarith/Parsing.lean linearFormOfExpr: atoms up to ring normalisation
    ("linarith-ring-normal-monomials",
     "theorem t (x y z : ℤ) : z ^ 2 - 2 * z * x + (y ^ 2 + (z ^ 2 + x ^ 2)) = x ^ 2 + y ^ 2 + 2 * z ^ 2 - 2 * x * z",
     "linarith", True),
    ("linarith-ring-normal-monomials-false",
     "theorem t (x y z : ℤ) : z ^ 2 - 2 * z * x + (y ^ 2 + (z ^ 2 + x ^ 2)) = x ^ 2 + y ^ 2 + 2 * z ^ 2 - 2 * x * y",
     "linarith", False),
    # nlinarith sees h₀.1 (amc12_2001_p2's Lean-checked proof); without a ≥ 1 it is false (a = 0, b = 10)
    ("nlinarith-conjunct", "theorem t (a b : ℕ) (h₀ : 1 ≤ a ∧ a ≤ 9) (h : 10 * a = a * (b + 1)) : b + 1 ≤ 10", "nlinarith", True),
    ("nlinarith-conjunct-false", "theorem t (a b : ℕ) (h₀ : 0 ≤ a ∧ a ≤ 9) (h : 10 * a = a * (b + 1)) : b + 1 ≤ 10", "nlinarith", False),
    # a simp rule with a tactic block, a hypothesis cleared by simp_all before the rule is used
    # (mathd_numbertheory_202's Lean-checked proof)
    ("simp_all-show-by-rule", "theorem t (h : 19 % 10 = 9) : 99 % 10 = 9",
     "simp_all [Nat.mod_eq_of_lt, show 19 % 10 = 9 by norm_num, show 99 % 10 = 9 by norm_num]", True),
    ("simp_all-show-by-rule-false", "theorem t (h : 19 % 10 = 9) : 99 % 10 = 8",
     "simp_all [show 19 % 10 = 9 by norm_num]", False),
    # nlinarith on an equality goal: two runs, each negated goal multiplied with the extra terms
    # (Frontend.lean eq_of_not_lt_of_not_gt; mathd_numbertheory_326's Lean-checked proof)
    ("nlinarith-equality-goal", "theorem t (n : ℤ) (h : n ^ 3 - n = 720) : n = 9",
     "nlinarith [sq_nonneg (n - 9), sq_nonneg (n + 9)]", True),
    ("nlinarith-equality-goal-false", "theorem t (n : ℤ) (h : n ^ 3 - n = 720) : n = 8",
     "nlinarith [sq_nonneg (n - 9), sq_nonneg (n + 9)]", False),
    ("nlinarith-false-inequality", "theorem t (a b : ℤ) : 2 * a * b ≤ a ^ 2 + b ^ 2 - 1",
     "nlinarith [sq_nonneg (a - b), sq_nonneg (a + b)]", False),
    # simp_all substitutes `a = x + 1` inside a product: the kernel's certificate multiplies the
    # equation by the cofactor (kernel step mul_eq; aime_1991_p1's Lean-checked proof)
    ("simp_all-substitutes-in-products",
     "theorem t (x y a b : ℕ) (ha : a = x + 1) (hb : b = y + 1) (hab : a * b = 72) : (x + 1) * (y + 1) = 72",
     "simp_all", True),
    ("simp_all-substitutes-in-products-false",
     "theorem t (x y a b : ℕ) (ha : a = x + 1) (hb : b = y + 1) (hab : a * b = 72) : (x + 1) * (y + 1) = 71",
     "simp_all", False),
    # remainders of polynomials (certify_powmod: x = 7 * (x / 7) + x % 7 substituted by mul_eq)
    ("cube-mod-pinned", "theorem t (x : ℕ) (h : x % 7 = 3) : x ^ 3 % 7 = 6", "simp [Nat.pow_mod, h]", True),
    ("cube-mod-pinned-false", "theorem t (x : ℕ) (h : x % 7 = 3) : x ^ 3 % 7 = 5", "simp [Nat.pow_mod, h]", False),
    ("pow_mod-cube-instance", "theorem t (x : ℕ) : x ^ 3 % 9 = (x % 9) ^ 3 % 9", "rw [Nat.pow_mod]", True),
    ("int-product-mod-pinned", "theorem t (a b : ℤ) (h₁ : a % 7 = 1) (h₂ : b % 7 = 1) : ¬a * b * (a + b) % 7 = 0",
     "simp [h₁, h₂, Int.mul_emod, Int.add_emod]", True),
    ("int-product-mod-pinned-false", "theorem t (a b : ℤ) (h₁ : a % 7 = 1) (h₂ : b % 7 = 1) : ¬a * b * (a + b) % 7 = 2",
     "simp [h₁, h₂, Int.mul_emod, Int.add_emod]", False),
    # a power with a closed base is one kernel atom whatever the base's form (numbertheory_2dvd4expn)
    ("closed-base-power", "theorem t (n : ℕ) (h : n ≠ 0) : 4 ^ (n + 1) = (2 ^ 2) ^ (n + 1)", "simp_all [pow_succ]", True),
    ("closed-base-power-false", "theorem t (n : ℕ) (h : n ≠ 0) : 4 ^ (n + 1) = (2 ^ 3) ^ (n + 1)", "simp_all [pow_succ]", False),
    # decide on a bounded ∀ over ℕ (Nat.decidableBallLT / decidableBallLe): value by value
    ("decide-bounded-forall", "theorem t : ∀ n < 5, n ^ 2 % 5 ≠ 3", "decide", True),
    ("decide-bounded-forall-nested", "theorem t : ∀ n ≤ 3, ∀ m < 3, n * m ≤ 6", "decide", True),
    ("decide-bounded-forall-false", "theorem t : ∀ n < 5, n ^ 2 % 5 ≠ 4", "decide", False),
    ("decide-unbounded-forall", "theorem t : ∀ n : ℕ, n + 0 = n", "decide", False),
    # omega on a false ℕ subtraction fact stays refused
    ("omega-nat-sub-false", "theorem t (a b : ℕ) (h : a < b) : a - b + b = a", "omega", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decision_and_certificate_cases(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got
