"""rcases' `rfl` pattern (lean4 src/Lean/Elab/Tactic/RCases.lean, `rcasesCore`'s
`| .one ref `rfl =>` case: the equation is substituted by `subst'`, which tries the right
side's variable first, then the left side's). Lean's forms accepted, wrong ones refused."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict

# (id, header, script, Lean accepts)
CASES = [
    ("obtain-exists-rfl", "theorem t (n : ℕ) (h₀ : n % 8 = 7) (h₁ : ∃ k, n = 8 * k + 7) : n % 4 = 3",
     "obtain ⟨k, rfl⟩ := h₁\nomega", True),
    # after the substitution `n` is gone: h₀ speaks of `8 * k + 7`, so `exact h₀` is a mismatch
    ("obtain-rfl-substitutes-hyps", "theorem t (n : ℕ) (h₀ : n % 8 = 7) (h₁ : ∃ k, n = 8 * k + 7) : (8 * k + 7) % 8 = 7",
     "obtain ⟨k, rfl⟩ := h₁\nexact h₀", False),
    ("obtain-rfl-no-name-left", "theorem t (n : ℕ) (h₁ : ∃ k, n = 8 * k + 7) : n % 2 = 1",
     "obtain ⟨k, rfl⟩ := h₁\nexact rfl", False),
    ("rcases-rfl", "theorem t (a b : ℕ) (h : a = b + 2 ∧ b = 3) : a = 5",
     "rcases h with ⟨rfl, rfl⟩\nrfl", True),
    ("rcases-rfl-false", "theorem t (a b : ℕ) (h : a = b + 2 ∧ b = 3) : a = 6",
     "rcases h with ⟨rfl, rfl⟩\nrfl", False),
    # the right side's variable goes first (`subst'`): `a = b` replaces b by a
    ("rintro-rfl-rhs-first", "theorem t (a b : ℕ) : a = b → b + 1 = a + 1",
     "rintro rfl\nrfl", True),
    ("rintro-rfl-false", "theorem t (a b : ℕ) : a = b → b + 1 = a + 2",
     "rintro rfl\nomega", False),
    # neither side a variable: Lean's "invalid equality proof"
    ("rfl-no-variable", "theorem t (a : ℕ) (h : a + 1 = 2 * a) : a = 1",
     "rcases h with rfl\nomega", False),
    ("rfl-not-an-equation", "theorem t (a : ℕ) (h : a < 2) : a < 3",
     "rcases h with rfl\nomega", False),
    # a variable that occurs on the other side is no substitution
    ("rfl-occurs", "theorem t (a : ℕ) (h : a = a + 0) : a = a",
     "rcases h with rfl\nrfl", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_rcases_rfl_pattern(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)


def test_rfl_pattern_error_names_lean_message() -> None:
    got = verdict("theorem t (a : ℕ) (h : a + 1 = 2 * a) : a = 1", "rcases h with rfl\nomega")
    assert "invalid equality proof" in got


# rcases on ℕ with more patterns than Nat's two constructors: the extra ones match the last
# constructor's field, which is split again (lean4 src/Lean/Elab/Tactic/RCases.lean,
# processConstructors and rcasesCore)
NAT_CASES = [
    # x = 0, x = 1, x = n + 2: the product is a numeral in the first two cases only, and
    # omega treats it as an atom in the third, where `n + 2 < 2` is the contradiction
    ("nat-alts-3", "theorem t (x : ℕ) (hx : x < 2) : x * x = x",
     "rcases x with (_ | _ | _) <;> omega", True),
    ("nat-alts-2-too-few", "theorem t (x : ℕ) (hx : x < 2) : x * x = x",
     "rcases x with (_ | _) <;> omega", False),
    # the last pattern binds what is left: x = n + 2
    ("nat-alts-last-named", "theorem t (x : ℕ) (hx : 2 ≤ x) : x ≠ 0",
     "rcases x with (_ | _ | n)\n· omega\n· omega\n· omega", True),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), NAT_CASES, ids=[c[0] for c in NAT_CASES])
def test_rcases_nat_alternatives(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)


def test_subst_vars_inaccessible_hypotheses() -> None:
    # `cases h` names the parts `left✝ right✝`; subst_vars substitutes them all the same
    # (lean4 src/Lean/Meta/Tactic/Subst.lean, substVars)
    header = "theorem t (x y : ℕ) (h : x = 4 ∧ y = 4) : x + y = 8"
    assert verdict(header, "cases h\nsubst_vars\nnorm_num") == "accepted"
    assert verdict("theorem t (x y : ℕ) (h : x = 4 ∧ y = 4) : x + y = 9", "cases h\nsubst_vars\nnorm_num") != "accepted"
