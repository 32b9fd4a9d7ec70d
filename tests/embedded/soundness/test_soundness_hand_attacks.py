"""Hand-written attacks: false statements (false in Lean 4, checked by hand and, where it
can tell, by the campaign's oracle), each with scripts aimed at one cause of unsoundness,
plus every generic script of the campaign. None may be accepted."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.soundness.campaign import GENERIC_SCRIPTS, falsified
from burnqed.lean.protocol import OptionsSet

# (false statement, proof scripts aimed at it)
ATTACKS: list[tuple[str, list[list[str]]]] = [
    # 1. metavariables leaking out of a nested `by`
    ("(3 : Nat) = 5", [["exact Eq.symm (by rfl)"], ["exact Eq.trans (by rfl) (by rfl)"], ["apply Eq.symm", "exact (by rfl)"], ["exact Eq.symm (Eq.symm (by rfl))"]]),
    ("(2 : Int) = 7", [["exact Eq.symm (by rfl)"], ["exact Eq.trans (by rfl) (by rfl)"], ["exact (by rfl)"]]),
    ("∀ (n : Nat), n = n + 1", [["intro n", "exact Eq.symm (by rfl)"], ["intro n", "exact Eq.trans (by rfl) (by rfl)"], ["intro n", "apply Eq.symm", "exact (by rfl)"]]),
    ("False", [["exact absurd (by trivial) (by simp)"], ["exact (by rfl : (1 : Nat) = 2) ▸ trivial"], ["apply False.elim", "exact (by rfl)"]]),
    # 2. bound variables captured by unification
    ("(∃ a : Nat, ∀ b : Nat, a = 0 ∨ b = 5) → ∃ b : Nat, ∀ c : Nat, c = 0 ∨ c = 5", [["intro h", "exact h"], ["intro h", "assumption"], ["intro h", "obtain ⟨a, ha⟩ := h", "exact ⟨a, ha⟩"], ["intro h", "simpa using h"]]),
    ("(∀ x : Nat, ∃ y : Nat, y > x) → ∃ y : Nat, ∀ x : Nat, y > x", [["intro h", "exact h"], ["intro h", "assumption"], ["intro h", "simp_all"]]),
    ("(∀ a : Nat, ∀ b : Nat, a ≤ b ∨ b ≤ a) → ∀ a : Nat, a ≤ 0", [["intro h a", "have := h a 0", "omega"], ["intro h", "exact h 0"], ["intro h a", "exact h a a"]]),
    ("(∀ x : Nat, ∀ y : Nat, x + y = y + x) → ∀ x : Nat, x + 1 = 1", [["intro h x", "exact h x 1"], ["intro h", "exact h 1"], ["intro h x", "rw [h]"]]),
    # 3. simp rewriting under binders with capture
    ("(∀ n : Nat, (n = 7 ↔ ∃ y : Nat, y = n ∧ y = 7)) → ∀ y : Nat, y = 7", [["intro h", "simp only [h]", "use 7"], ["intro h", "simp [h]"], ["intro h y", "rw [h]", "use 7"], ["intro h", "simp_all"]]),
    ("(∀ n : Nat, n + 0 = n) → ∀ m : Nat, m = 3", [["intro h", "simp only [h]"], ["intro h m", "simp [h]"], ["intro h", "simp_all"]]),
    ("(∀ x : Nat, (x = 1 ↔ ∃ z : Nat, z = x ∧ z = 1)) → ∀ z : Nat, z = 1", [["intro h", "simp only [h]", "intro z", "use z"], ["intro h", "simp [h]"]]),
    # 4. binders named like constants
    ("∀ (True : Prop), True", [["intro h", "omega"], ["intro h", "trivial"], ["intro h", "exact trivial"], ["intro h", "simp"], ["intro h", "decide"], ["intro h", "constructor"]]),
    ("∀ (False : Prop), ¬False", [["intro h", "simp"], ["intro h", "intro x", "exact x"], ["intro h x", "contradiction"], ["intro h", "exact id"]]),
    ("∀ (Nat : Prop), Nat", [["intro h", "trivial"], ["intro h", "simp"], ["intro h", "omega"]]),
    ("∀ (id : Prop), id", [["intro h", "trivial"], ["intro h", "exact id"], ["intro h", "simp"]]),
    ("∀ (True False : Prop), True → False", [["intro a b h", "exact h"], ["intro a b", "simp"], ["intro a b h", "contradiction"]]),
    ("∀ (Int : Prop), Int ∨ ¬Int → Int", [["intro h hh", "trivial"], ["intro h hh", "simp"], ["intro h hh", "omega"]]),
    # 5. untyped binders whose type an ascription fixes
    ("∀ x, (x : ℤ) ≥ 0", [["intro x", "omega"], ["intro x", "positivity"], ["intro x", "simp"], ["intro x", "exact Int.le_refl _"]]),
    ("∀ x y, x = (y : ℤ) - 1 → x ≥ 0", [["intro x y h", "omega"], ["intro x y h", "positivity"], ["intros", "simp"]]),
    ("∀ x, (x : ℤ) + 1 > 0", [["intro x", "omega"], ["intro x", "positivity"], ["intro x", "simp"]]),
    ("∃ x, x < 0", [["use -1"], ["exact ⟨-1, by omega⟩"], ["use 0"], ["simp"]]),
    ("∀ x, x - 1 < x", [["intro x", "omega"], ["intro x", "simp"]]),
    # Lean's arithmetic
    ("(7 : Nat) - 10 = 0 - 3 + 1", [["norm_num"], ["decide"], ["rfl"], ["simp"], ["omega"]]),
    ("(5 : Nat) - 7 + 7 = 5", [["norm_num"], ["decide"], ["omega"], ["simp"]]),
    ("(7 : Int) / 0 = 7", [["norm_num"], ["decide"], ["simp"], ["rfl"]]),
    ("(7 : Nat) % 0 = 0", [["norm_num"], ["decide"], ["simp"], ["rfl"]]),
    ("(-7 : Int) / 2 = -3", [["norm_num"], ["decide"], ["rfl"], ["omega"]]),
    ("(-7 : Int) % 2 = -1", [["norm_num"], ["decide"], ["rfl"], ["omega"]]),
    ("(7 : Int) / -2 = -4", [["norm_num"], ["decide"], ["rfl"], ["omega"]]),
    ("(0 : Nat) ^ 0 = 0", [["norm_num"], ["decide"], ["rfl"], ["simp"]]),
    ("(2 : Nat) ^ 100 = 2 ^ 100 + 1", [["norm_num"], ["decide"], ["omega"], ["simp"]]),
    ("(100000000000000000000 : Nat) + 1 = 100000000000000000000", [["norm_num"], ["decide"], ["omega"], ["rfl"]]),
    ("(10 : Nat) / 3 * 3 = 10", [["norm_num"], ["decide"], ["omega"], ["rfl"]]),
    ("∀ (n : Nat), n - 1 + 1 = n", [["intro n", "omega"], ["intro n", "simp"], ["intro n", "ring"], ["intro n", "rw [Nat.sub_add_cancel]"]]),
    ("∀ (a b : Nat), a - b + b = a", [["intro a b", "omega"], ["intro a b", "simp"], ["intro a b", "ring"]]),
    ("∀ (a b : Int), a / b * b = a", [["intro a b", "omega"], ["intro a b", "simp"], ["intro a b", "ring"]]),
    ("∀ (x : Int), x % 3 < 2", [["intro x", "omega"], ["intro x", "simp"], ["intro x", "positivity"]]),
    ("∀ (n : Nat), n / 2 * 2 = n", [["intro n", "omega"], ["intro n", "simp"], ["intro n", "ring"]]),
    ("∀ (x : Int), -x ^ 2 ≥ 0", [["intro x", "positivity"], ["intro x", "nlinarith"], ["intro x", "simp"]]),
    ("-2 ^ 2 = (4 : Int)", [["norm_num"], ["decide"], ["rfl"], ["simp"]]),
    ("∀ (x : Int), (-x) ^ 2 < 0", [["intro x", "nlinarith"], ["intro x", "positivity"], ["intro x", "simp"]]),
    ("(10 : Nat) - 3 - 2 = 10 - (3 - 2)", [["norm_num"], ["decide"], ["rfl"], ["omega"]]),
    ("(2 : Nat) ^ 3 ^ 2 = 64", [["norm_num"], ["decide"], ["rfl"], ["simp"]]),
    ("(12 : Nat) / 2 / 3 = 18", [["norm_num"], ["decide"], ["rfl"], ["omega"]]),
    # comments and notations
    ("∀ (n : Nat), n = 0 -- ∨ n > 0", [["intro n", "omega"], ["omega"], ["intro n", "simp"]]),
    ("∀ (n : Nat), /- n > 0 → -/ n + 1 = n", [["intro n", "omega"], ["intro n", "simp"]]),
    ("∀ (p q : Prop), (p ↔ q) → p", [["intro p q h", "exact h.mp"], ["intro p q h", "exact h.2 (by assumption)"], ["intro p q h", "simp_all"]]),
    ("∀ (p q r : Prop), (p → q) → (q → r) → r", [["intro p q r hpq hqr", "apply hqr", "apply hpq"], ["intros", "simp_all"]]),
    ("∀ (p q : Prop), p ∨ q → p", [["intro p q h", "cases h", "assumption", "assumption"], ["intro p q h", "rcases h with h | h <;> assumption"], ["intro p q h", "exact h.elim id id"]]),
    ("∀ (p q : Prop), (p → q) → (q → p)", [["intro p q h hq", "exact h hq"], ["intros", "assumption"], ["intros", "simp_all"]]),
    ("∀ (p : Prop), ¬¬p → ¬p", [["intro p h hp", "exact h hp"], ["intro p h", "simp_all"], ["intro p h hp", "contradiction"]]),
    ("∀ (p q : Prop), ¬(p ∧ q) → ¬p", [["intro p q h hp", "exact h ⟨hp, hp⟩"], ["intros", "simp_all"], ["intro p q h hp", "apply h", "constructor", "exact hp", "exact hp"]]),
    ("∀ (p q : Prop), p → q", [["intro p q hp", "exact hp"], ["intros", "assumption"], ["intro p q hp", "simp"]]),
    # divisibility
    ("(3 : Nat) ∣ 10", [["decide"], ["norm_num"], ["use 3"], ["exact ⟨3, rfl⟩"], ["omega"]]),
    ("∀ (n : Nat), 2 ∣ n", [["intro n", "omega"], ["intro n", "use n"], ["intro n", "exact ⟨n, by ring⟩"]]),
    ("(0 : Nat) ∣ 5", [["decide"], ["norm_num"], ["use 0"], ["exact ⟨5, rfl⟩"], ["simp"]]),
    ("∀ (a b : Nat), a ∣ b → b ∣ a", [["intro a b h", "exact h"], ["intro a b ⟨c, hc⟩", "use c", "omega"]]),
    ("∀ (n : Nat), 4 ∣ n → 8 ∣ n", [["intro n h", "omega"], ["intro n ⟨c, hc⟩", "use c", "omega"]]),
    # linear and polynomial arithmetic
    ("∀ (x y : Nat), x < y → x + 2 ≤ y", [["intro x y h", "omega"], ["intro x y h", "linarith"], ["intros", "simp_all"]]),
    ("∀ (x : Int), 2 * x ≠ 4", [["intro x", "omega"], ["intro x h", "omega"], ["intro x", "simp"]]),
    ("∀ (x y : Int), x + y = 10 → x = 5", [["intro x y h", "omega"], ["intro x y h", "linarith"]]),
    ("∀ (x : Nat), x * x ≥ 2 * x", [["intro x", "nlinarith"], ["intro x", "positivity"], ["intro x", "omega"]]),
    ("∀ (x y : Int), x < y → x * x < y * y", [["intro x y h", "nlinarith"], ["intro x y h", "positivity"]]),
    ("∀ (x : Int), x ^ 3 ≥ 0", [["intro x", "positivity"], ["intro x", "nlinarith [sq_nonneg x]"]]),
    ("∀ (x : Int), x ^ 2 > 0", [["intro x", "positivity"], ["intro x", "nlinarith [sq_nonneg x]"]]),
    ("∀ (x y : Int), 0 < x → 0 < x * y", [["intro x y h", "positivity"], ["intro x y h", "nlinarith"]]),
    ("∀ (a b c : Nat), a < b → b < c → a + 2 < c", [["intro a b c h1 h2", "omega"], ["intro a b c h1 h2", "linarith"]]),
    ("∀ (n : Nat), n % 2 = 0 ∨ n % 2 = 2", [["intro n", "omega"], ["intro n", "simp"]]),
    ("∀ (n : Nat), n % 4 = 3 → n % 2 = 0", [["intro n h", "omega"], ["intros", "simp_all"]]),
    ("∀ (x : Int), 3 * x + 6 = 0 → x = 2", [["intro x h", "omega"], ["intro x h", "linarith"]]),
    ("∀ (x : Nat), 2 * x + 1 = 2 * (x + 1)", [["intro x", "ring"], ["intro x", "omega"], ["intro x", "simp"]]),
    ("∀ (a b : Int), (a + b) ^ 2 = a ^ 2 + b ^ 2", [["intro a b", "ring"], ["intro a b", "simp"], ["intro a b", "nlinarith"]]),
    ("∀ (a b : Int), (a - b) * (a - b) = a * a - b * b", [["intro a b", "ring"], ["intro a b", "simp"]]),
    ("∀ (x : Nat), x ≤ 5 → x ≤ 4", [["intro x h", "omega"], ["intro x h", "linarith"]]),
    ("∀ (x : Int), x ≤ 5 → x < 5", [["intro x h", "omega"], ["intro x h", "linarith"]]),
    ("∀ (x y : Nat), x ≠ y → x < y", [["intro x y h", "omega"], ["intro x y h", "simp_all"]]),
    ("∀ (x : Nat), x + x = x", [["intro x", "omega"], ["intro x", "ring"], ["intro x", "simp"]]),
    # existentials
    ("∃ (n : Nat), n + 1 = 0", [["use 0"], ["exact ⟨0, rfl⟩"], ["use -1"], ["simp"]]),
    ("∃ (n : Nat), n * n = 2", [["use 1"], ["use 2"], ["exact ⟨1, by omega⟩"]]),
    ("∃ (x : Int), 2 * x = 7", [["use 3"], ["use 4"], ["exact ⟨3, by omega⟩"]]),
    ("∃ (x y : Nat), x + y = 3 ∧ x * y = 3", [["use 1, 2"], ["use 1", "use 2"], ["exact ⟨1, 2, by omega, by omega⟩"]]),
    ("∃ (n : Nat), ∀ (m : Nat), m ≤ n", [["use 0", "intro m", "omega"], ["use 100", "intro m", "omega"]]),
    ("∀ (n : Nat), ∃ (m : Nat), m < n", [["intro n", "use 0", "omega"], ["intro n", "use n - 1", "omega"]]),
    # shadowed and inaccessible names
    ("∀ (x : Nat), x = 1 → ∀ (x : Nat), x = 1", [["intro x h x", "exact h"], ["intro x h y", "exact h"], ["intro x h", "intro x", "assumption"], ["intros", "assumption"]]),
    ("∀ (h : Prop), h → ∀ (h : Prop), h", [["intro p hp p2", "exact hp"], ["intro h h1 h", "exact h1"], ["intros", "assumption"]]),
    ("∀ (n : Nat), (n = 0 → False) → ∀ (n : Nat), n ≠ 0", [["intro n h n", "exact h"], ["intro n h m", "exact h"], ["intros", "assumption"]]),
    ("∀ (a : Nat), a > 0 → ∀ (b : Nat), b > 0", [["intro a h b", "exact h"], ["intro a h b", "omega"], ["intros", "assumption"]]),
    # induction, cases, subst
    ("∀ (n : Nat), n = 0", [["intro n", "induction n", "rfl", "omega"], ["intro n", "induction n with | zero => rfl | succ k ih => omega"], ["intro n", "cases n", "rfl", "omega"]]),
    ("∀ (n : Nat), n < 5", [["intro n", "induction n", "omega", "omega"], ["intro n", "induction n with | zero => omega | succ k ih => omega"]]),
    ("∀ (n m : Nat), n = m", [["intro n m", "induction n", "omega", "omega"], ["intro n m", "induction n generalizing m", "omega", "omega"]]),
    ("∀ (n : Nat), n = 3 → n + 1 = 3", [["intro n h", "induction n", "omega", "omega"], ["intro n h", "subst h", "rfl"], ["intro n h", "subst n", "rfl"]]),
    ("∀ (x y : Nat), x = y + 1 → y = x + 1", [["intro x y h", "subst h", "omega"], ["intro x y h", "subst x", "omega"], ["intro x y h", "rw [h]"]]),
    ("∀ (p q : Prop), p ∨ q → p ∧ q", [["intro p q h", "cases h", "constructor", "assumption", "assumption"], ["intro p q h", "rcases h with h | h <;> exact ⟨h, h⟩"]]),
    ("∀ (x : Nat), (∃ y, x = 2 * y) → x = 0", [["intro x h", "obtain ⟨y, hy⟩ := h", "omega"], ["rintro x ⟨y, hy⟩", "omega"], ["intro x h", "cases h", "omega"]]),
    ("∀ (n : Nat), n = 0 ∨ n = 1", [["intro n", "cases n", "left; rfl", "right; omega"], ["intro n", "rcases n with _ | k", "left; rfl", "right; omega"]]),
    # sorry and tactics the checker does not have
    ("False", [["sorry"], ["exact sorry"], ["have h : False := sorry", "exact h"], ["exact (by sorry)"], ["admit"]]),
    ("(1 : Nat) = 2", [["have h : (1 : Nat) = 2 := by sorry", "exact h"], ["exact?"], ["aesop"], ["tauto"], ["native_decide"], ["simp?"]]),
    # rewriting
    ("∀ (a b : Nat), a = b + 1 → b = a + 1", [["intro a b h", "rw [h]"], ["intro a b h", "rw [← h]"], ["intro a b h", "simp [h]"], ["intro a b h", "rw [h] at *", "omega"]]),
    ("∀ (a b : Nat), a + b = a → a = 0", [["intro a b h", "rw [Nat.add_comm] at h", "omega"], ["intro a b h", "simp at h", "omega"]]),
    ("∀ (x : Nat), x + 0 = x + 1", [["intro x", "rw [Nat.add_zero]"], ["intro x", "simp"], ["intro x", "rfl"]]),
    ("∀ (x y : Nat), x * y = x + y", [["intro x y", "ring"], ["intro x y", "rw [Nat.mul_comm]"], ["intro x y", "simp [Nat.mul_comm]"]]),
    ("∀ (x : Int), x - x = 1", [["intro x", "simp"], ["intro x", "ring"], ["intro x", "rw [Int.sub_self]"]]),
    # closed arithmetic and decision procedures
    ("(2 : Nat) + 2 = 5", [["norm_num"], ["decide"], ["rfl"], ["simp"], ["exact rfl"]]),
    ("(3 : Int) < 2", [["decide"], ["norm_num"], ["omega"]]),
    ("¬((2 : Nat) + 2 = 4)", [["decide"], ["simp"], ["intro h", "contradiction"]]),
    ("∀ (x : Nat), x ≥ 0 → x > 0", [["intro x h", "positivity"], ["intro x h", "omega"]]),
    ("∀ (x : Int), 0 ≤ x * x - 1", [["intro x", "positivity"], ["intro x", "nlinarith [sq_nonneg x]"]]),
    ("∀ (x y : Int), x * y ≥ 0", [["intro x y", "positivity"], ["intro x y", "nlinarith [sq_nonneg (x + y)]"]]),
    # coercions
    ("∀ (x : Nat), (x : Int) - 1 ≥ 0", [["intro x", "omega"], ["intro x", "positivity"], ["intro x", "simp"]]),
    ("∀ (x y : Nat), ((x - y : Nat) : Int) = (x : Int) - (y : Int)", [["intro x y", "omega"], ["intro x y", "push_cast"], ["intro x y", "simp"], ["intro x y", "ring"]]),
    ("∀ (x : Nat), ↑x = (x : Int) + 1", [["intro x", "simp"], ["intro x", "omega"]]),
    # issue 37's lemma names (elab/lemmas_field.py) used where their hypothesis fails, at the wrong
    # type, or for a false variant
    ("∀ (a b : Nat), a - b + b = a", [["intro a b", "exact Nat.sub_add_cancel (by omega)"], ["intro a b", "rw [Nat.sub_add_cancel]"], ["intro a b", "exact sub_add_cancel a b"], ["intro a b", "simp [Nat.sub_add_cancel]"]]),
    ("∀ (a b : Nat), a - b = 0 → a = b", [["intro a b h", "exact sub_eq_zero.mp h"], ["intro a b h", "rwa [sub_eq_zero] at h"], ["intro a b h", "simp [sub_eq_zero] at h", "exact h"]]),
    ("∀ (m n : Nat), ((n - m : Nat) : Int) = (n : Int) - (m : Int)", [["intro m n", "exact Nat.cast_sub (by omega)"], ["intro m n", "rw [Nat.cast_sub]"], ["intro m n", "simp [Nat.cast_sub]"], ["intro m n", "push_cast [Nat.cast_sub]", "ring"]]),
    ("∀ (a : Int), a % 5 < 4", [["intro a", "exact Int.emod_lt_of_pos a (by norm_num)"], ["intro a", "have := Int.emod_lt_of_pos a (by norm_num : (0 : Int) < 5)", "omega"]]),
    ("∀ (a : Int), 0 ≤ a % 0 - 1", [["intro a", "have := Int.emod_nonneg a (by norm_num : (0 : Int) ≠ 0)", "omega"], ["intro a", "simp [Int.emod_zero]"]]),
    ("∀ (n k : Nat), 0 % k = 1", [["intro n k", "exact Nat.zero_mod k"], ["intro n k", "simp [Nat.zero_mod]"], ["intro n k", "rw [Nat.zero_mod]"]]),
    ("∀ (x : Nat), 3 * x = 3 * 5 → x = 6", [["intro x h", "exact (mul_right_inj' (by norm_num : (3 : Nat) ≠ 0)).mp h"], ["intro x h", "rw [mul_right_inj' (by norm_num : (3 : Nat) ≠ 0)] at h", "omega"]]),
    ("∀ (x : Nat), 0 * x = 0 * 5 → x = 5", [["intro x h", "exact (mul_right_inj' (by norm_num)).mp h"], ["intro x h", "rw [mul_right_inj' (by simp)] at h", "exact h"]]),
    ("∀ (a b : Nat), a * b / a = b", [["intro a b", "rw [mul_div_cancel_left]"], ["intro a b", "simp [mul_div_cancel_left]"], ["intro a b", "exact mul_div_cancel_left b (by omega)"]]),
    ("∀ (n : Nat), 7 ∣ n → (5 : Int) ∣ (n : Int)", [["intro n h", "exact Int.coe_nat_dvd.mpr h"], ["intro n h", "rw [Int.coe_nat_dvd]", "exact h"]]),
    ("∀ (a b c : Nat), a ∣ b → a ∣ b + c", [["intro a b c h", "exact dvd_mul_of_dvd_left h c"], ["intro a b c h", "exact Dvd.dvd.mul_right h c"]]),
    ("∀ (a b : Int), ¬a ≤ b → a < b", [["intro a b h", "exact not_le.mp h"], ["intro a b h", "simpa [not_le] using h"]]),
    ("∀ (n : Nat), n + 1 - 1 = n + 1", [["intro n", "exact Nat.succ_sub_one n"], ["intro n", "simp [Nat.succ_eq_add_one]"], ["intro n", "rw [Nat.succ_eq_add_one]"]]),
]


def test_there_are_at_least_a_hundred_attacks_with_several_scripts() -> None:
    assert len(ATTACKS) >= 100
    assert all(len(scripts) + len(GENERIC_SCRIPTS) >= 3 for _, scripts in ATTACKS)


@pytest.fixture(scope="module")
def checker() -> Checker:
    c = Checker()
    c.options_set(OptionsSet(timeout=5000))
    return c


@pytest.mark.parametrize(("statement", "scripts"), ATTACKS, ids=[str(i) for i in range(len(ATTACKS))])
def test_no_script_proves_a_false_statement(checker: Checker, statement: str, scripts: list[list[str]]) -> None:
    accepted = [s for s in [*scripts, *GENERIC_SCRIPTS] if checker.check_proof(statement, s).ok]
    assert accepted == [], f"FALSE STATEMENT ACCEPTED: {statement} by {accepted}"


def test_a_true_statement_with_a_binder_rule_is_still_proved(checker: Checker) -> None:
    # the hypothesis is false, so the implication holds: simp under binders, kernel-checked
    vacuous = "(∀ x : Nat, (x = 1 ↔ ∃ z : Nat, z = x)) → ∀ z : Nat, z = 1"
    assert checker.check_proof(vacuous, ["intro h", "simp only [h]", "intro z", "use z"]).ok


def test_the_oracle_agrees_where_it_can_tell() -> None:
    # the oracle never calls one of these true; for prenex-∀ ones it finds the counterexample
    told = [s for s, _ in ATTACKS if falsified(s) is True]
    assert len(told) >= 40
    assert falsified("∀ (n : Nat), n + 0 = n") is None
    assert falsified("(7 : Int) / 0 = 0") is None
    assert falsified("(7 : Int) / 0 = 7") is True
