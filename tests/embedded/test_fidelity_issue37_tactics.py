"""Issue 37, tactic semantics: Lean-checked forms the embedded checker used to refuse, each
beside a false or Lean-refused variant that must stay refused. Whole files go through
``frontend.process`` (the kernel checks every accepted step)."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict


def _verdict(header: str, body: str) -> str:
    return verdict(header, body, opens="")


# (id, header, script, Lean accepts)
CASES = [
    # congrArg (lean4 src/Init/Prelude.lean), its type beta-reduced (Meta/InferType.lean)
    ("congr_arg-cdot", "theorem t (a b : ℕ) (h : (a + b) % 10 = 2) : (a + b) % 10 % 10 = 2 % 10",
     "have h₃ := congr_arg (· % 10) h\nexact h₃", True),
    ("congr_arg-cdot-false", "theorem t (a b : ℕ) (h : (a + b) % 10 = 2) : (a + b) % 10 = 3 % 10",
     "have h₃ := congr_arg (· % 10) h\nexact h₃", False),
    ("congrArg-fun", "theorem t (a b : ℤ) (h : a = b + 1) : 3 * a = 3 * (b + 1)",
     "exact congrArg (fun x => 3 * x) h", True),
    ("congrArg-fun-typed", "theorem t (a b : ℤ) (h : a = b + 1) : a + 5 = b + 1 + 5",
     "exact congrArg (fun (x : ℤ) ↦ x + 5) h", True),
    ("congrArg-fun-false", "theorem t (a b : ℤ) (h : a = b + 1) : 3 * a = 3 * (b + 2)",
     "exact congrArg (fun x => 3 * x) h", False),
    ("congr_arg-then-omega", "theorem t (n : ℕ) (h : 5 * n % 17 = 8) : 5 * n % 17 % 17 = 8",
     "have h₃ := congr_arg (· % 17) h\nomega", True),
    ("congr_arg-not-an-equation", "theorem t (n : ℕ) (h : n < 3) : n % 2 < 3 % 2",
     "exact congr_arg (· % 2) h", False),
    # tactic match (lean4 src/Lean/Elab/Tactic/Match.lean): each alternative closes its goal;
    # the match compiler refuses missing and redundant alternatives
    ("match-or3", "theorem t (a : ℤ) (h : a % 3 = 0 ∨ a % 3 = 1 ∨ a % 3 = 2) : a % 3 < 3",
     "match h with\n| Or.inl h0 =>\n  omega\n| Or.inr (Or.inl h1) =>\n  omega\n| Or.inr (Or.inr h2) =>\n  omega", True),
    ("match-or-dot", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "match h with\n| .inl hp => exact Or.inr hp\n| .inr hq => exact Or.inl hq", True),
    ("match-or-swapped-false", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "match h with\n| .inl hp => exact Or.inl hp\n| .inr hq => exact Or.inr hq", False),
    ("match-missing-case", "theorem t (a : ℤ) (h : a = 0 ∨ a = 1) : a < 2",
     "match h with\n| Or.inl h0 => omega", False),
    ("match-redundant", "theorem t (a : ℤ) (h : a = 0 ∨ a = 1) : a < 2",
     "match h with\n| Or.inl h0 => omega\n| Or.inr h1 => omega\n| Or.inr h2 => omega", False),
    ("match-unsolved", "theorem t (a : ℤ) (h : a = 0 ∨ a = 1) : a < 2",
     "match h with\n| Or.inl h0 => omega\n| Or.inr h1 => skip", False),
    ("match-exists", "theorem t (n : ℕ) (h : ∃ k, n = 2 * k) : n % 2 = 0",
     "match h with\n| ⟨k, hk⟩ => omega", True),
    ("match-exists-false", "theorem t (n : ℕ) (h : ∃ k, n = 2 * k + 1) : n % 2 = 0",
     "match h with\n| ⟨k, hk⟩ => omega", False),
    ("match-term", "theorem t (a : ℤ) (f : ∀ n : ℤ, n % 2 = 0 ∨ n % 2 = 1) : a % 2 < 2",
     "match f a with\n| Or.inl h => omega\n| Or.inr h => omega", True),
    # induction' (Mathlib/Tactic/Cases.lean): goals zero and succ, the names in order
    ("induction'-nat", "theorem t (n : ℕ) : 3 ∣ n ^ 3 + 2 * n",
     "induction' n with k ih\n· norm_num\n· obtain ⟨c, hc⟩ := ih\n  exact ⟨c + k ^ 2 + k + 1, by nlinarith [hc]⟩", True),
    ("induction'-ih-named", "theorem t (n : ℕ) (h : 0 < n) : n ≤ n ^ 2",
     "induction' n with k ih\nall_goals nlinarith", True),
    ("induction'-false", "theorem t (n : ℕ) : 2 ∣ n ^ 2 + 1",
     "induction' n with k ih\n· norm_num\n· omega", False),
    ("induction'-too-many-names", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction' n with k ih extra\nall_goals nlinarith", False),
    ("induction'-succ-left-open", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction' n with k ih\nnorm_num", False),
    # Mathlib/Tactic/Ring/RingNF.lean: ring is `first | ring1 | try_this ring_nf`; ring_nf
    # leaves the normal form (coefficients last: `x * 2`), closes equal sides, fails unchanged
    ("ring_nf-leaves-goal", "theorem t (x : ℕ) (h : x * 2 > 5) : x + x > 5", "ring_nf\nexact h", True),
    ("ring-falls-back", "theorem t (a b : ℤ) (h : a * 2 + b = 7) : 2 * a + b = 7", "ring\nlinarith", True),
    ("ring_nf-closes", "theorem t (a b : ℤ) : (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", "ring_nf", True),
    ("ring_nf-at-h", "theorem t (x : ℤ) (h : x + x = 6) : x * 2 = 6", "ring_nf at h\nexact h", True),
    ("ring_nf-false-goal-stays", "theorem t (a b : ℤ) (h : a = b) : a + 1 = b + 2", "ring_nf\nlinarith", False),
    ("ring-false-left-open", "theorem t (a : ℤ) : a + a = 3 * a", "ring", False),
    ("ring_nf-no-progress", "theorem t (x : ℕ) (h : x * 2 = 4) : x * 2 = 4", "ring_nf\nexact h", False),
    ("ring_nf-at-false", "theorem t (x : ℤ) (h : x + x = 6) : x * 2 = 7", "ring_nf at h\nexact h", False),
    # Mathlib/Tactic/Zify.lean, push_cast / norm_cast (lean4 src/Init/Tactics.lean: norm_cast
    # is `norm_cast0 loc <;> try trivial`)
    ("zify-goal", "theorem t (a b : ℕ) (h : (a : ℤ) + b = 10) (h2 : a = 3) : b = 7", "zify\nlinarith", True),
    ("zify-sub-with-fact", "theorem t (a b : ℕ) (hb : b ≤ a) (h : a - b = 3) : (a : ℤ) - b = 3",
     "zify [hb] at h\nexact h", True),
    ("zify-sub-without-fact", "theorem t (a b : ℕ) (hb : b ≤ a) (h : a - b = 3) : (a : ℤ) - b = 3",
     "zify at h\nexact h", False),
    ("push_cast-at", "theorem t (a b : ℕ) (h : (↑(a + b) : ℤ) = 10) : (a : ℤ) + b = 10", "push_cast at h\nexact h", True),
    ("norm_cast-closes-by-trivial", "theorem t (a b : ℕ) (h : a + b = 10) : (a : ℤ) + b = 10", "norm_cast", True),
    ("norm_cast-false", "theorem t (a b : ℕ) (h : a + b = 10) : (a : ℤ) + b = 11", "norm_cast", False),
    ("zify-no-progress", "theorem t (a b : ℤ) (h : a = b) : a = b", "zify\nexact h", False),
    # case / next (lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean evalCase, renameInaccessibles)
    ("case-tags", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction' n with k ih\ncase zero => simp\ncase succ => nlinarith", True),
    ("case-out-of-order-renaming", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction n\ncase succ m hm => nlinarith [hm]\ncase zero => simp", True),
    ("case-must-close", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction n\ncase succ m hm => skip\ncase zero => simp", False),
    ("case-unknown-tag", "theorem t (n : ℕ) : n ≤ n ^ 2",
     "induction n\ncase inl => simp\ncase succ m hm => nlinarith [hm]", False),
    ("next-renames-inaccessible", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "rcases h with _ | _\nnext hp => exact Or.inr hp\nnext hq => exact Or.inl hq", True),
    ("next-too-many-names", "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p",
     "rcases h with h | h\nnext hp => exact Or.inr hp\nnext hq => exact Or.inl hq", False),
    # induction' on `m ≤ n` (Nat.le: refl / step, Init/Prelude.lean; `0 < n` is Nat.le 1 n)
    ("induction'-le", "theorem t (n : ℕ) (hn : 2 ≤ n) : 4 ≤ n ^ 2",
     "induction' hn with k hk ih\n· norm_num\n· nlinarith", True),
    ("induction'-lt", "theorem t (n : ℕ) (h : 0 < n) : 9 ∣ 10 ^ n - 1",
     "induction' h with k hk\n· norm_num\n· rw [Nat.pow_succ]\n  omega", True),
    ("induction'-le-case-tags", "theorem t (n : ℕ) (hn : n ≥ 1) : n ≤ n ^ 2",
     "induction' hn with k hk ih\ncase refl => norm_num\ncase step => nlinarith", True),
    ("induction'-le-false", "theorem t (n : ℕ) (hn : 2 ≤ n) : 5 ≤ n ^ 2",
     "induction' hn with k hk ih\n· norm_num\n· nlinarith", False),
    ("induction'-le-step-open", "theorem t (n : ℕ) (hn : 2 ≤ n) : 4 ≤ n ^ 2",
     "induction' hn with k hk ih\nnorm_num", False),
    # suffices (lean4 src/Init/Tactics.lean; Mathlib/Tactic/Have.lean for the bare form)
    ("suffices-by", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices hx : x = 3 by omega\nomega", True),
    ("suffices-from", "theorem t (p q : Prop) (hp : p) (hpq : p → q) : q",
     "suffices h : p from hpq h\nexact hp", True),
    ("suffices-bare", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices hx : x = 3\n· omega\n· omega", True),
    ("suffices-bare-order", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices hx : x = 3\n· linarith [h]\n· rw [hx]", False),
    ("suffices-this", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices x = 3 by linarith [this]\nomega", True),
    ("suffices-false", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices hx : x = 4 by omega\nomega", False),
    ("suffices-by-must-close", "theorem t (x : ℤ) (h : 2 * x = 6) : x + 1 = 4",
     "suffices hx : x = 3 by skip\nomega", False),
    # revert (lean4 src/Lean/Elab/Tactic/Generalize.lean evalRevert): dependents go too
    ("revert-prop", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert h\nintro h'\nomega", True),
    ("revert-var-with-dependent", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert x\nintro y hy\nomega", True),
    ("revert-then-omega", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert x\nomega", True),
    ("revert-hyp-gone", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert h\nintro h'\nrw [h]", False),
    ("revert-var-hyp-gone", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert x\nintro y\nintro\nrw [h]", False),
    ("revert-false", "theorem t (x : ℤ) (h : x = 3) : x + 1 = 4",
     "revert h\nintro h'\nexact h'", False),
    # have with binders before the colon (lean4 haveIdDecl): a ∀ statement
    ("have-binders", "theorem t (a : ℤ) : (a + 1) ^ 2 ≥ 0",
     "have h (x : ℤ) : x ^ 2 ≥ 0 := by positivity\nexact h (a + 1)", True),
    ("have-binders-two", "theorem t : (3 : ℕ) + 4 = 4 + 3",
     "have h (x y : ℕ) : x + y = y + x := by omega\nexact h 3 4", True),
    ("have-binders-false", "theorem t (a : ℤ) : a ^ 3 ≥ 0",
     "have h (x : ℤ) : x ^ 3 ≥ 0 := by positivity\nexact h a", False),
    ("have-binders-term-refused", "theorem t (a : ℤ) : a + 0 = a",
     "have h (x : ℤ) : x + 0 = x := by omega\nexact h", False),
    # contrapose / contrapose! (Mathlib/Tactic/Contrapose.lean; push_neg at h ⊢ after the !)
    ("contrapose", "theorem t (x : ℤ) (h : x ≠ 3) : 2 * x ≠ 6",
     "contrapose h\nintro h2\napply h\nomega", True),
    ("contrapose!", "theorem t (x : ℤ) (h : x ≠ 3) : 2 * x ≠ 6",
     "contrapose! h\nomega", True),
    ("contrapose!-pushed", "theorem t (x : ℤ) (h : 5 < x) : ¬ x ≤ 2",
     "contrapose! h\nexact le_trans h (by norm_num)", True),
    ("contrapose-false", "theorem t (x : ℤ) (h : x ≠ 3) : 2 * x ≠ 8",
     "contrapose! h\nomega", False),
    ("contrapose-old-h-gone", "theorem t (x : ℤ) (h : x ≠ 3) : 2 * x ≠ 6",
     "contrapose h\nexact h", False),
    # exact up to ℕ offsets (lean4 Meta/ExprDefEq.lean isDefEqOffsetNat, Meta/Offset.lean)
    ("exact-nat-offset", "theorem t (n : ℕ) (h : n + 12 + 1 = 20) : n + 13 = 20", "exact h", True),
    ("exact-nat-offset-le", "theorem t (n : ℕ) (h : 5 ≤ n + 2 + 3) : 5 ≤ n + 5", "exact h", True),
    ("exact-nat-offset-false", "theorem t (n : ℕ) (h : n + 12 + 1 = 20) : n + 14 = 20", "exact h", False),
    ("exact-nat-offset-below", "theorem t (n : ℕ) (h : n + 1 = 0) : 3 = n + 5", "exact h", False),
    ("exact-int-offset-not-defeq", "theorem t (n : ℤ) (h : n + 12 + 1 = 20) : n + 13 = 20", "exact h", False),
    # a tactic sequence is non-empty (lean4 src/Lean/Parser/Term.lean: tacticSeq1Indented is
    # sepBy1IndentSemicolon); only `{ }` may be empty: a bare trailing combinator is a parse error
    ("all_goals-body", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\nall_goals norm_num", True),
    ("all_goals-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\nall_goals", False),
    ("try-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\ntry", False),
    ("repeat-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\nrepeat", False),
    ("any_goals-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\nany_goals", False),
    ("have-by-empty", "theorem t : (2 : ℕ) + 2 = 4", "have h : 1 = 1 := by\nnorm_num", False),
    ("cdot-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\n·", False),
    ("paren-empty", "theorem t : (2 : ℕ) + 2 = 4", "norm_num\n()", False),
    # Mathlib's `clear * - h…` (Mathlib/Tactic/ClearExcept.lean): tryClearMany on every other
    # local, last to first, keeping what the goal or a kept local needs
    ("clear-except", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear * - h₀ h₁\nomega", True),
    ("clear-except-glued", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear *- h₀ h₁\nomega", True),
    ("clear-except-drops", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear * - h₀\nomega", False),
    ("clear-except-all", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear * -\nomega", False),
    ("clear-except-gone", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear * - h₁\nexact h₀", False),
    ("clear-except-unknown", "theorem t (x y : ℤ) (h₀ : x = 3) (h₁ : y = 4) : x + y = 7", "clear * - h₉\nomega", False),
    # `calc a` then `_ = b := …` (lean4 src/Lean/Parser/Term.lean calcFirstStep: a term alone is
    # the step `a = a := rfl`)
    ("calc-first-term", "theorem t : 91 ^ 2 = 8281", "calc 91 ^ 2\n    _ = 8281 := by norm_num", True),
    ("calc-first-term-false", "theorem t : 91 ^ 2 = 8282", "calc 91 ^ 2\n    _ = 8282 := by norm_num", False),
    ("calc-first-term-le", "theorem t (x : ℤ) (h : x = 2) : x + 1 ≤ 4",
     "calc x + 1\n    _ = 2 + 1 := by rw [h]\n    _ ≤ 4 := by norm_num", True),
    ("calc-first-term-other-lhs", "theorem t (x : ℤ) (h : x = 2) : x + 2 = 3",
     "calc x + 1\n    _ = 2 + 1 := by rw [h]\n    _ = 3 := by norm_num", False),
    ("calc-first-term-alone", "theorem t : 91 ^ 2 = 8281", "calc 91 ^ 2", False),
    # `t <;>` ending a line: Lean reads the next line, even at the block's column, as `t <;> t'`
    ("then-at-line-end", "theorem t (n : ℕ) (h : n < 3) : n * n < 9", "interval_cases n <;>\nsimp", True),
    ("then-at-line-end-deeper", "theorem t (n : ℕ) (h : n < 3) : n * n < 9", "interval_cases n <;>\n  simp", True),
    ("then-at-line-end-false", "theorem t (n : ℕ) (h : n < 4) : n * n < 9", "interval_cases n <;>\nsimp", False),
    ("then-at-file-end", "theorem t (n : ℕ) (h : n < 3) : n * n < 9", "interval_cases n <;> simp <;>", False),
    # Mathlib's `cases' e with x…` (Mathlib/Tactic/Cases.lean): names to the constructors' fields in order
    ("cases'-nat", "theorem t (n : ℕ) (h : 0 < n) : n ≥ 1", "cases' n with m\n· omega\n· exact Nat.succ_le_succ (Nat.zero_le m)", True),
    ("cases'-nat-false", "theorem t (n : ℕ) (h : 0 < n) : n ≥ 2", "cases' n with m\n· omega\n· omega", False),
    ("cases'-or", "theorem t (a b : ℕ) (h : a = 1 ∨ b = 1) : a + b ≥ 1", "cases' h with h1 h2\n· rw [h1]; omega\n· rw [h2]; omega", True),
    ("cases'-or-names-per-branch", "theorem t (a b : ℕ) (h : a = 1 ∨ b = 1) : a + b ≥ 1",
     "cases' h with h1 h2\n· rw [h2]; omega\n· omega", False),
    ("cases'-and", "theorem t (a b : ℕ) (h : a = 1 ∧ b = 1) : a + b = 2", "cases' h with h1 h2\nrw [h1, h2]", True),
    ("cases'-and-cleared", "theorem t (a b : ℕ) (h : a = 1 ∧ b = 1) : a + b = 2", "cases' h with h1 h2\nrw [h1, h]", False),
    ("cases'-exists", "theorem t (h : ∃ k : ℕ, 2 * k = 6) : ∃ j : ℕ, j = 3", "cases' h with k hk\nexact ⟨k, by omega⟩", True),
    ("cases'-exists-false", "theorem t (h : ∃ k : ℕ, 2 * k = 6) : ∃ j : ℕ, j = 4", "cases' h with k hk\nexact ⟨k, by omega⟩", False),
    # Mathlib's `by_contra! h` (Mathlib/Tactic/ByContra.lean): `by_contra h; try push_neg at h`
    ("by_contra!", "theorem t (x : ℕ) (h : 3 * x > 41) : 14 ≤ x", "by_contra! h'\nomega", True),
    ("by_contra!-pushed", "theorem t (x : ℕ) (h : 3 * x > 41) : 14 ≤ x", "by_contra! h'\nhave : x < 14 := h'\nomega", True),
    ("by_contra!-this", "theorem t (x : ℕ) (h : 3 * x > 41) : 14 ≤ x", "by_contra!\nhave : x < 14 := this\nomega", True),
    ("by_contra!-false", "theorem t (x : ℕ) (h : 3 * x > 41) : 15 ≤ x", "by_contra! h'\nomega", False),
    ("by_contra!-no-push", "theorem t (p : Prop) (hp : p) : p", "by_contra! h\nexact h hp", True),
    # calc steps at the column of `calc` (lean4 calcStep is colGe against the first step)
    ("calc-steps-at-calc-column", "theorem t : 91 ^ 2 = 8281",
     "calc 91 ^ 2\n_ = (90 + 1) ^ 2 := by norm_num\n_ = 8281 := by norm_num", True),
    ("calc-steps-at-calc-column-false", "theorem t : 91 ^ 2 = 8282",
     "calc 91 ^ 2\n_ = (90 + 1) ^ 2 := by norm_num\n_ = 8282 := by norm_num", False),
    ("calc-then-tactic-at-calc-column", "theorem t (x : ℤ) (h : x = 2) : x + 1 = 3",
     "calc x + 1 = 2 + 1 := by rw [h]\n_ = 3 := by norm_num\nnorm_num", False),
    # `constructor` on `a = b` is `apply Eq.refl`: the sides must be defeq (Meta/Tactic/Constructor.lean)
    ("constructor-eq-closed", "theorem t : 8 * 9 ^ 2 + 5 * 9 + 2 = 695", "constructor", True),
    ("constructor-eq-false", "theorem t : 8 * 9 ^ 2 + 5 * 9 + 2 = 696", "constructor", False),
    ("constructor-eq-defeq", "theorem t (x : ℕ) : x + 0 = x", "constructor", True),
    ("constructor-eq-not-defeq", "theorem t (x : ℕ) : 0 + x = x", "constructor", False),
    ("clear-except-keeps-goal-vars", "theorem t (x : ℕ) (h₀ : x = 3) : x + 0 = x", "clear * -\nomega", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_lean_checked_forms_and_their_wrong_variants(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got
