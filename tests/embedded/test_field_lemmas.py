"""The issue-37 lemma names of the field's provers (burnqed/embedded/elab/lemmas_field.py): each
statement as Lean core / Mathlib states it (golden), where it lives in the catalogue (proved by the
kernel once, or per use), uses as prover outputs write them beside a misuse or a false variant that
Lean refuses and that must stay refused, `protected` under `open Nat`, and the names whose class ℕ and
ℤ are no instance of."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from tests.embedded.util import wire
from burnqed.embedded.bridge.lemma_proofs import lemma_proof
from burnqed.embedded.bridge.translate import kterm
from burnqed.embedded.elab.elaborate import elab_prop
from burnqed.embedded.elab.expr import pp
from burnqed.embedded.elab.lemmas import (
    INSTANCE_LEMMAS,
    LEMMAS,
    NO_INSTANCE,
    OPENED,
    PROTECTED,
    copyable,
    lemma_instances,
    resolve,
)
from burnqed.embedded.elab.lemmas_field import AT_INT, FIELD_INSTANCE_LEMMAS, FIELD_LEMMAS, FIELD_PROTECTED
from burnqed.embedded.syntax.parser import Limits, parse_statement


def _verdict(header: str, body: str, opens: str = "") -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n{opens}\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = wire(Checker(), {"cmd": "frontend.process", "payload": {"file": text, "readHeader": True}})
    assert "error" not in ans, ans
    errors = [m["data"] for u in ans["units"] for m in u["messages"] if m["severity"] == "error"]
    return errors[0] if errors else "accepted"


# golden: binder explicitness and order decide which argument `Nat.sub_le n m` / `Int.emod_nonneg a h`
# fills (the sources are cited in elab/lemmas_field.py)
GOLDEN = {
    "Nat.mul_succ": "∀ (n m : Nat), n * (m + 1) = n * m + n",
    "Nat.succ_mul": "∀ (n m : Nat), (n + 1) * m = n * m + m",
    "Nat.sub_le": "∀ (n m : Nat), n - m ≤ n",
    "Nat.sub_add_cancel": "∀ {n m : Nat}, m ≤ n → n - m + m = n",
    "Nat.lt_or_gt_of_ne": "∀ {a b : Nat}, a ≠ b → a < b ∨ a > b",
    "Nat.pos_pow_of_pos": "∀ {n : Nat} (m : Nat), 0 < n → 0 < n ^ m",
    "Nat.div_eq_of_lt": "∀ {a b : Nat}, a < b → a / b = 0",
    "Nat.mod_add_mod": "∀ (m n k : Nat), (m % n + k) % n = (m + k) % n",
    "Int.emod_nonneg": "∀ (a : Int) {b : Int}, b ≠ 0 → 0 ≤ a % b",
    "Int.emod_lt_of_pos": "∀ (a : Int) {b : Int}, 0 < b → a % b < b",
    "Int.add_emod_self": "∀ {a b : Int}, (a + b) % b = a % b",
    "Int.dvd_of_emod_eq_zero": "∀ {a b : Int}, b % a = 0 → a ∣ b",
    "Int.coe_nat_dvd": "∀ {m n : Nat}, ↑m ∣ ↑n ↔ m ∣ n",
    "Nat.cast_sub": "∀ {m n : Nat}, m ≤ n → ↑(n - m) = ↑n - ↑m",
    "sub_nonneg": "∀ {a b : Int}, 0 ≤ a - b ↔ b ≤ a",
    "neg_add_rev": "∀ (a b : Int), -(a + b) = -b + -a",
    "mul_right_inj'": "∀ {a b c : Nat}, a ≠ 0 → (a * b = a * c ↔ b = c)",
    "dvd_mul_of_dvd_left": "∀ {a b : Nat}, a ∣ b → ∀ (c : Nat), a ∣ b * c",
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_statements_as_lean_states_them(name: str) -> None:
    assert pp(lemma_instances(name)[0]) == GOLDEN[name]


def test_where_each_lives_in_the_catalogue() -> None:
    # merged into the catalogue; an entry of LEMMAS is proved by the kernel once, in general (all
    # of them: tests/embedded/kernel/test_kernel.py); an instance lemma never is (its divisor or
    # factor is a variable), so a statement copied wrong can only make a use fail
    assert set(FIELD_LEMMAS) <= set(LEMMAS) and set(FIELD_INSTANCE_LEMMAS) <= set(INSTANCE_LEMMAS)
    assert not set(LEMMAS) & set(INSTANCE_LEMMAS)
    for name in ("Nat.mul_succ", "Nat.cast_sub", "sub_eq_zero", "dvd_mul_of_dvd_left", "one_pow"):
        assert all(lemma_proof(kterm(t)) is not None for t in lemma_instances(name))
    for name in ("Nat.zero_mod", "Int.emod_nonneg", "Int.coe_nat_dvd", "mul_right_inj'", "Nat.mod_add_mod"):
        assert lemma_proof(kterm(lemma_instances(name)[0])) is None


def test_mathlib_class_lemmas_are_at_int_only_and_not_copied() -> None:
    # Mathlib states sub_self, mul_sub, … for groups and rings: ℕ (truncated subtraction) is none
    for name in ("sub_self", "mul_sub", "sub_nonneg", "neg_sq"):
        assert len(lemma_instances(name)) == 1 and "Int" in pp(lemma_instances(name)[0])
    assert all(not copyable(n) for n in AT_INT)
    assert copyable("Nat.sub_le") and not copyable("le_total")


@pytest.mark.parametrize(
    "statement",
    [
        "∀ {n m : Nat}, n - m + m = n",  # Nat.sub_add_cancel without its hypothesis
        "∀ (n m : Nat), n * (m + 1) = n * m + m",  # mul_succ with the wrong summand
        "∀ {a b : Int}, 0 ≤ a - b ↔ a ≤ b",  # sub_nonneg flipped
        "∀ {m n : Nat}, ((n - m : Nat) : Int) = (n : Int) - (m : Int)",  # cast_sub without m ≤ n
        "∀ {a b : Nat}, a ∣ b → ∀ (c : Nat), a ∣ b + c",  # dvd_mul_of_dvd_left with + for *
        "∀ (a : Nat), a < a",
        "∀ (a b : Nat), a - b = a + b",
        "∀ {n : Nat}, n ≤ 1 → n = 0",
        "∀ (n : Nat), 0 - n = n",
    ],
)
def test_the_kernel_proves_no_miscopied_statement(statement: str) -> None:
    assert lemma_proof(kterm(elab_prop(parse_statement(statement, Limits()), {}))) is None


def test_protected_ones_are_not_reached_through_open_nat() -> None:
    token = OPENED.set(("Nat",))
    try:
        assert resolve("sub_le") == "Nat.sub_le"
        assert resolve("mul_succ") == "Nat.mul_succ"
        assert resolve("mod_add_mod") == "Nat.mod_add_mod"
        assert {"Nat.sub_add_cancel", "Nat.zero_sub", "Nat.le_total", "Nat.one_pow"} <= PROTECTED
        assert FIELD_PROTECTED <= PROTECTED
        # the root (Mathlib) lemma answers, as in Lean
        assert resolve("sub_add_cancel") == "sub_add_cancel"
        assert resolve("zero_sub") == "zero_sub"
        assert resolve("le_total") == "le_total"
    finally:
        OPENED.reset(token)


# (header, script, Lean accepts)
CASES = [
    # core ℕ lemmas, proved in general
    ("theorem t (n m : ℕ) : n * (m + 1) = n * m + n", "rw [Nat.mul_succ]", True),
    ("theorem t (n m : ℕ) : n * (m + 1) = n * m + m", "rw [Nat.mul_succ]", False),
    ("theorem t (n m : ℕ) : n - m ≤ n", "exact Nat.sub_le n m", True),
    ("theorem t (n m : ℕ) : n - m < n", "exact Nat.sub_le n m", False),
    ("theorem t (n m : ℕ) (h : m ≤ n) : n - m + m = n", "exact Nat.sub_add_cancel h", True),
    ("theorem t (n m : ℕ) (h : n ≤ m) : n - m + m = n", "exact Nat.sub_add_cancel h", False),
    ("theorem t (n : ℕ) (h : n ≤ 0) : n = 0", "exact Nat.eq_zero_of_le_zero h", True),
    ("theorem t (n : ℕ) (h : n ≤ 1) : n = 0", "exact Nat.eq_zero_of_le_zero h", False),
    ("theorem t (n : ℕ) (h : 0 < n) : n ^ 2 > 0", "exact Nat.pos_pow_of_pos 2 h", True),
    ("theorem t (n : ℕ) : 1 ^ n = 2", "exact Nat.one_pow n", False),
    ("theorem t (a b c : ℕ) (h : a + b ≤ c) : a ≤ c - b", "exact Nat.le_sub_of_add_le h", True),
    ("theorem t (a b c : ℕ) (h : a + b ≤ c) : a < c - b", "exact Nat.le_sub_of_add_le h", False),
    ("theorem t (a b c : ℕ) (h : b ≤ a) (h' : a - b = c) : a = c + b", "exact Nat.eq_add_of_sub_eq h h'", True),
    ("theorem t (a b c : ℕ) (h' : a - b = c) : a = c + b", "exact Nat.eq_add_of_sub_eq (by omega) h'", False),
    ("theorem t (n : ℕ) : n = 0 ∨ n > 0", "exact Nat.eq_zero_or_pos n", True),
    # Mathlib's group and ring lemmas: ℤ, never ℕ
    ("theorem t (a b : ℤ) (h : a - b = 0) : a = b", "rwa [sub_eq_zero] at h", True),
    ("theorem t (a b : ℕ) (h : a - b = 0) : a = b", "rw [sub_eq_zero] at h", False),
    ("theorem t (a b : ℤ) (h : 0 ≤ a - b) : b ≤ a", "exact sub_nonneg.mp h", True),
    ("theorem t (a b : ℤ) (h : 0 ≤ a - b) : a ≤ b", "exact sub_nonneg.mp h", False),
    ("theorem t (a b : ℤ) : (a - b) * 2 = a * 2 - b * 2", "rw [sub_mul]", True),
    ("theorem t (a b : ℕ) : (a - b) * 2 = a * 2 - b * 2", "rw [sub_mul]", False),
    # casts ℕ → ℤ
    ("theorem t (m n : ℕ) : ((m + n : ℕ) : ℤ) = (m : ℤ) + n", "rw [Nat.cast_add]", True),
    ("theorem t (m n : ℕ) (h : m ≤ n) : ((n - m : ℕ) : ℤ) = (n : ℤ) - m", "exact Nat.cast_sub h", True),
    ("theorem t (m n : ℕ) : ((n - m : ℕ) : ℤ) = (n : ℤ) - m", "rw [Nat.cast_sub]", False),
    # remainder lemmas, each use proved as its instance
    ("theorem t (a : ℤ) : 0 ≤ a % 5", "exact Int.emod_nonneg a (by norm_num)", True),
    ("theorem t (a : ℤ) : 0 ≤ a % 0", "exact Int.emod_nonneg a (by norm_num)", False),
    ("theorem t (a : ℤ) : a % 5 < 5", "exact Int.emod_lt_of_pos a (by norm_num)", True),
    ("theorem t (a : ℤ) : a % 5 < 4", "exact Int.emod_lt_of_pos a (by norm_num)", False),
    ("theorem t (x : ℕ) : (x + 5) % 5 = x % 5", "rw [Nat.add_mod_right]", True),
    ("theorem t (x : ℕ) : (x + 5) % 5 = x % 4", "rw [Nat.add_mod_right]", False),
    ("theorem t (x : ℤ) (h : x % 3 = 1) : (x + 3) % 3 = 1", "rw [Int.add_emod_self, h]", True),
    ("theorem t (x : ℤ) (h : x % 4 = 0) : 4 ∣ x", "exact Int.dvd_of_emod_eq_zero h", True),
    ("theorem t (x : ℤ) (h : x % 4 = 0) : 3 ∣ x", "exact Int.dvd_of_emod_eq_zero h", False),
    ("theorem t (n : ℕ) (h : n < 5) : n / 5 = 0", "exact Nat.div_eq_of_lt h", True),
    ("theorem t (n : ℕ) (h : n < 6) : n / 5 = 0", "exact Nat.div_eq_of_lt h", False),
    ("theorem t (n : ℕ) (h : 7 ∣ n) : (7 : ℤ) ∣ (n : ℤ)", "exact Int.coe_nat_dvd.mpr h", True),
    ("theorem t (n : ℕ) (h : 7 ∣ n) : (5 : ℤ) ∣ (n : ℤ)", "exact Int.coe_nat_dvd.mpr h", False),
    ("theorem t (x : ℕ) (h : 3 * x = 3 * 5) : x = 5", "rw [mul_right_inj' (by norm_num : (3 : ℕ) ≠ 0)] at h\nexact h", True),
    ("theorem t (x : ℕ) (h : x = 5) : 3 * x = 15", "rw [← mul_right_inj' (by norm_num : (3 : ℕ) ≠ 0)] at h\nlinarith", True),
    ("theorem t (x : ℕ) (h : 3 * x = 3 * 5) : x = 6", "exact (mul_right_inj' (by norm_num : (3 : ℕ) ≠ 0)).mp h", False),
    # generic
    ("theorem t : (2 : ℕ) + 2 = 4", "apply Eq.refl", True),
    ("theorem t : (2 : ℕ) + 2 = 5", "apply Eq.refl", False),
    ("theorem t (n : ℕ) : ∃ m, n < m", "exact ⟨n + 1, lt_add_one _⟩", True),
    ("theorem t (n : ℕ) : ∃ m, n < m", "exact ⟨n, lt_add_one _⟩", False),
    ("theorem t (a b c : ℕ) (h : a ∣ b) : a ∣ b * c", "exact dvd_mul_of_dvd_left h c", True),
    ("theorem t (a b c : ℕ) (h : a ∣ b) : a ∣ c * b", "exact dvd_mul_of_dvd_left h c", False),
    # order: Mathlib's LinearOrder lemmas at ℕ and ℤ (a projection is tried at each type), core's ℕ ones
    ("theorem t (a b : ℕ) (h : ¬a < b) : b ≤ a", "exact not_lt.mp h", True),
    ("theorem t (a b : ℕ) (h : ¬a < b) : a ≤ b", "exact not_lt.mp h", False),
    ("theorem t (a b : ℤ) (h : ¬a ≤ b) : b < a", "exact not_le.mp h", True),
    ("theorem t (a b : ℤ) (h : ¬a ≤ b) : a < b", "exact not_le.mp h", False),
    ("theorem t (a b : ℕ) : a < b ∨ a = b ∨ b < a", "exact lt_trichotomy a b", True),
    ("theorem t (a b : ℕ) : a < b ∨ b < a", "exact lt_trichotomy a b", False),
    ("theorem t (a b : ℕ) (h1 : a ≤ b) (h2 : a ≠ b) : a < b", "exact lt_of_le_of_ne h1 h2", True),
    ("theorem t (a b c d : ℕ) (h1 : a ≤ b) (h2 : c ≤ d) : a + c ≤ b + d", "exact Nat.add_le_add h1 h2", True),
    ("theorem t (a b k : ℕ) (h : a ≤ b) : k * a ≤ k * b", "exact Nat.mul_le_mul_left k h", True),
    ("theorem t (a b k : ℕ) (h : a ≤ b) : a * k ≤ b * k", "exact Nat.mul_le_mul_left k h", False),
    ("theorem t (a b : ℕ) (h : 3 * a = 3 * b) : a = b", "exact Nat.eq_of_mul_eq_mul_left (by norm_num) h", True),
    ("theorem t (a b : ℕ) (h : 3 * a = 3 * b) : a = b + 1", "exact Nat.eq_of_mul_eq_mul_left (by norm_num) h", False),
    ("theorem t (m n : ℕ) (h : m ≤ n) : (m : ℤ) ≤ (n : ℤ)", "exact Int.ofNat_le.mpr h", True),
    ("theorem t (m n : ℕ) (h : m < n) : (m : ℤ) ≤ (n : ℤ)", "exact Int.ofNat_le.mpr h", False),
    # ordered-semiring lemmas at ℕ and ℤ, ℤ-only group aliases, core's successor forms
    ("theorem t (a : ℤ) (h : 0 < a) : 0 < a ^ 3", "exact pow_pos h 3", True),
    ("theorem t (a : ℤ) (h : 0 ≤ a) : 0 < a ^ 3", "exact pow_pos h 3", False),
    ("theorem t (a b c : ℤ) (h1 : a ∣ b) (h2 : a ∣ c) : a ∣ b - c", "exact dvd_sub h1 h2", True),
    ("theorem t (a b c : ℕ) (h1 : a ∣ b) (h2 : a ∣ c) : a ∣ b - c", "exact dvd_sub h1 h2", False),
    ("theorem t : (0 : ℕ) < 0", "exact zero_lt_one", False),
    ("theorem t (a b c : ℕ) (h : b < c) (ha : 0 < a) : b * a < c * a", "exact mul_lt_mul_of_pos_left h ha", False),
    ("theorem t (a b : ℤ) (h : a < b) : a + 1 ≤ b", "exact Int.lt_iff_add_one_le.mp h", True),
    ("theorem t (a b : ℤ) (h : a ≤ b) : a + 1 ≤ b", "exact Int.lt_iff_add_one_le.mp h", False),
    ("theorem t (m n : ℕ) (h : m < n) : 0 < m - n", "exact Nat.sub_pos_of_lt h", False),
    # a Mathlib name whose class ℕ and ℤ are no instance of: simp uses it for nothing, rw fails
    ("theorem t : (39500 - 17) / 123 = 321", "simp_all only [mul_comm, mul_one, mul_div_cancel_left]", True),
    ("theorem t (a b : ℕ) (h : 0 < a) : a * b / a = b", "rw [mul_div_cancel_left]", False),
    ("theorem t : 1 * 3 * 5 * 7 * 9 * 11 * 13 % 10 = 5", "simp only [div_eq_iff_mul_eq]", True),
    ("theorem t : 1 * 3 * 5 * 7 * 9 * 11 * 13 % 10 = 6", "simp only [div_eq_iff_mul_eq]", False),
    ("theorem t : 16 ^ 17 * 17 ^ 18 * 18 ^ 19 % 10 = 8", "simp only [← div_eq_inv_mul]", True),
    ("theorem t (a b : ℤ) (h : b ≠ 0) (h' : a = 3 * b) : a / b = 3", "rw [div_eq_iff h]\nlinarith", False),
    # names whose pattern never occurs in the fragment (`succ n` is `n + 1`, a numeral's cast the numeral)
    ("theorem t (n : ℕ) : n + 1 - 1 = n", "simp [Nat.succ_eq_add_one]", True),
    ("theorem t (n : ℕ) : n + 1 - 1 = n", "rw [Nat.succ_eq_add_one]", False),
    ("theorem t (n : ℕ) : n + 1 - 1 = n", "exact Nat.succ_sub_one n", True),
    ("theorem t (n : ℕ) : ((n + 1 : ℕ) : ℤ) = (n : ℤ) + 1", "push_cast [Nat.cast_one]\nring", True),
    ("theorem t (n : ℕ) : ((n + 1 : ℕ) : ℤ) = (n : ℤ) + 1", "simp [Nat.cast_add, Nat.cast_one]", True),
    ("theorem t (n : ℕ) : ((n + 1 : ℕ) : ℤ) = (n : ℤ) + 2", "simp [Nat.cast_add, Nat.cast_one]", False),
    ("theorem t (n : ℕ) (h : n % 2 = 1) : (n + 1) % 2 = 0", "simp [Nat.even_iff, Nat.add_mod, h]", True),
    ("theorem t (n : ℕ) (h : n % 2 = 1) : (n + 1) % 2 = 1", "simp [Nat.even_iff, Nat.add_mod, h]", False),
    ("theorem t (n : ℕ) (h : n % 2 = 1) : (n + 1) % 2 = 0", "rw [Nat.even_iff]", False),
    # right to left, Lean rewrites `n % 2 = 0` into `Even n`, outside the fragment: refused
    ("theorem t (n : ℕ) (h : n % 2 = 0) : n % 2 = 0", "simp [← Nat.even_iff] at h ⊢\nexact h", False),
]


@pytest.mark.parametrize(("header", "body", "lean_accepts"), CASES)
def test_uses_as_lean_checks_them(header: str, body: str, lean_accepts: bool) -> None:
    assert (_verdict(header, body) == "accepted") is lean_accepts


# `open Nat` (the header of most released proofs): the last component reaches the unprotected lemma,
# never a protected one
OPEN_CASES = [
    ("theorem t (n m : ℕ) : n - m ≤ n", "exact sub_le n m", True),
    ("theorem t (n : ℕ) : n % 7 ≤ n", "exact mod_le n 7", True),
    ("theorem t (n : ℕ) : 0 - n = 0", "exact zero_sub n", False),  # root zero_sub: 0 - a = -a
    ("theorem t (n m : ℕ) (h : m ≤ n) : n - m + m = n", "exact sub_add_cancel h", False),
    # Nat.add_le_add is protected in later cores, and ambiguous with Mathlib's root lemma where not
    ("theorem t (a b c d : ℕ) (h1 : a ≤ b) (h2 : c ≤ d) : a + c ≤ b + d", "exact add_le_add h1 h2", False),
]


@pytest.mark.parametrize(("header", "body", "lean_accepts"), OPEN_CASES)
def test_open_nat(header: str, body: str, lean_accepts: bool) -> None:
    assert (_verdict(header, body, "open Nat\n") == "accepted") is lean_accepts


def test_no_instance_names_fail_rw_with_lean_s_reason() -> None:
    assert "mul_div_cancel_left" in NO_INSTANCE
    assert _verdict("theorem t (a b : ℕ) (h : 0 < a) : a * b / a = b", "rw [mul_div_cancel_left]").startswith(
        "failed to synthesize"
    )


def test_a_theorem_may_not_take_a_catalogue_name() -> None:
    # Lean: "'Nat.mod_add_mod' has already been declared" (an instance lemma is declared too)
    text = "import Mathlib\n\ntheorem Nat.mod_add_mod (n : ℕ) : n = n := by\n  rfl\n"
    ans = wire(Checker(), {"cmd": "frontend.process", "payload": {"file": text, "readHeader": True}})
    errors = [m["data"] for u in ans["units"] for m in u["messages"] if m["severity"] == "error"]
    assert errors == ["'Nat.mod_add_mod' has already been declared"]
