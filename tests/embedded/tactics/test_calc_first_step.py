"""calc's first step as Lean reads it (lean4 src/Lean/Elab/Calc.lean, `calcFirstStep :=
ppIndent(colGe term (" := " term)?)`: `calc a` alone is `a = a := rfl`; a first left side `_` is
the goal's, by unification with the goal) and later steps at the column of `calc`
(`withPosition((calcStep ppLine)*)`)."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict

CASES = [
    ("first-term", "theorem t : 91 ^ 2 = 8281", "calc 91 ^ 2\n  _ = (90 + 1) ^ 2 := by norm_num\n  _ = 8281 := by norm_num", True),
    ("first-term-false", "theorem t : 91 ^ 2 = 8282", "calc 91 ^ 2\n  _ = 8282 := by norm_num", False),
    ("first-term-wrong-goal", "theorem t : 91 ^ 2 = 8281", "calc 90 ^ 2 + 181\n  _ = 8281 := by norm_num", False),
    ("steps-at-calc-column", "theorem t : 91 ^ 2 = 8281", "calc 91 ^ 2\n_ = (90 + 1) ^ 2 := by norm_num\n_ = 8281 := by norm_num", True),
    ("first-blank", "theorem t (h : 9 ^ 2 = 81) : 8 * 9 ^ 2 + 2 = 650",
     "calc\n  _ = 8 * 81 + 2 := by rw [h]\n  _ = 650 := by norm_num", True),
    ("first-blank-false", "theorem t (h : 9 ^ 2 = 81) : 8 * 9 ^ 2 + 2 = 651",
     "calc\n  _ = 8 * 81 + 2 := by rw [h]\n  _ = 651 := by norm_num", False),
    ("first-blank-no-relation", "theorem t (p : Prop) (hp : p) : p", "calc\n  _ = 1 := by rfl", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_calc_first_step(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)
