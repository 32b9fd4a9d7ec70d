"""Mathlib's ``use`` (issue 37; burnqed/embedded/tactics/use.py) as ``Mathlib/Tactic/Use.lean``'s
``useLoop`` runs it: arguments fill the explicit fields of one-constructor types in order,
proofs included; what is left goes to ``try with_reducible use_discharger``. Each Lean-checked
form beside a wrong one; whole files go through ``frontend.process`` (kernel-checked)."""

from __future__ import annotations

import pytest

from tests.embedded.test_conv import _verdict

# (id, header, script, Lean accepts)
CASES = [
    ("use-witness-and-proof", "theorem t (n : ℕ) (h : n > 2) : ∃ m, m > n", "use n + 1, by linarith", True),
    ("use-wrong-witness", "theorem t (n : ℕ) (h : n > 2) : ∃ m, m > n", "use n, by linarith", False),
    # the `by` block proves the first conjunct; the second is left (use_discharger cannot close it)
    ("use-and-left-open", "theorem t (n : ℕ) : ∃ m, m > n ∧ m < n + 5", "use n + 1, by omega", False),
    ("use-and-left-open-then", "theorem t (n : ℕ) : ∃ m, m > n ∧ m < n + 5", "use n + 1, by omega\nomega", True),
    ("use-and-both", "theorem t (n : ℕ) : ∃ m, m > n ∧ m < n + 5", "use n + 1, by omega, by omega", True),
    ("use-two-witnesses", "theorem t (n : ℕ) : ∃ a b, a + b = n + 3", "use n, 3", True),
    ("use-two-witnesses-wrong", "theorem t (n : ℕ) : ∃ a b, a + b = n + 3", "use n, 2", False),
    ("use-hypothesis-as-proof", "theorem t (n : ℕ) (h : 0 < n) : ∃ m, 0 < m", "use n, h", True),
    ("use-wrong-hypothesis", "theorem t (n : ℕ) (h : 0 < n) (h' : n < 5) : ∃ m, 0 < m", "use n, h'", False),
    # True.intro has no field: the next argument has no goal
    ("use-too-many", "theorem t : ∃ m : ℕ, True", "use 1, trivial", False),
    ("use-dvd", "theorem t : (2 : ℕ) ∣ 6", "use 3", True),
    ("use-dvd-wrong", "theorem t : (2 : ℕ) ∣ 6", "use 2", False),
    ("refine-anonymous", "theorem t (n : ℕ) (h : n > 2) : ∃ m, m > n", "refine ⟨n + 1, by linarith⟩", True),
    # Eq.refl has no field; Lean applies it when the sides are definitionally equal and then has
    # no goal for the argument: refused here either way
    ("use-eq-argument-refused", "theorem t : ∃ x : ℕ, x + x = 4", "use 2, rfl", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_use_forms_and_their_wrong_variants(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_use_error_messages() -> None:
    assert _verdict("theorem t : ∃ m : ℕ, True", "use 1, trivial").startswith("too many arguments supplied to `use`")
    got = _verdict("theorem t (n : ℕ) : ∃ m, m > n ∧ m < n + 5", "use n + 1, by omega")
    assert "n + 1 < n + 5" in got, got
