"""``rw`` whose last rule leaves a metavariable in the target (lean4 src/Lean/Meta/Tactic/Rewrite.lean
keeps it, ``rw``'s ``with_reducible rfl`` from src/Init/Tactics.lean assigns it; the premises
stay as goals): accepted where ``rfl`` fixes it, refused otherwise."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict

CASES = [
    # `x = 12 / 3` ↦ `x = ?k`, rfl assigns ?k := x, goals `0 < 3` and `12 = x * 3`
    ("div-eq-of-eq-mul", "theorem t (x : ℕ) (h : 3 * x = 12) : x = 12 / 3",
     "rw [Nat.div_eq_of_eq_mul_left] <;> omega", True),
    ("div-eq-of-eq-mul-false", "theorem t (x : ℕ) (h : 3 * x = 15) : x = 12 / 3",
     "rw [Nat.div_eq_of_eq_mul_left] <;> omega", False),
    # ?k := x + 1, and `12 = (x + 1) * 3` is false
    ("div-eq-of-eq-mul-side", "theorem t (x : ℕ) (h : 3 * x = 12) : x + 1 = 12 / 3",
     "rw [Nat.div_eq_of_eq_mul_left] <;> omega", False),
    # the premises are left: without closing them the proof is unfinished
    ("div-eq-of-eq-mul-premises-left", "theorem t (x : ℕ) (h : 3 * x = 12) : x = 12 / 3",
     "rw [Nat.div_eq_of_eq_mul_left]", False),
    # not the last rule: the metavariable would reach a later rewrite; refused
    ("open-not-last", "theorem t (x : ℕ) (h : 3 * x = 12) : x = 12 / 3",
     "rw [Nat.div_eq_of_eq_mul_left, h] <;> omega", False),
    # at a hypothesis there is no rfl to assign it
    ("open-at-hyp", "theorem t (x : ℕ) (h : x = 12 / 3) (h' : 3 * x = 12) : x = 4",
     "rw [Nat.div_eq_of_eq_mul_left] at h <;> omega", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_rw_open_metavariable(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)
