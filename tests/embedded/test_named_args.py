"""Named arguments ``h (x := e)`` (issue 37; burnqed/embedded/tactics/proofterm_named.py), as
Lean's ``elabAppArgs`` (lean4 ``src/Lean/Elab/App.lean``) binds them: the name picks the
∀-binder, implicit or not, and the positional arguments fill the other explicit binders in
order. Whole files through ``frontend.process`` (kernel-checked); each use beside a wrong one."""

from __future__ import annotations

import pytest

from tests.embedded.test_conv import _verdict

# (id, header, script, Lean accepts)
CASES = [
    ("named-only", "theorem t (h : ∀ n : ℕ, n + 0 = n) : 3 + 0 = 3", "exact h (n := 3)", True),
    ("named-wrong-value", "theorem t (h : ∀ n : ℕ, n + 0 = n) : 3 + 0 = 4", "exact h (n := 3)", False),
    ("named-second-then-positional", "theorem t (x y : ℕ) (h : ∀ a b : ℕ, a + b = b + a) : y + x = x + y",
     "exact h (b := x) y", True),
    ("named-second-then-positional-swapped", "theorem t (x y : ℕ) (h : ∀ a b : ℕ, a + b = b + a) : x + y = y + x",
     "exact h (b := x) y", False),
    ("named-implicit", "theorem t (h : ∀ {a : ℕ}, a < 5 → a < 6) : 2 < 6", "exact h (a := 2) (by norm_num)", True),
    ("named-unknown-name", "theorem t (h : ∀ n : ℕ, n + 0 = n) : 3 + 0 = 3", "exact h (m := 3)", False),
    # Lean abstracts the explicit `a` left before the named `b` (`fun a => h a 2`): refused here
    ("named-eta-refused", "theorem t (h : ∀ a b : ℕ, a + b = b + a) : ∀ a : ℕ, a + 2 = 2 + a", "exact h (b := 2)", False),
    ("named-in-rw", "theorem t (x : ℕ) (h : ∀ n : ℕ, n * 1 = n) (hx : x * 1 = 5) : x = 5",
     "rw [h (n := x)] at hx\nexact hx", True),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_named_arguments_and_their_wrong_variants(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_named_argument_messages() -> None:
    got = _verdict("theorem t (h : ∀ n : ℕ, n + 0 = n) : 3 + 0 = 3", "exact h (m := 3)")
    assert got.startswith("invalid argument name 'm' for function 'h'"), got
    got = _verdict("theorem t (a b : ℕ) : a + b = b + a", "exact Nat.add_comm (n := a) b")
    assert "named arguments are supported only for hypotheses" in got, got
