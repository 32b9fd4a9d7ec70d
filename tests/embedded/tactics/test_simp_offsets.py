"""simp's rules match ℕ offsets as Lean's do (lean4 src/Lean/Meta/DiscrTree.lean keys an offset
`t + k` as a wildcard; isDefEqOffsetNat unifies `?n + 1 =?= 5`): `simp [pow_succ]` unfolds a
numeral power. Other matching stays syntactic."""

from __future__ import annotations

import pytest

from burnqed.embedded.elab.expr import FVar, Num, Op
from burnqed.embedded.elab.unify import OFFSETS, unify
from burnqed.embedded.tactics.proofterm import fresh_mvar
from tests.embedded.verdict import verdict

CASES = [
    ("pow-succ-numeral", "theorem t (x : ℤ) : x ^ 3 = x * x * x", "simp [pow_succ]", True),
    ("pow-succ-numeral-false", "theorem t (x : ℤ) : x ^ 3 = x * x * x + 1", "simp [pow_succ]", False),
    # numbertheory_x5neqy2p4's case split: the remainder of x ^ 5 from x's
    ("pow-succ-mod", "theorem t (x : ℤ) (h : x % 11 = 2) : x ^ 5 % 11 = 10",
     "simp [h, pow_succ, Int.mul_emod, Int.add_emod]", True),
    ("pow-succ-mod-false", "theorem t (x : ℤ) (h : x % 11 = 2) : x ^ 5 % 11 = 9",
     "simp [h, pow_succ, Int.mul_emod, Int.add_emod]", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_simp_offsets(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)


def test_offset_matching_is_not_evaluation() -> None:
    n = fresh_mvar("Nat", "n")
    pat = Op("+", (n, Num(1, "Nat")), "Nat")
    assert unify(pat, Num(5, "Nat"), {}, OFFSETS) == {n.uid: Num(4, "Nat")}
    assert unify(pat, Num(0, "Nat"), {}, OFFSETS) is None  # no ℕ solution
    # a closed sum is no numeral to syntactic matching (full defeq would evaluate it)
    assert unify(Num(5, "Nat"), Op("*", (Num(1, "Nat"), Num(5, "Nat")), "Nat"), {}, OFFSETS) is None
    assert unify(pat, FVar(7, "Nat"), {}, OFFSETS) is None
