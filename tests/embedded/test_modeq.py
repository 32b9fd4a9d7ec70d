"""`a ≡ b [MOD n]` (Nat.ModEq) and `a ≡ b [ZMOD n]` (Int.ModEq), issue 37: Mathlib's notation
and definition (Mathlib/Data/Nat/ModEq.lean ``def ModEq (n a b : ℕ) := a % n = b % n``,
Mathlib/Data/Int/ModEq.lean the same over ℤ). Each proof Lean accepts beside one Lean refuses
(or a false statement) that must stay refused."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.elab.elaborate import elab_prop
from burnqed.embedded.elab.lemmas import DEFINITIONS, lemma_instances
from burnqed.embedded.syntax.parser import Limits, ParseError, parse_statement
from burnqed.embedded.elab.expr import ModEq, pp
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult, GoalStart, GoalStartResult


def _verdict(header: str, body: str) -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = Checker().frontend_process(FrontendProcess(file=text, read_header=True))
    assert isinstance(ans, FrontendProcessResult), ans
    errors = [m.data for u in ans.units for m in u.errors]
    return errors[0] if errors else "accepted"


def test_notation_elaborates_as_mathlibs_application() -> None:
    t = elab_prop(parse_statement("∀ (a : ℕ) (n : ℕ), (2 : ℤ) ^ n ≡ a + 1 [ZMOD 7]", Limits()), {})
    body = t.body.body  # type: ignore[union-attr]
    assert isinstance(body, ModEq) and body.ty == "Int"
    # the ℕ leaf under [ZMOD n] is cast, as Lean's coercion inserts ↑ against ℤ
    assert pp(t) == "∀ (a n : Nat), 2 ^ n ≡ ↑a + 1 [ZMOD 7]"
    nat = elab_prop(parse_statement("∀ (x : ℕ), x * 2 ≡ 3 [MOD 5] ∧ x < 4", Limits()), {})
    assert pp(nat) == "∀ (x : Nat), x * 2 ≡ 3 [MOD 5] ∧ x < 4"


@pytest.mark.parametrize(
    "text",
    [
        "∀ (x : ℕ), x ≡ 3 [MOD 5",  # unclosed
        "∀ (x : ℕ), x ≡ 3 [ MOD 5]",  # `[MOD` is one token in Lean
        "∀ (x : ℕ), x ≡ 3",  # no modulus
        "∀ (x : ℕ), x = 1 ≡ 3 [MOD 5]",  # like a relation, its left side is no relation
    ],
)
def test_malformed_notation_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_statement(text, Limits())


# (header, script, Lean accepts)
CASES = [
    # unfold / rw / simp / norm_num with the definition, then omega (which never reads ModEq)
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "unfold Nat.ModEq at h\nomega", True),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "rw [Nat.ModEq] at h\nomega", True),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "norm_num [Nat.ModEq] at h\nomega", True),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "omega", False),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 4", "unfold Nat.ModEq at h\nomega", False),
    ("theorem t (x : ℤ) (h : x % 5 = 3) : x ≡ 8 [ZMOD 5]", "simp [Int.ModEq]\nomega", True),
    ("theorem t (x : ℤ) (h : x % 5 = 3) : x ≡ 8 [ZMOD 5]", "unfold Int.ModEq\nomega", True),
    ("theorem t (x : ℤ) (h : x % 5 = 3) : x ≡ 9 [ZMOD 5]", "unfold Int.ModEq\nomega", False),
    # the wrong definition unfolds nothing: Lean's "unfold failed to unfold"
    ("theorem t (x : ℤ) (h : x % 5 = 3) : x ≡ 8 [ZMOD 5]", "unfold Nat.ModEq\nomega", False),
    # with `open Nat`, `ModEq` is `Nat.ModEq`
    ("open Nat\n\ntheorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "simp only [ModEq] at h\nomega", True),
    # closed congruences: decide (its Decidable instance) and rfl (eq_refl unfolds the goal)
    ("theorem t : 30 * 39 ≡ 42 [MOD 47]", "decide", True),
    ("theorem t : 30 * 39 ≡ 42 [MOD 47]", "rfl", True),
    ("theorem t : 30 * 39 ≡ 43 [MOD 47]", "decide", False),
    ("theorem t : 30 * 39 ≡ 43 [MOD 47]", "rfl", False),
    ("theorem t : (-3 : ℤ) ≡ 4 [ZMOD 7]", "decide", True),
    ("theorem t : (-3 : ℤ) ≡ 3 [ZMOD 7]", "decide", False),
    # a hypothesis proves its unfolding (exact and assumption: isDefEq at default transparency)
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3 % 5", "exact h", True),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3 % 5", "assumption", True),
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x ≡ 4 [MOD 5]", "exact h", False),
    # rw reaches inside the notation's arguments
    ("theorem t (x y : ℕ) (e : x = y) (h : x ≡ 3 [MOD 5]) : y ≡ 3 [MOD 5]", "rw [e] at h\nexact h", True),
    # rw's closing `with_reducible rfl` applies the @[refl] lemma Nat.ModEq.refl (a =?= b only)
    ("theorem t (x y : ℕ) (h : x = y) : x ≡ y [MOD 5]", "rw [h]", True),
    ("theorem t (x y : ℕ) (h : x = y + 1) : x ≡ y [MOD 5]", "rw [h]", False),
    # show: the new target must be definitionally equal (the definition unfolds)
    ("theorem t (x : ℕ) (h : x % 5 = 3) : x ≡ 3 [MOD 5]", "show x % 5 = 3 % 5\nomega", True),
    ("theorem t (x : ℕ) (h : x % 5 = 3) : x ≡ 3 [MOD 5]", "show x % 5 = 4 % 5\nomega", False),
    ("theorem t (n : ℕ) (h : n < 3) : n ^ 2 ≡ n [MOD 2]", "interval_cases n <;> decide", True),
    ("theorem t (n : ℕ) (h : n < 3) : n ^ 2 ≡ n + 1 [MOD 2]", "interval_cases n <;> decide", False),
    # calc chains congruences by Mathlib's `Trans (ModEq n) (ModEq n) (ModEq n)`
    ("theorem t (a b c : ℕ) (h1 : a ≡ b [MOD 7]) (h2 : b ≡ c [MOD 7]) : a ≡ c [MOD 7]",
     "calc a ≡ b [MOD 7] := h1\n  _ ≡ c [MOD 7] := h2", True),
    ("theorem t (a b c : ℕ) (h1 : a ≡ b [MOD 7]) (h2 : b ≡ c [MOD 8]) : a ≡ c [MOD 7]",
     "calc a ≡ b [MOD 7] := h1\n  _ ≡ c [MOD 8] := h2", False),
    ("theorem t (a : ℕ) (h : a % 7 = 3) : a ^ 2 ≡ 2 [MOD 7]",
     "calc a ^ 2 ≡ 3 ^ 2 [MOD 7] := by\n      unfold Nat.ModEq\n      simp [Nat.pow_mod, h]\n  _ ≡ 2 [MOD 7] := by decide", True),
    ("theorem t (a : ℕ) (h : a % 7 = 3) : a ^ 2 ≡ 3 [MOD 7]",
     "calc a ^ 2 ≡ 3 ^ 2 [MOD 7] := by\n      unfold Nat.ModEq\n      simp [Nat.pow_mod, h]\n  _ ≡ 3 [MOD 7] := by decide", False),
    # Mathlib's @[simp] lemmas about ModEq are not the embedded simp's: refused, never guessed
    ("theorem t (x : ℕ) (h : x ≡ 3 [MOD 5]) : x % 5 = 3", "simp at h\nomega", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), CASES)
def test_modeq_proofs_as_lean_checks_them(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_the_definitions_are_no_proof_terms() -> None:
    # In Lean `Nat.ModEq` is a function into Prop: `(Nat.ModEq 5 1 6).mpr h` does not typecheck
    got = _verdict("theorem t (h : 1 % 5 = 6 % 5) : 1 ≡ 6 [MOD 5]", "exact (Nat.ModEq 5 1 6).mpr h")
    assert got != "accepted"


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_definition_equations_are_proved_by_the_kernel(name: str) -> None:
    from burnqed.embedded.bridge.translate import kterm
    from burnqed.embedded.bridge.lemma_proofs import lemma_proof

    (stmt,) = lemma_instances(name)
    assert lemma_proof(kterm(stmt)) is not None


# the catalogue's congruence and division lemmas (elab/lemmas.py), each beside a misuse Lean refuses
LEMMA_CASES = [
    ("theorem t (a b c : ℤ) (h : a ≡ b [ZMOD 7]) (h2 : b ≡ c [ZMOD 7]) : a ≡ c [ZMOD 7]", "exact Int.ModEq.trans h h2", True),
    ("theorem t (a b c : ℤ) (h : a ≡ b [ZMOD 7]) (h2 : b ≡ c [ZMOD 7]) : a ≡ c [ZMOD 8]", "exact Int.ModEq.trans h h2", False),
    ("theorem t (a b : ℤ) (h : a ≡ b [ZMOD 7]) : b ≡ a [ZMOD 7]", "exact h.symm", True),
    ("theorem t (a b : ℤ) (h : a ≡ b [ZMOD 7]) : a ≡ b [ZMOD 14]", "exact h.symm", False),
    ("theorem t (x : ℕ) : x ≡ x [MOD 9]", "exact Nat.ModEq.refl x", True),
    ("theorem t (x : ℕ) : x ≡ x + 1 [MOD 9]", "exact Nat.ModEq.refl x", False),
    # instance lemmas: each use proved as its instance (the modulus a numeral) by a certificate
    ("theorem t (a b c d : ℕ) (h1 : a ≡ b [MOD 7]) (h2 : c ≡ d [MOD 7]) : a + c ≡ b + d [MOD 7]", "exact Nat.ModEq.add h1 h2", True),
    ("theorem t (a b c d : ℕ) (h1 : a ≡ b [MOD 7]) (h2 : c ≡ d [MOD 8]) : a + c ≡ b + d [MOD 7]", "exact Nat.ModEq.add h1 h2", False),
    ("theorem t (a b : ℕ) (h1 : 3 ∣ a) (h2 : 3 ∣ b) : 3 ∣ a + b", "apply Nat.dvd_add\nexact h1\nexact h2", True),
    ("theorem t (a b : ℕ) (h1 : 3 ∣ a) (h2 : 3 ∣ b) : 3 ∣ a + b + 1", "apply Nat.dvd_add\nexact h1\nexact h2", False),
    ("theorem t (m : ℕ) (h : 6 ∣ m) : m / 6 * 6 = m", "rw [Nat.div_mul_cancel h]", True),
    ("theorem t (m : ℕ) (h : 6 ∣ m) : m / 6 * 6 = m + 1", "rw [Nat.div_mul_cancel h]", False),
    ("theorem t (m : ℕ) : m % 12 % 4 = m % 4", "exact Nat.mod_mod_of_dvd m (by norm_num)", True),
    ("theorem t (m : ℕ) : m % 12 % 5 = m % 5", "exact Nat.mod_mod_of_dvd m (by norm_num)", False),
    ("theorem t (a b : ℤ) : (a + b * 7) % 7 = a % 7", "rw [Int.add_mul_emod_self]", True),
    ("theorem t (n : ℕ) (h : n + 1 ≤ 5) : n < 5", "exact Nat.succ_le_iff.mp h", True),
    ("theorem t (n : ℕ) (h : n + 1 ≤ 5) : n < 4", "exact Nat.succ_le_iff.mp h", False),
    ("theorem t (x : ℤ) : x ^ 3 = x * (x * x)", "exact pow_three x", True),
    ("theorem t (x : ℤ) (h : x ≡ 2 [ZMOD 6]) : 6 ∣ x - 2", "rw [Int.modEq_iff_dvd] at h\nomega", True),
    ("theorem t (x : ℤ) (h : x ≡ 2 [ZMOD 6]) : 6 ∣ x - 3", "rw [Int.modEq_iff_dvd] at h\nomega", False),
    ("theorem t (x : ℕ) (h : x ≡ 0 [MOD 6]) : 6 ∣ x", "exact Nat.modEq_zero_iff_dvd.mp h", True),
    ("theorem t (x : ℕ) (h : x ≡ 0 [MOD 6]) : 7 ∣ x", "exact Nat.modEq_zero_iff_dvd.mp h", False),
    ("theorem t (x : ℕ) : x % 6 ≡ x [MOD 6]", "exact Nat.mod_modEq x 6", True),
    ("theorem t (x : ℕ) : x % 6 ≡ x [MOD 7]", "exact Nat.mod_modEq x 6", False),
    # generalized field notation: `h.f args` is `Nat.ModEq.f … h …` (h the first congruence argument)
    ("theorem t (a b c : ℤ) (h : a ≡ b [ZMOD 7]) (h2 : b ≡ c [ZMOD 7]) : a ≡ c [ZMOD 7]", "exact h.trans h2", True),
    ("theorem t (a b c : ℤ) (h : a ≡ b [ZMOD 7]) (h2 : b ≡ c [ZMOD 7]) : c ≡ a [ZMOD 7]", "exact h.trans h2", False),
    ("theorem t (a b : ℕ) (h : a ≡ b [MOD 7]) : a + 3 ≡ b + 3 [MOD 7]", "exact h.add_right 3", True),
    ("theorem t (a b : ℕ) (h : a ≡ b [MOD 7]) : a + 3 ≡ b + 4 [MOD 7]", "exact h.add_right 3", False),
    ("theorem t (a b c d : ℕ) (h1 : a ≡ b [MOD 7]) (h2 : c ≡ d [MOD 7]) : a + c ≡ b + d [MOD 7]", "exact h1.add h2", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), LEMMA_CASES)
def test_catalogue_lemmas_as_lean_checks_them(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


# false congruences at Lean's corners (modulus 0: `a % 0 = a`; ℤ's `%` is Int.emod, never
# negative; ℕ's `-` truncates), each against scripts aimed at the definition
FALSE = [
    "5 ≡ 3 [MOD 0]",
    "(-1 : ℤ) ≡ 1 [ZMOD 0]",
    "(3 : ℤ) - 5 ≡ 0 [ZMOD 7]",
    "(-3 : ℤ) ≡ 3 [ZMOD 7]",
    "(2 : ℕ) - 5 ≡ 1 [MOD 7]",
    "(7 : ℤ) ≡ 1 [ZMOD -4]",
    "∀ (x : ℕ), x ≡ 3 [MOD 5] → x ≡ 4 [MOD 5]",
    "∀ (x : ℤ), x ≡ 3 [ZMOD 5] → x % 5 = -2",
    "∀ (a b : ℕ), a ≡ b [MOD 6] → a ≡ b [MOD 12]",
]
SCRIPTS = [
    "decide", "rfl", "norm_num [Nat.ModEq, Int.ModEq]", "simp [Nat.ModEq, Int.ModEq]",
    "unfold Nat.ModEq\nomega", "unfold Int.ModEq\nomega", "intro x h\nunfold Nat.ModEq at h ⊢\nomega",
    "intro x h\nunfold Int.ModEq at h ⊢\nomega", "intro x h\nexact h", "intro a b h\nexact h.symm",
    "intro a b h\nexact Nat.ModEq.trans h h", "intro x h\nsimp_all [Nat.ModEq, Int.ModEq]",
    "intro a b h\nrw [Nat.ModEq] at h ⊢\nomega", "exact Nat.ModEq.refl _", "exact Int.ModEq.refl _",
]


@pytest.mark.parametrize("statement", FALSE)
def test_false_congruences_are_never_proved(statement: str) -> None:
    c = Checker()
    assert isinstance(c.goal_start(GoalStart(expr=statement)), GoalStartResult)  # inside the fragment
    for script in SCRIPTS:
        got = c.check_proof(statement, script.split("\n"))
        assert not got.ok, (statement, script)


def test_open_does_not_reach_protected_lemmas() -> None:
    # `protected theorem Nat.dvd_add`: after `open Nat`, `dvd_add` is Mathlib's root lemma, not it
    from burnqed.embedded.elab.lemmas import OPENED, resolve

    token = OPENED.set(("Nat",))
    try:
        assert resolve("dvd_add") == "dvd_add"
        assert resolve("mul_div_cancel_left") == "mul_div_cancel_left"  # not Nat.mul_div_cancel_left
        assert resolve("pow_mod") == "Nat.pow_mod"  # not protected
        assert resolve("ModEq") == "Nat.ModEq"
    finally:
        OPENED.reset(token)
