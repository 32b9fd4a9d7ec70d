"""Lean's omega unfolds `b ^ (k + 1)` with a ground base to `b ^ k * b` (lean4
src/Lean/Elab/Tactic/Omega/Frontend.lean, asLinearComboImpl: `succ? k`, `Int.pow_succ`; ℕ via
`Int.ofNat_pow`); every other power with a variable exponent is an atom."""

from __future__ import annotations

import pytest

from tests.embedded.verdict import verdict

CASES = [
    ("ground-base-succ", "theorem t (n : ℕ) (ih : 12 ∣ 4 ^ (n + 1) + 20) : 12 ∣ 4 ^ (n + 1 + 1) + 20", "omega", True),
    ("ground-base-succ-false", "theorem t (n : ℕ) (ih : 12 ∣ 4 ^ (n + 1) + 20) : 12 ∣ 4 ^ (n + 1 + 1) + 21", "omega", False),
    ("pow-succ-eq", "theorem t (n : ℕ) : 2 ^ (n + 1) = 2 * 2 ^ n", "omega", True),
    ("int-pow-succ", "theorem t (n : ℕ) : (3 : ℤ) ^ (n + 1) = 3 * 3 ^ n", "omega", True),
    # `+ 2` is no `succ?` pattern: an atom of its own, as in Lean
    ("pow-add-two-atom", "theorem t (n : ℕ) : 2 ^ (n + 2) = 4 * 2 ^ n", "omega", False),
    # a variable base stays an atom
    ("variable-base-atom", "theorem t (x n : ℕ) : x ^ (n + 1) = x ^ n * x", "omega", False),
]


@pytest.mark.parametrize(("case", "header", "script", "lean"), CASES, ids=[c[0] for c in CASES])
def test_omega_pow_succ(case: str, header: str, script: str, lean: bool) -> None:
    got = verdict(header, script)
    assert (got == "accepted") is lean, (case, got)
