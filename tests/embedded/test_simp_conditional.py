"""``simp_all`` / ``simp [*]`` with a ∀-hypothesis ``∀ k, P k → C k`` as a conditional rewrite
rule (issue 37; burnqed/embedded/tactics/simp.py ``conditional_rules``): Lean's simp_all uses every
hypothesis as a simp lemma (lean4 ``src/Lean/Meta/Tactic/Simp/SimpAll.lean``), a lemma with
hypotheses rewrites where the default discharger simplifies each instantiated premise to True
(at most ``maxDischargeDepth`` = 2 levels deep). The kernel gets the instance ``P a → C a`` of
the hypothesis for each use. Whole files through ``frontend.process``."""

from __future__ import annotations

import pytest

from tests.embedded.test_conv import _verdict

STEP = "(inductive_step : ∀ k : ℕ, 2 ≤ k → 5 ^ k % 100 = 25 → 5 ^ (k + 1) % 100 = 25)"

# (id, header, script, Lean accepts)
CASES = [
    ("induction'-le-then-simp_all", f"theorem t (base_case : 5 ^ 2 % 100 = 25) {STEP} : ∀ n : ℕ, n ≥ 2 → 5 ^ n % 100 = 25",
     "intro n hn\ninduction' hn with k hk\ncase refl => simp [base_case]\ncase step => simp_all [inductive_step]", True),
    ("induction'-le-simp_all-then-more", f"theorem t (base_case : 5 ^ 2 % 100 = 25) {STEP} : ∀ n : ℕ, n ≥ 2 → 5 ^ n % 100 = 25",
     "intro n hn\ninduction' hn with k hk\ncase refl => simp [base_case]\ncase step => simp_all [inductive_step]; omega", False),
    ("conditional-rule", "theorem t (f : ∀ k : ℕ, 2 ≤ k → k % 3 = 1) (k : ℕ) (hk : 2 ≤ k) : k % 3 = 1", "simp_all", True),
    ("conditional-rule-wrong-goal", "theorem t (f : ∀ k : ℕ, 2 ≤ k → k % 3 = 1) (k : ℕ) (hk : 2 ≤ k) : k % 3 = 2", "simp_all", False),
    ("premise-not-discharged", "theorem t (f : ∀ k : ℕ, 2 ≤ k → k % 3 = 1) (k : ℕ) (hk : k ≠ 0) : k % 3 = 1", "simp_all", False),
    ("simp-star", "theorem t (f : ∀ k : ℕ, 2 ≤ k → k % 3 = 1) (k : ℕ) (hk : 2 ≤ k) : k % 3 = 1", "simp [*]", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_conditional_rules_and_their_wrong_variants(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got
