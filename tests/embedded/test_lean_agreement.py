"""The embedded checker against Lean's known behaviour, tactic by tactic (issue 25).

Each case is a statement, a tactic script and what Lean 4 + Mathlib does with it: the proof
``closes``, a goal is left ``open``, or the script is an ``error``. Each cites the Lean or
Mathlib source the behaviour follows. The rule: never more permissive than Lean (a script Lean
refuses is refused), and Lean's own proofs of in-fragment statements go through.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from burnqed.embedded import Checker
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult
from tests.embedded.util import Session

ROOT = Path(__file__).resolve().parents[2]

# (id, statement, script, Lean's outcome, the source it follows)
CORPUS: list[tuple[str, str, str, str, str]] = [
    # rw = `rewrite; with_reducible rfl` (Init/Tactics.lean); reducible defeq decides only
    # ℕ literal + - * and offsets (Lean/Meta/Offset.lean: evalNat, isDefEqOffset)
    ("rw-int-arith-left-open", "∀ (x : ℤ), x = 4 → (3 * x - 2) * (4 * x + 1) - (3 * x - 2) * (4 * x) + 1 = 11",
     "intro x h\nrw [h]", "open", "Init/Tactics.lean rw; Int ops are not reducible"),
    ("rw-int-arith-then-norm_num", "∀ (x : ℤ), x = 4 → (3 * x - 2) * (4 * x + 1) - (3 * x - 2) * (4 * x) + 1 = 11",
     "intro x h\nrw [h]\nnorm_num", "closes", "amc12b_2002_p2's Lean-checked proof"),
    ("rw-nat-literal-closes", "∀ (x : ℕ), x = 4 → 3 * x + 2 = 14",
     "intro x h\nrw [h]", "closes", "Lean/Meta/Offset.lean evalNat (+, *)"),
    ("rw-nat-literal-then-norm_num-no-goals", "∀ (x : ℕ), x = 4 → 3 * x + 2 = 14",
     "intro x h\nrw [h]\nnorm_num", "error", "rw closed the goal: norm_num has no goals"),
    ("rw-nat-sub-closes", "∀ (x : ℕ), x = 2 → 5 - x = 3",
     "intro x h\nrw [h]", "closes", "Lean/Meta/Offset.lean evalNat (Nat.sub)"),
    ("rw-nat-div-open", "∀ (x : ℕ), x = 4 → x / 2 = 2",
     "intro x h\nrw [h]", "open", "evalNat has no /; HDiv's instance is not reducible"),
    ("rw-nat-pow-open", "∀ (x : ℕ), x = 3 → x ^ 2 = 9",
     "intro x h\nrw [h]", "open", "evalNat has no ^"),
    ("rw-nat-offset-closes", "∀ (x y : ℕ), x = y + 2 → x + 3 = y + 5",
     "intro x y h\nrw [h]", "closes", "Lean/Meta/Offset.lean isDefEqOffset"),
    ("rw-nat-x-plus-zero-open", "∀ (x y : ℕ), x = y → x + 0 = y",
     "intro x y h\nrw [h]", "open", "isDefEqOffset is undef on y + 0 =?= y; Nat.add is not reducible"),
    ("rw-iff-refl-closes", "∀ (p q : Prop), (p ↔ q) → (p ↔ q)",
     "intro p q h\nrw [h]", "closes", "Iff.refl"),
    ("rw-two-rules-at-hyp", "∀ (a b c : ℕ), a = b → b = c → a + 1 = 5 → c + 1 = 5",
     "intro a b c h₁ h₂ h₃\nrw [h₁, h₂] at h₃\nexact h₃", "closes", "Lean/Elab/Tactic/Rewrite.lean, one rule after another"),
    ("rw-at-hyp-closes-main-goal-by-rfl", "∀ (a : ℕ), a = 2 → a = 2 → 3 = 3",
     "intro a h h'\nrw [h] at h'", "closes", "rw's rfl runs on the main goal whatever the location"),
    # rwa is `rw …; assumption` (Init/Tactics.lean): rw's rfl may leave no goal
    ("rwa-after-rfl-no-goals", "∀ (x : ℕ), x = 2 → x + 1 = 3", "intro x h\nrwa [h]", "error", "assumption: no goals"),
    ("rwa-assumption", "∀ (a b : ℕ), a = b → a < 5 → b < 5", "intro a b h h2\nrwa [h] at h2", "closes", "rw at h; assumption"),
    # rfl: Eq.refl at default transparency; Nat.add/sub/mul recurse on the second argument,
    # Int.add/mul match on the first (Init/Data/Int/Basic.lean)
    ("rfl-nat-add-zero", "∀ (n : ℕ), n + 0 = n", "intro n\nrfl", "closes", "Nat.add n 0 ⇝ n"),
    ("rfl-int-add-zero", "∀ (x : ℤ), x + 0 = x", "intro x\nrfl", "error", "Int.add x 0 is stuck on x"),
    ("rfl-int-mul-zero", "∀ (x : ℤ), x * 0 = 0", "intro x\nrfl", "error", "Int.mul x 0 is stuck on x"),
    ("rfl-int-closed", "(2 : ℤ) + 3 = 5", "rfl", "closes", "closed Int arithmetic reduces"),
    # omega reads only linear facts over ℕ/ℤ (Lean/Elab/Tactic/Omega/Frontend.lean, addFact)
    ("omega-prop-atoms", "∀ (p q : Prop), p ∨ q → q ∨ p", "omega", "error", "Frontend.lean: a Prop atom is no fact"),
    ("omega-prop-hyp-ignored", "∀ (p : Prop) (x : ℕ), x > 2 → p → x > 1", "omega", "closes", "Frontend.lean"),
    ("omega-forall-hyp-ignored", "∀ (x : ℤ), (∀ y : ℤ, y > x) → False", "omega", "error", "addFact drops a non-arrow ∀"),
    ("omega-prop-goal-from-hyps", "∀ (x : ℕ), x < 0 → ∀ (p : Prop), p", "omega", "closes", "falseOrByContra, then x < 0"),
    ("omega-mod-literal", "∀ (n : ℕ), n % 2 = 0 ∨ n % 2 = 1", "omega", "closes", "% by a literal"),
    ("omega-implication-of-facts", "∀ (a b : ℕ), (a < b → a + 1 ≤ b) ∧ (a ≤ b → b ≤ a → a = b)", "omega", "closes", "→ of facts: Decidable.not_or_of_imp"),
    # omega's atoms (Frontend.lean, asLinearComboImpl): a product of two non-constants and a
    # power without a ground base and an `e + 1` exponent are atoms of their own (no ring law)
    ("omega-pow-succ-atoms", "∀ (x : ℤ) (n : ℕ), x ^ (n + 1) = x ^ n * x", "omega", "error", "asLinearComboImpl HPow/HMul: two atoms"),
    ("omega-mul-comm-atoms", "∀ (x y : ℤ), x * y = y * x", "omega", "error", "asLinearComboImpl HMul: x * y, y * x distinct atoms"),
    ("omega-pow-one-atom", "∀ (x : ℤ), x ^ 1 = x", "omega", "error", "succ? matches only `e + 1`, `Nat.succ e`: x ^ 1 is an atom"),
    ("omega-ground-pow-succ", "∀ (k : ℕ), 12 ∣ 4 ^ (k + 1) + 20 → 12 ∣ 4 * 4 ^ (k + 1) + 20", "intro k h\nomega", "closes", "one atom 4 ^ (k + 1) (Int.pow_succ, ground base)"),
    # omega solves equalities exactly and splits on the quotients of `%` (Omega/Core.lean)
    ("omega-mod-inverse", "∀ (n : ℕ), 2 * n % 47 = 15 → n % 47 = 31", "omega", "closes", "mathd_numbertheory_99's Lean-checked proof"),
    ("omega-mod-inverse-11", "∀ (n : ℕ), 3 * n % 11 = 2 → n % 11 = 8", "omega", "closes", "mathd_numbertheory_247's Lean-checked proof"),
    ("omega-mod-unrelated-atoms", "∀ (x y : ℕ), x % 3 = 2 → y % 5 = 4 → x % 10 = y % 10 → y % 10 = 4 ∨ y % 10 = 9", "omega", "closes", "mathd_numbertheory_559's Lean-checked proof"),
    # rw's kabstract matches up to ℕ offsets (Init/MetaTypes.lean Rewrite.Config offsetCnstrs,
    # Lean/Meta/Offset.lean isDefEqOffsetNat), only on terms with the pattern's head symbol
    ("rw-offset-pattern", "∀ (k : ℕ), 4 ^ (k + 2) + 20 = 4 * 4 ^ (k + 1) + 20 → 12 ∣ 4 ^ (k + 1 + 1) + 20 → 12 ∣ 4 * 4 ^ (k + 1) + 20",
     "intro k h1 h\nrw [h1] at h\nexact h", "closes", "k + 1 + 1 =?= k + 2 by isDefEqOffsetNat"),
    ("rw-offset-no-literal-fold", "∀ (k : ℕ), k + 2 = 7 → 2 + 3 = 5",
     "intro k h\nrw [h]", "error", "kabstract's HeadIndex: no instance of k + 2 in 2 + 3"),
    # nlinarith multiplies every pair of hypotheses, extra terms and the negated goal
    # (Mathlib/Tactic/Linarith/Preprocessing.lean, nlinarithExtras: mapDiagM over all)
    ("nlinarith-products-of-extras", "∀ (a : ℕ), 0 < a → a * (a + 1) * (a + 2) = 8 * (a + (a + 1) + (a + 2)) → a ≤ 6",
     "intro a h h3\nnlinarith [h3, mul_pos h (show 0 < a + 1 by omega), mul_pos h (show 0 < a + 2 by omega), show 0 < a + 1 by omega, show 0 < a + 2 by omega]",
     "closes", "amc12b_2002_p7's Lean-checked proof"),
    # linarith (Mathlib/Tactic/Linarith/Preprocessing.lean): ℕ facts cast to ℤ by natToInt;
    # ↑(a - b) stays an atom (Nat.cast_sub needs b ≤ a); ∧ split (Frontend.lean
    # LinarithConfig.splitHypotheses := true, Preprocessing.lean splitConjunctions);
    # ≠ and ¬ = are no comparisons (filterComparisons, ineqOrNotIneq?)
    ("linarith-nat-sub-atom", "∀ (a b : ℕ), a < b → a - b = 0", "intro a b h\nlinarith", "error", "natToInt"),
    ("omega-nat-sub", "∀ (a b : ℕ), a < b → a - b = 0", "intro a b h\nomega", "closes", "omega knows truncated -"),
    ("linarith-and-split", "∀ (a b : ℤ), a ≤ b ∧ b ≤ a → a = b", "intro a b h\nlinarith", "closes", "splitConjunctions"),
    ("nlinarith-and-split", "∀ (a b n : ℕ), 1 ≤ a ∧ a ≤ 9 → 0 ≤ b ∧ b ≤ 9 → 10 * a = a * (b + 1) → b + 1 ≤ 10",
     "intro a b n h₀ h₁ h\nnlinarith", "closes", "amc12_2001_p2's Lean-checked proof (needs h₀.1)"),
    ("linarith-neg-eq-dropped", "∀ (a b : ℤ), ¬a = b → a ≤ b → a < b", "intro a b h h'\nlinarith", "error", "filterComparisons drops ¬ ="),
    # linearFormOfExpr (Mathlib/Tactic/Linarith/Parsing.lean): atoms up to ring normalisation,
    # each monomial one variable
    ("linarith-monomials-ring-normal", "∀ (a b : ℤ), a * b ≤ 3 → b * a ≤ 3", "intro a b h\nlinarith", "closes", "linearFormOfExpr, elimMonom"),
    ("linarith-ring-identity", "∀ (x y : ℤ), (x - y) ^ 2 = x ^ 2 - 2 * x * y + y ^ 2", "intro x y\nlinarith", "closes", "linearFormOfExpr: Pow by a numeral"),
    ("linarith-monomials-false", "∀ (a b : ℤ), a * b ≤ 3 → b * a ≤ 2", "intro a b h\nlinarith", "error", "no Farkas combination"),
    ("linarith-product-not-nonneg", "∀ (a b : ℕ), a * b + 1 > 0", "intro a b\nlinarith", "error", "natToInt: 0 ≤ ↑a, 0 ≤ ↑b only"),
    ("linarith-strict-int", "∀ (a b : ℤ), a < b → a + 1 ≤ b", "intro a b h\nlinarith", "closes", "strengthenStrictInt"),
    # simp does no ring normalization (Mathlib's simp set has no add_sq, two_mul)
    ("simp-no-ring-identity", "∀ (a b : ℤ), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", "intro a b\nsimp", "error", "simp made no progress"),
    ("simp-no-two-mul", "∀ (x : ℕ), 2 * x = x + x", "intro x\nsimp", "error", "two_mul is no simp lemma"),
    ("simp-cancels-same-summand", "∀ (x : ℕ), x + 3 ≠ x + 5", "intro x\nsimp", "closes", "add_right_inj"),
    ("simp-le-add-self", "∀ (x : ℕ), x ≤ x + 5", "intro x\nsimp", "closes", "le_add_iff_nonneg_right"),
    ("ring-does-ring-identity", "∀ (a b : ℤ), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", "intro a b\nring", "closes", "Mathlib ring"),
    # use: `try with_reducible use_discharger` (Mathlib/Tactic/Use.lean: And.intro, rfl,
    # assumption, True.intro; no decide); exists: `refine ⟨x, ?_⟩; try trivial` (core)
    ("use-int-arith-left-open", "∃ x : ℤ, x * 3 = 6", "use 2", "open", "no decide in use_discharger"),
    ("use-nat-literal-closes", "∃ x : ℕ, x * 3 = 6", "use 2", "closes", "with_reducible rfl, evalNat"),
    ("use-lt-left-open", "∃ (n : ℕ), n > 0", "use 1", "open", "no refl lemma for <"),
    ("use-offset-closes", "∀ (a : ℕ), ∃ (b : ℕ), b + 6 = a + 7", "intro a\nuse a + 1", "closes", "isDefEqOffset"),
    ("exists-int-decides", "∃ x : ℤ, x * 3 = 6", "exists 2", "closes", "trivial tries decide"),
    # interval_cases (Mathlib/Tactic/IntervalCases.lean)
    ("interval-cases-then-omega", "∀ (n : ℕ), n ≥ 3 → n < 5 → n = 3 ∨ n = 4",
     "intro n h1 h2\ninterval_cases n <;> omega", "closes", "IntervalCases.lean"),
    ("interval-cases-leaves-cases", "∀ (n : ℕ), n ≥ 3 → n < 5 → n = 3 ∨ n = 4",
     "intro n h1 h2\ninterval_cases n", "open", "one goal per value, n substituted"),
    ("interval-cases-no-lower-bound", "∀ (x : ℤ), x < 3 → x ≤ 2",
     "intro x h\ninterval_cases x", "error", "could not find lower bound (ℤ has no bot)"),
    ("interval-cases-empty-range", "∀ (n : ℕ), n < 0 → False",
     "intro n h\ninterval_cases n", "closes", "inconsistent bounds close the goal"),
    ("interval-cases-named-term", "∀ (a b : ℕ), 10 * a + b ≤ 11 → 10 ≤ 10 * a + b → a ≤ 1",
     "intro a b h1 h2\ninterval_cases h : 10 * a + b <;> omega", "closes", "interval_cases h : e"),
    ("interval-cases-negated-bounds", "∀ (n : ℕ), ¬ n < 2 → ¬ 3 < n → n = 2 ∨ n = 3",
     "intro n h1 h2\ninterval_cases n <;> simp", "closes", "parseBound reads ¬ < and ¬ ≤"),
    # push_neg (Mathlib/Tactic/PushNeg.lean)
    ("push-neg-not-le", "∀ (n : ℕ), ¬ 4096 ≤ n → n < 4096",
     "intro n h\npush_neg at h\nexact h", "closes", "not_le"),
    ("push-neg-not-or", "∀ (a b : ℤ), ¬ (a = b ∨ a < b) → b < a",
     "intro a b\npush_neg\nintro h\nomega", "closes", "not_or, not_lt"),
    ("push-neg-not-forall", "∀ (n : ℕ), ¬ (∀ m : ℕ, m ≤ n) → ∃ m : ℕ, n < m",
     "intro n h\npush_neg at h\nexact h", "closes", "not_forall, not_le"),
    ("push-neg-not-exists", "∀ (n : ℕ), ¬ (∃ m : ℕ, m > n ∧ m < 3) → ∀ m : ℕ, m > n → 3 ≤ m",
     "intro n h\npush_neg at h\nexact h", "closes", "not_exists, not_and, not_lt"),
    ("push-neg-target-forall", "¬ (∀ m : ℕ, m < 5)", "push_neg\nuse 7\nnorm_num", "closes", "not_forall on the target"),
    ("push-neg-no-progress", "∀ (n : ℕ), n < 3 → n < 4",
     "intro n h\npush_neg at h", "error", "push_neg made no progress"),
    # calc (Lean/Elab/Calc.lean)
    ("calc-eq-chain", "∀ (a b : ℕ), a = 9 → b = 7 → a + b = 16",
     "intro a b h12 h13\ncalc\n    a + b = 9 + 7 := by rw [h12, h13]\n    _ = 16 := by norm_num", "closes", "Trans Eq Eq"),
    ("calc-le-lt", "∀ (a b : ℤ), a ≤ b → a < b + 1",
     "intro a b h\ncalc a ≤ b := h\n  _ < b + 1 := by omega", "closes", "Trans LE LT"),
    ("calc-wrong-step", "∀ (a b : ℤ), a ≤ b → a < b + 1",
     "intro a b h\ncalc a ≤ b := h\n  _ < b + 1 := by rfl", "error", "a step's proof fails"),
    # norm_num (Mathlib/Tactic/NormNum/PowMod.lean; Mathlib's Nat.cast simp lemmas)
    ("norm-num-pow-mod", "5 ^ 999999 % 7 = 6", "norm_num", "closes", "NormNum.PowMod"),
    ("norm-num-pow-mod-false", "5 ^ 999999 % 7 = 5", "norm_num", "open", "the goal is false"),
    ("norm-num-cast-eq", "∀ (x : ℕ), (x : ℤ) = 6 → x = 6",
     "intro x h\nnorm_num at h\nexact h", "closes", "Nat.cast_eq_ofNat"),
    # syntax Lean reads
    ("forall-keyword", "forall (n : Nat), n + 0 = n", "intro n\nrfl", "closes", "`forall` is ∀"),
    ("then-block-on-next-line", "∀ (n : ℕ), n % 2 = 0 ∨ n % 2 = 1",
     "intro n\nhave h : n % 2 = 0 ∨ n % 2 = 1 := by omega\nrcases h with (h | h) <;> (\n  simp [h]\n  <;> omega\n  )", "closes", "`<;> (tac)` across lines"),
    ("then-at-line-start", "∀ (p : Prop), p → p ∧ p", "intro p hp\nconstructor\n<;> exact hp", "closes", "`<;>` never starts a tactic"),
    ("brace-block-focuses", "∀ (p : Prop), p → p ∧ p",
     "intro p hp\nconstructor\n{ exact hp }\n{ exact hp }", "closes", "tacticSeqBracketed"),
    ("brace-block-must-close", "∀ (p : Prop), p → p ∧ p",
     "intro p hp\n{ constructor }", "error", "tacticSeqBracketed closes its goal or fails"),
    ("show-term", "∀ (a : ℕ), 0 < a → 0 < a * (a + 1)",
     "intro a h\nexact mul_pos h (show 0 < a + 1 by omega)", "closes", "show T by tac"),
    ("show-term-mismatch", "∀ (a : ℕ), 0 < a → 0 < a + 2",
     "intro a h\nexact show 0 < a + 1 by omega", "error", "type mismatch"),
    ("nat-pow-le-pow-left", "∀ (x : ℕ), x ≥ 16 → x ^ 3 ≥ 16 ^ 3",
     "intro x h9\napply Nat.pow_le_pow_of_le_left h9 3", "closes", "Nat.pow_le_pow_of_le_left (core)"),
    ("nlinarith-uses-hypothesis-term", "∀ (x n : ℕ), x ^ 2 = n → n < 64 → x < 9",
     "intro x n hx h\nnlinarith [hx, h]", "closes", "extra terms are hypotheses of linarith"),
]


def _outcome(statement: str, script: str) -> tuple[str, str]:
    s = Session()
    start = s.start(statement)
    assert "stateId" in start, start
    ans = s.tac(script)
    assert ans.get("error") != "internal", ans
    if "parseError" in ans or any(m["severity"] == "error" for m in ans.get("messages", [])):
        return "error", s.error_text() or str(ans.get("parseError"))
    if "error" in ans:
        return "error", str(ans)
    return ("open" if ans["goals"] else "closes"), ""


@pytest.mark.parametrize(("statement", "script", "lean", "source"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_embedded_checker_agrees_with_lean(statement: str, script: str, lean: str, source: str) -> None:
    got, why = _outcome(statement, script)
    assert got == lean, f"Lean: {lean} ({source}); embedded: {got} {why}"


def test_rw_rfl_leaves_ints_to_norm_num() -> None:
    s = Session()
    s.start("∀ (x : ℤ), x = 4 → 3 * x - 2 = 10")
    s.tac("intro x h\nrw [h]")
    assert "3 * 4 - 2 = 10" in s.goals_text()


def test_interval_cases_substitutes_the_value_in_hypotheses_and_target() -> None:
    s = Session()
    s.start("∀ (n : ℕ), n ≥ 3 → n < 5 → n = 3 ∨ n = 4")
    s.tac("intro n h1 h2\ninterval_cases n")
    text = s.goals_text()
    assert "h1 : 3 ≥ 3" in text and "⊢ 3 = 3 ∨ 3 = 4" in text and "⊢ 4 = 3 ∨ 4 = 4" in text


def test_interval_cases_named_keeps_the_equation() -> None:
    s = Session()
    s.start("∀ (a b : ℕ), 10 * a + b ≤ 10 → 10 ≤ 10 * a + b → a ≤ 1")
    s.tac("intro a b h1 h2\ninterval_cases h : 10 * a + b")
    assert "h : 10 * a + b = 10" in s.goals_text()


def test_push_neg_gives_mathlibs_forms() -> None:
    s = Session()
    s.start("∀ (a b : ℤ), ¬ (a ≥ b ∧ a ≠ 0) → True")
    s.tac("intro a b h\npush_neg at h")
    assert "h : a ≥ b → a = 0" in s.goals_text()


def test_no_tactic_text_is_an_internal_error_in_a_file() -> None:
    c = Checker()
    text = (
        "theorem t (a b c : ℕ) (h₁ : a = b) (h₂ : b = c) (h₃ : a + 1 = 5) : c + 1 = 5 := by\n"
        "  rw [h₁, h₂] at h₃\n  exact h₃\n"
    )
    ans = c.frontend_process(FrontendProcess(file=text))
    assert isinstance(ans, FrontendProcessResult)
    assert not [m for u in ans.units for m in u.errors]


def test_agreement_script_counts_accepted_refused_and_outside(tmp_path: Path) -> None:
    records = [
        {"name": "ok", "formal_proof": "theorem ok (n : ℕ) : n + 0 = n := by\n  rfl\n"},
        {"name": "bad", "formal_proof": "theorem bad (x : ℤ) (h : x = 4) : x * 2 = 8 := by\n  rw [h]\n"},
        {"name": "real", "formal_proof": "theorem real (x : ℝ) : x = x := by\n  rfl\n"},
    ]
    path = tmp_path / "proofs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "embedded_agreement.py"), str(path), "--json"],
        capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
    )
    got = json.loads(out.stdout)
    assert (got["files"], got["inside_fragment"], got["accepted"]) == (3, 2, 1)
    assert [r["name"] for r in got["refused"]] == ["bad"]


def test_agreement_script_checks_strict_prefixes(tmp_path: Path) -> None:
    proof = "theorem p (x : ℕ) (h : x = 2) : x + 1 = 3 := by\n  subst h\n  -- done\n  rfl\n"
    path = tmp_path / "proofs.jsonl"
    path.write_text(json.dumps({"name": "p", "formal_proof": proof}) + "\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "embedded_agreement.py"), str(path), "--json", "--prefixes"],
        capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
    )
    got = json.loads(out.stdout)
    # cut before `subst h` and before `rfl` (the comment line is no cut point): both refused
    assert (got["accepted"], got["prefixes"], got["prefixes_accepted"]) == (1, 2, 0)


def test_an_alarm_inside_a_z3_call_is_the_interrupt_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # ctypes turns the Interrupted raised by the SIGALRM handler during a z3 foreign call into
    # ctypes.ArgumentError (seen in `bench soundness` under load): still the timeout answer
    import ctypes

    from burnqed.embedded.tactics import interpreter as engine
    from burnqed.embedded.tactics.interpreter import Interrupted

    def interrupted_in_ctypes(self: object, tac: object, goals: object) -> object:
        try:
            raise Interrupted()
        except Interrupted as exc:
            raise ctypes.ArgumentError("argument 1: Interrupted: ") from exc

    s = Session()
    s.start("∀ (n : ℕ), n + 0 = n")
    monkeypatch.setattr(engine.Engine, "run", interrupted_in_ctypes)
    ans = s.tac("intro n")
    assert ans == {"desc": "interrupt", "error": "internal"}
