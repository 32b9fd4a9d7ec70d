"""Issue 37: Lean-checked proofs the embedded checker used to refuse, each beside a false or
Lean-refused variant that must stay refused. Whole files go through ``frontend.process``."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult, ReplErrorAnswer


def _verdict(header: str, body: str) -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = Checker().frontend_process(FrontendProcess(file=text, read_header=True))
    assert isinstance(ans, FrontendProcessResult), ans
    errors = [m.data for u in ans.units for m in u.errors]
    return errors[0] if errors else "accepted"


# lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean evalAllGoals loops over getGoals (none: it
# succeeds); evalAnyGoals throws when no goal succeeded; `try t` is `first | t | skip`;
# `t <;> s` focuses the main goal first, so it fails without one
ZERO_GOALS = [
    ("all_goals t", "norm_num\nall_goals linarith", True),
    ("try t", "norm_num\ntry linarith", True),
    ("repeat t", "norm_num\nrepeat linarith", True),
    ("skip", "norm_num\nskip", True),
    ("basic tactic", "norm_num\nlinarith", False),
    ("any_goals t", "norm_num\nany_goals linarith", False),
    ("t <;> s", "norm_num\nlinarith <;> simp", False),
]


@pytest.mark.parametrize(("script", "lean_accepts"), [c[1:] for c in ZERO_GOALS], ids=[c[0] for c in ZERO_GOALS])
def test_tactics_after_the_last_goal_follow_leans_combinators(script: str, lean_accepts: bool) -> None:
    got = _verdict("theorem t : (2 : ℕ) + 2 = 4", script)
    assert (got == "accepted") == lean_accepts, got


# (header, script, Lean accepts): each Lean-checked case beside a false or refused variant
LEMMA_CASES = [
    # INSTANCE_LEMMAS: each use is an instance the kernel proves (Init/Data/Nat/Lemmas.lean add_mod)
    ("add_mod-simp", "theorem t (n : ℕ) (h : n % 10 = 3) : (n + 7) % 10 = 0", "simp [Nat.add_mod, h]", True),
    ("add_mod-simp-false", "theorem t (n : ℕ) (h : n % 10 = 3) : (n + 7) % 10 = 1", "simp [Nat.add_mod, h]", False),
    ("mul_mod-simp", "theorem t (n : ℕ) (h : n % 10 = 3) : (n * 7) % 10 = 1", "simp [Nat.mul_mod, h]", True),
    ("mul_mod-simp-false", "theorem t (n : ℕ) (h : n % 10 = 3) : (n * 7) % 10 = 2", "simp [Nat.mul_mod, h]", False),
    ("mul_mod-closed", "theorem t : 17 * 18 % 4 = 2", "simp [Nat.mul_mod]", True),
    ("int-add_emod-rw", "theorem t (x : ℤ) (h : x % 5 = 2) : (x + 4) % 5 = 1", "rw [Int.add_emod, h]\nnorm_num", True),
    ("int-add_emod-rw-false", "theorem t (x : ℤ) (h : x % 5 = 2) : (x + 4) % 5 = 2", "rw [Int.add_emod, h]\nnorm_num", False),
    # Mathlib/Algebra/Group/Basic.lean mul_left_comm: proved once by the kernel
    ("mul_left_comm", "theorem t (a b c : ℕ) : a * (b * c) = b * (a * c)", "rw [mul_left_comm]", True),
    ("simp_all-list", "theorem t (a b c : ℕ) (h : a * (b * c) = 5) : b * (a * c) = 5", "simp_all [mul_left_comm]", True),
    ("simp_all-list-false", "theorem t (a b c : ℕ) (h : a * (b * c) = 5) : b * (a * c) = 6", "simp_all [mul_left_comm]", False),
    ("simp-star", "theorem t (a b : ℕ) (h : a = 2) (h' : b = a + 1) : b = 3", "simp [*]", True),
    ("simp-star-false", "theorem t (a b : ℕ) (h : a = 2) (h' : b = a + 1) : b = 4", "simp [*]", False),
    ("sq-mod-pinned", "theorem t (a : ℤ) (h : a % 4 = 0) : a ^ 2 % 4 = 0", "simp [h, pow_two, Int.mul_emod, Int.add_emod]", True),
    ("sq-mod-pinned-1", "theorem t (a : ℤ) (h : a % 4 = 1) : a ^ 2 % 4 = 1", "simp [h, pow_two, Int.mul_emod]", True),
    ("sq-mod-pinned-false", "theorem t (a : ℤ) (h : a % 4 = 3) : a ^ 2 % 4 = 3", "simp [h, pow_two, Int.mul_emod, Int.add_emod]", False),
    ("sub_sq-int", "theorem t (a b : ℤ) : (a - b) ^ 2 = a ^ 2 - 2 * a * b + b ^ 2", "rw [sub_sq]", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in LEMMA_CASES], ids=[c[0] for c in LEMMA_CASES])
def test_lemma_catalogue_and_simp_forms(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_instance_lemma_statements_are_never_trusted_in_general() -> None:
    # a general statement the kernel cannot prove is never a trusted axiom: asked for its
    # proof, the rule fails; only instances are proved (tactics_rewrite._instance_proof)
    from burnqed.embedded.bridge.translate import kterm
    from burnqed.embedded.bridge.lemma_proofs import lemma_proof
    from burnqed.embedded.elab.lemmas import INSTANCE_LEMMAS, LEMMAS, lemma_instances

    assert not set(INSTANCE_LEMMAS) & set(LEMMAS)
    assert lemma_proof(kterm(lemma_instances("Nat.mul_mod")[0])) is None


def test_product_remainder_certificates_are_kernel_checked() -> None:
    # x * y % m = (x % m) * (y % m) % m for a numeral m: the definitions of the remainders
    # times atoms, then the quotient cuts; the kernel re-checks the certificate, a false
    # variant has none
    from burnqed.embedded import kernel as k
    from burnqed.embedded.bridge.translate import kterm
    from burnqed.embedded.decide.certify import internal_uid
    from burnqed.embedded.decide.certify_mod import prove_mod_product
    from burnqed.embedded.elab.elaborate import elab_prop
    from burnqed.embedded.syntax.parser import Limits, parse_statement

    for sort, stmt, true in (
        ("Nat", "a * b % 10 = a % 10 * (b % 10) % 10", True),
        ("Int", "a * a % 4 = a % 4 * (a % 4) % 4", True),
        ("Int", "a * b % 7 = a % 7 * (b % 7) % 7", True),
        ("Nat", "a * b % 10 = a % 10 * (b % 10) % 10 + 1", False),
        ("Nat", "a * b % 10 = a % 10 * (b % 9) % 10", False),
        ("Int", "a * a % 4 = 2", False),
    ):
        st = kterm(elab_prop(parse_statement(f"∀ (a b : {sort}), {stmt}", Limits()), {}))
        ua, ub = internal_uid(), internal_uid()
        seq = k.Sequent((), st).add(k.Entry(ua, sort)).add(k.Entry(ub, sort))
        target = k.instantiate(k.instantiate(st.body, k.Free(ua)).body, k.Free(ub))
        pf = prove_mod_product(seq.to(target), [], target)
        assert (pf is not None) == true, stmt
        if pf is not None:
            left: list = []
            k.check(seq.to(target), pf, left)
            assert left == []


def test_rw_with_an_instance_lemma_proves_the_instance() -> None:
    ok = _verdict("theorem t (x : ℤ) (h : x % 4 = 3) : (x * x) % 4 = 1", "rw [Int.mul_emod, h]\nnorm_num")
    assert ok == "accepted", ok
    bad = _verdict("theorem t (x : ℤ) (h : x % 4 = 3) : (x * x) % 4 = 3", "rw [Int.mul_emod, h]\nnorm_num")
    assert bad != "accepted"


TERM_CASES = [
    ("exact-mod_eq_of_lt", "theorem t (n : ℕ) (h : n < 5) : n % 5 = n", "exact Nat.mod_eq_of_lt h", True),
    ("exact-mod_eq_of_lt-wrong-bound", "theorem t (n : ℕ) (h : n < 6) : n % 5 = n", "exact Nat.mod_eq_of_lt h", False),
    ("rw-mod_eq_of_lt", "theorem t (n : ℕ) (h : n < 5) : n % 5 + 1 = n + 1", "rw [Nat.mod_eq_of_lt h]", True),
    ("dvd_of_mod_eq_zero", "theorem t (n : ℕ) (h : n % 3 = 0) : 3 ∣ n", "exact Nat.dvd_of_mod_eq_zero h", True),
    ("dvd_of_mod_eq_zero-false", "theorem t (n : ℕ) (h : n % 3 = 1) : 3 ∣ n", "exact Nat.dvd_of_mod_eq_zero h", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in TERM_CASES], ids=[c[0] for c in TERM_CASES])
def test_instance_lemmas_in_terms(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


# simpa (lean4 src/Lean/Elab/Tactic/Simpa.lean), subst_vars (substVars), refine' (natural holes)
TACTIC_CASES = [
    ("simpa-using", "theorem t (a b : ℕ) (h : a + 0 = b) : a = b", "simpa using h", True),
    ("simpa-using-false", "theorem t (a b : ℕ) (h : a + 0 = b + 1) : a = b", "simpa using h", False),
    ("simpa-assumption", "theorem t (a : ℕ) (h : a = 3) : a + 0 = 3", "simpa", True),
    ("simpa-assumption-false", "theorem t (a : ℕ) (h : a = 4) : a + 0 = 3", "simpa", False),
    ("simpa-rules", "theorem t (n : ℕ) (h : n % 10 = 3) : (n * 7) % 10 = 1", "simpa [Nat.mul_mod, h]", True),
    ("subst_vars", "theorem t (a b : ℕ) (h₁ : a = 2) (h₂ : b = a + 1) : b = 3", "subst_vars\nrfl", True),
    ("subst_vars-false", "theorem t (a b : ℕ) (h₁ : a = 2) (h₂ : b = a + 1) : b = 4", "subst_vars\nrfl", False),
    ("refine'", "theorem t (a : ℕ) (h : 0 < a) : 0 < a ∧ a ≠ 0", "refine' ⟨h, _⟩\nomega", True),
    ("refine'-false", "theorem t (a : ℕ) (h : 0 < a) : 0 < a ∧ a = 0", "refine' ⟨h, _⟩\nomega", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in TACTIC_CASES], ids=[c[0] for c in TACTIC_CASES])
def test_simpa_subst_vars_refine_prime(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_nested_field_index_projection() -> None:
    # Lean reads h.2.1 as (h.2).1 (fieldIdx after fieldIdx); the lexer's decimal 2.1 is split
    hyp = "theorem t (a b c : ℕ) (h : a = 1 ∧ b = 2 ∧ c = 3)"
    assert _verdict(f"{hyp} : b = 2", "exact h.2.1") == "accepted"
    assert _verdict(f"{hyp} : c = 3", "exact h.2.1") != "accepted"
    assert _verdict(f"{hyp} : c = 3", "linarith [h.2.2]") == "accepted"


def test_type_ascription_of_a_tactic_block() -> None:
    # `(by tac : T)`: no tactic of the block takes the `:`, so Lean reads an ascription
    hyp = "theorem t (x : ℕ) (h : x < 3) : x < 5"
    assert _verdict(hyp, "exact Nat.lt_of_lt_of_le h (by norm_num : 3 ≤ 5)") == "accepted"
    assert _verdict(hyp, "exact Nat.lt_of_lt_of_le h (by norm_num : 6 ≤ 5)") != "accepted"
    assert _verdict(hyp, "exact Nat.lt_of_lt_of_le h (by omega : 3 ≤ 2)") != "accepted"


def test_open_namespace_resolves_catalogue_names() -> None:
    # `open Nat` (the header of most released miniF2F proofs): `pow_mod` is `Nat.pow_mod`
    text = "theorem t (n : ℕ) (h : n % 10 = 3) : n ^ 2 % 10 = 9"
    script = "simp [pow_mod, h]"
    body = "".join(f"  {line}\n" for line in script.splitlines())
    opened = Checker().frontend_process(
        FrontendProcess(file=f"import Mathlib\nopen Nat\n\n{text} := by\n{body}", read_header=True)
    )
    plain = Checker().frontend_process(FrontendProcess(file=f"import Mathlib\n\n{text} := by\n{body}", read_header=True))

    def errors(ans: FrontendProcessResult | ReplErrorAnswer) -> list[str]:
        assert isinstance(ans, FrontendProcessResult), ans
        return [m.data for u in ans.units for m in u.errors]

    assert errors(opened) == []
    assert any("pow_mod" in e for e in errors(plain))


def test_an_unsupported_lean_tactic_parses_and_fails_only_when_run() -> None:
    # `t <;> aesop` after t closed every goal: aesop never runs, in Lean as here
    hyp = "theorem t (a : ℕ) (h : a = 2) : a + 1 = 3"
    assert _verdict(hyp, "simp_all\n<;> aesop") == "accepted"
    assert "not supported" in _verdict(hyp, "aesop")
    assert _verdict("theorem t (a : ℕ) (h : a = 2) : a + 1 = 4", "norm_num [h]\n<;> aesop") != "accepted"


def test_simp_only_applies_no_unit_law_it_is_not_given() -> None:
    assert _verdict("theorem t (a : ℕ) : a * 1 = a", "simp only []") != "accepted"
    assert _verdict("theorem t (a : ℕ) : a * 1 = a", "simp only [mul_one]") == "accepted"
    assert _verdict("theorem t : (2 : ℕ) * 3 = 6", "simp only []") == "accepted"
