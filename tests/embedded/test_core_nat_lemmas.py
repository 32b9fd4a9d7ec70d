"""Lean core's `Nat.mod_lt`, `Nat.le_of_dvd` and `Nat.sub_eq_zero_of_le` (issue 37): uses as prover
outputs write them, each beside a misuse or a false conclusion that Lean refuses and that must stay
refused. Statements from leanprover/lean4 src/Init/Data/Nat/Div.lean (`theorem mod_lt (x : Nat)
{y : Nat} : y > 0 → x % y < y`), Dvd.lean (`theorem le_of_dvd {m n : Nat} (h : 0 < n) : m ∣ n →
m ≤ n`) and Basic.lean (`protected theorem sub_eq_zero_of_le {n m : Nat} (h : n ≤ m) : n - m = 0`)."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.bridge.lemma_proofs import lemma_proof
from burnqed.embedded.bridge.translate import kterm
from burnqed.embedded.elab.lemmas import INSTANCE_LEMMAS, LEMMAS, OPENED, PROTECTED, lemma_instances, resolve
from burnqed.embedded.elab.expr import pp
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult


def _verdict(header: str, body: str) -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = Checker().frontend_process(FrontendProcess(file=text, read_header=True))
    assert isinstance(ans, FrontendProcessResult), ans
    errors = [m.data for u in ans.units for m in u.errors]
    return errors[0] if errors else "accepted"


def test_statements_as_lean_core_states_them() -> None:
    # golden: binder explicitness and order decide which argument `Nat.mod_lt x h` fills
    assert pp(lemma_instances("Nat.mod_lt")[0]) == "∀ (x : Nat) {y : Nat}, y > 0 → x % y < y"
    assert pp(lemma_instances("Nat.le_of_dvd")[0]) == "∀ {m n : Nat}, 0 < n → m ∣ n → m ≤ n"
    assert pp(lemma_instances("Nat.sub_eq_zero_of_le")[0]) == "∀ {n m : Nat}, n ≤ m → n - m = 0"


def test_where_each_lives_in_the_catalogue() -> None:
    # the kernel proves sub_eq_zero_of_le and le_of_dvd once; mod_lt has a variable divisor, so
    # only its instances are proved, per use
    for name in ("Nat.sub_eq_zero_of_le", "Nat.le_of_dvd"):
        assert name in LEMMAS and name not in INSTANCE_LEMMAS
        assert lemma_proof(kterm(lemma_instances(name)[0])) is not None
    assert "Nat.mod_lt" in INSTANCE_LEMMAS and "Nat.mod_lt" not in LEMMAS
    assert lemma_proof(kterm(lemma_instances("Nat.mod_lt")[0])) is None


@pytest.mark.parametrize(
    "statement",
    [
        "∀ {m n : Nat}, m ∣ n → m ≤ n",  # no positivity: 2 ∣ 0
        "∀ {m n : Nat}, 0 < n → m ∣ n → m < n",  # m = n
        "∀ {m n : Nat}, 0 < n → m ∣ n → n ≤ m",
        "∀ {m n : Nat}, 0 < m → m ∣ n → m ≤ n",  # positivity of the wrong one: 2 ∣ 0
    ],
)
def test_the_divisor_case_split_proves_no_false_variant(statement: str) -> None:
    from burnqed.embedded.elab.elaborate import elab_prop
    from burnqed.embedded.syntax.parser import Limits, parse_statement

    assert lemma_proof(kterm(elab_prop(parse_statement(statement, Limits()), {}))) is None


def test_open_nat_reaches_only_the_unprotected_ones() -> None:
    token = OPENED.set(("Nat",))
    try:
        assert resolve("mod_lt") == "Nat.mod_lt"
        assert resolve("le_of_dvd") == "Nat.le_of_dvd"
        assert "Nat.sub_eq_zero_of_le" in PROTECTED
        assert resolve("sub_eq_zero_of_le") == "sub_eq_zero_of_le"
    finally:
        OPENED.reset(token)


# (header, script, Lean accepts)
CASES = [
    # Nat.mod_lt
    ("theorem t (x : ℕ) : x % 5 < 5", "have h := Nat.mod_lt x (by norm_num : 5 > 0)\nexact h", True),
    ("theorem t (x : ℕ) : x % 5 < 5", "exact Nat.mod_lt _ (by norm_num)", True),
    ("theorem t (x : ℕ) : x % 5 < 5", "exact Nat.mod_lt x (by norm_num)", True),
    ("theorem t (n : ℕ) : n % 10 + 1 ≤ 10", "linarith [Nat.mod_lt n (show 10 > 0 by norm_num)]", True),
    ("theorem t (x : ℕ) : x % 5 < 4", "exact Nat.mod_lt x (by norm_num)", False),
    ("theorem t (x : ℕ) : x % 5 < 4", "have h := Nat.mod_lt x (by norm_num : 5 > 0)\nexact h", False),
    ("theorem t (n : ℕ) : n % 10 + 1 ≤ 9", "linarith [Nat.mod_lt n (show 10 > 0 by norm_num)]", False),
    # the positivity premise is `5 > 0`, not the dividend: a wrong argument order is refused
    ("theorem t (x : ℕ) : x % 5 < 5", "exact Nat.mod_lt (by norm_num) x", False),
    # a false premise cannot be discharged (`0 > 0`), even though x % 0 = x
    ("theorem t (x : ℕ) : x % 0 < 0", "exact Nat.mod_lt x (by norm_num)", False),
    # Nat.le_of_dvd
    ("theorem t (m : ℕ) (h : m ∣ 12) : m ≤ 12", "apply Nat.le_of_dvd\nnorm_num\nexact h", True),
    ("theorem t (m : ℕ) (h : m ∣ 12) : m ≤ 12", "exact Nat.le_of_dvd (by norm_num) h", True),
    ("theorem t (m : ℕ) (h : m ∣ 12) : m ≤ 11", "exact Nat.le_of_dvd (by norm_num) h", False),
    ("theorem t (m : ℕ) (h : m ∣ 12) : m ≤ 11", "apply Nat.le_of_dvd\nnorm_num\nexact h", False),
    # without positivity the instance is false: m ∣ 0 holds for every m
    ("theorem t (m : ℕ) (h : m ∣ 0) : m ≤ 0", "exact Nat.le_of_dvd (by norm_num) h", False),
    ("theorem t (m : ℕ) (h : m ∣ 0) : m ≤ 0", "apply Nat.le_of_dvd\nnorm_num\nexact h", False),
    # arguments swapped: the divisibility is not the positivity premise
    ("theorem t (m : ℕ) (h : m ∣ 12) : m ≤ 12", "exact Nat.le_of_dvd h (by norm_num)", False),
    # Nat.sub_eq_zero_of_le
    ("theorem t (a b : ℕ) (h : a ≤ b) : a - b = 0", "exact Nat.sub_eq_zero_of_le h", True),
    ("theorem t (a b : ℕ) (h : a ≤ b) : a - b + 3 = 3", "rw [Nat.sub_eq_zero_of_le h]", True),
    ("theorem t (a b : ℕ) (h : a ≤ b) : a - b + 3 = 3", "simp [Nat.sub_eq_zero_of_le h]", True),
    ("theorem t (a b : ℕ) (h : a ≤ b) : b - a = 0", "exact Nat.sub_eq_zero_of_le h", False),
    ("theorem t (a b : ℕ) (h : a ≤ b) : a - b + 3 = 4", "rw [Nat.sub_eq_zero_of_le h]", False),
    ("theorem t (a b : ℕ) (h : a ≤ b) : a - b + 3 = 4", "simp [Nat.sub_eq_zero_of_le h]", False),
    # protected: `open Nat` does not make `sub_eq_zero_of_le` name it
    ("open Nat\n\ntheorem t (a b : ℕ) (h : a ≤ b) : a - b = 0", "exact Nat.sub_eq_zero_of_le h", True),
    ("open Nat\n\ntheorem t (x : ℕ) : x % 5 < 5", "exact mod_lt x (by norm_num)", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), CASES)
def test_core_nat_lemmas_as_lean_checks_them(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


@pytest.mark.xfail(strict=True, reason="the kernel's `%` facts need a numeral divisor: no certificate")
def test_mod_lt_with_a_variable_divisor() -> None:
    # Lean accepts this; the checker refuses it (incomplete, never unsound)
    assert _verdict("theorem t (x y : ℕ) (h : 0 < y) : x % y < y", "exact Nat.mod_lt x h") == "accepted"
