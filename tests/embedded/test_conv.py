"""``conv`` blocks (issue 37; burnqed/embedded/tactics/conv.py): Lean-checked uses accepted,
wrong ones refused. Whole files go through ``frontend.process`` (the kernel checks every
accepted step); the expected outcomes follow lean4 ``src/Lean/Elab/Tactic/Conv/Basic.lean``
(``convTarget`` ends with ``try rfl``, ``convLocalDecl`` does not), ``Conv/Congr.lean``
(``lhs``/``rhs``/``arg`` select explicit arguments), ``Conv/Rewrite.lean``, ``Conv/Simp.lean``
(no failure without progress) and Mathlib ``Mathlib/Tactic/Conv.lean`` (``conv_lhs``)."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult


def _verdict(header: str, body: str) -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = Checker().frontend_process(FrontendProcess(file=text, read_header=True))
    assert isinstance(ans, FrontendProcessResult), ans
    errors = [m.data for u in ans.units for m in u.errors]
    if errors:
        return errors[0]
    return "accepted" if not any(u.goals for u in ans.units) else "goals left"


# (id, header, script, Lean accepts)
CASES = [
    ("conv_lhs-rw", "theorem t (a b : ℕ) : a + b = b + a", "conv_lhs => rw [Nat.add_comm]", True),
    # the rewrite happens on the left side only: `rw [Nat.add_comm]` alone would rewrite the
    # first instance everywhere
    ("conv_rhs-rw", "theorem t (x : ℕ) (h : x = 2) : 4 = x + x", "conv_rhs => rw [h]", True),
    ("conv_rhs-rw-false", "theorem t (x : ℕ) (h : x = 2) : 5 = x + x", "conv_rhs => rw [h]", False),
    ("conv-lhs-simp", "theorem t (x : ℕ) : x * 1 + 0 = x", "conv => lhs; simp", True),
    ("conv_lhs-norm_num", "theorem t (x : ℕ) (h : 6 + x = 9) : 2 * 3 + x = 9", "conv_lhs => norm_num\nexact h", True),
    ("conv_lhs-norm_num-false", "theorem t (x : ℕ) (h : 6 + x = 9) : 2 * 3 + x = 10", "conv_lhs => norm_num\nexact h", False),
    ("conv_rhs-norm_num-no-progress", "theorem t (x : ℕ) (h : x = 4) : x = 4", "conv_rhs => norm_num\nexact h", False),
    ("conv-simp-no-progress-ok", "theorem t (x : ℕ) (h : x = 4) : x = 4", "conv_rhs => simp\nexact h", True),
    ("conv_lhs-ring_nf", "theorem t (x : ℤ) (h : 2 + x * 2 = 8) : (x + 1) * 2 = 8", "conv_lhs => ring_nf\nexact h", True),
    ("conv_lhs-ring_nf-false", "theorem t (x : ℤ) (h : 2 + x * 2 = 8) : (x + 1) * 2 = 9", "conv_lhs => ring_nf\nexact h", False),
    # arg i / enter: the i-th explicit argument
    ("conv-arg", "theorem t (x y : ℕ) (h : y = 2) : x + y = x + 2", "conv => lhs; arg 2; rw [h]", True),
    ("conv-enter", "theorem t (x y : ℕ) (h : y = 2) : x + y = x + 2", "conv => enter [1, 2]; rw [h]", True),
    ("conv-enter-wrong-place", "theorem t (x y : ℕ) (h : x = 2) : x + y = x + 2",
     "conv => enter [1, 2]; rw [h]", False),
    ("conv-arg-out-of-range", "theorem t (x y : ℕ) (h : y = 2) : x + y = x + 2", "conv => lhs; arg 3; rw [h]", False),
    ("conv-lhs-of-atom", "theorem t (x : ℕ) (h : x = 2) : x = 2", "conv => lhs; lhs\nexact h", False),
    # `conv at h`: the hypothesis rewritten, no closing rfl
    ("conv-at", "theorem t (x y : ℕ) (h : x + y = 5) : y + x = 5", "conv at h => lhs; rw [Nat.add_comm]\nexact h", True),
    ("conv-at-false", "theorem t (x y : ℕ) (h : x + y = 5) : y + x = 6", "conv at h => lhs; rw [Nat.add_comm]\nexact h", False),
    # `conv in pat`: the first match of the pattern
    ("conv-in", "theorem t (x y : ℕ) (h : x * y = 6) : y * x + 1 = 7",
     "conv in y * x => rw [Nat.mul_comm]\nomega", True),
    ("conv-in-not-found", "theorem t (x y : ℕ) (h : x * y = 6) : y * x + 1 = 7",
     "conv in x + y => rw [Nat.mul_comm]\nomega", False),
    # convTarget's `try rfl` closes the goal: a tactic after it has no goal
    ("conv-closes-by-rfl", "theorem t (x : ℕ) (h : x = 3) : x + 1 = 4", "conv_lhs => rw [h]", True),
    ("conv-closes-then-more", "theorem t (x : ℕ) (h : x = 3) : x + 1 = 4", "conv_lhs => rw [h]\nrfl", False),
    ("conv-multiline", "theorem t (x : ℕ) (h : x = 3) : x * x = 9", "conv =>\n  lhs\n  rw [h]", True),
    ("conv-prop-focus", "theorem t (x : ℕ) (h : x = 3) : x * 1 = 3 ∧ 0 < 1", "conv => lhs; simp\nexact ⟨h, by norm_num⟩", True),
    ("conv-prop-rw-iff", "theorem t (p q : Prop) (hq : q) (h : p ↔ q) : p ∧ q", "conv => lhs; rw [h]\nexact ⟨hq, hq⟩", True),
    # what the checker does not run is refused with its name
    ("conv-congr-refused", "theorem t (x : ℕ) (h : x = 3) : x + 1 = 4", "conv => congr\nomega", False),
]


@pytest.mark.parametrize(("header", "script", "lean_accepts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_conv_forms_and_their_wrong_variants(header: str, script: str, lean_accepts: bool) -> None:
    got = _verdict(header, script)
    assert (got == "accepted") == lean_accepts, got


def test_unsupported_conv_tactics_are_named() -> None:
    got = _verdict("theorem t (x : ℕ) (h : x = 3) : x + 1 = 4", "conv => ext y\nomega")
    assert "conv tactic 'ext' is not supported by the embedded checker" in got
    got = _verdict("theorem t (x : ℕ) : x + 1 = 1 + x", "conv => lhs; arg 0\nomega")
    assert "'arg 0' is not supported" in got


def test_lean_error_messages_for_navigation() -> None:
    got = _verdict("theorem t (x y : ℕ) : x + y = y + x", "conv => lhs; arg 3\nomega")
    assert got.startswith("invalid 'arg' conv tactic, application has only 2 (nondependent) argument(s)")
    got = _verdict("theorem t (p : Prop) (h : ¬p) : ¬p", "conv => lhs\nexact h")
    assert got.startswith("invalid 'lhs' conv tactic, application has only 1 (nondependent) argument(s)")
    got = _verdict("theorem t (x y : ℕ) (h : x * y = 6) : y * x = 6", "conv in x + y => skip\nomega")
    assert got.startswith("'pattern' conv tactic failed, pattern was not found")


def test_semicolon_combinator_after_conv_is_refused() -> None:
    # Init/Conv.lean's conv-level `<;>` would read `simp` as a conv tactic: not decided here
    for script in ("conv_lhs => rw [h] <;> simp", "conv_lhs => rw [h]\n  <;> simp"):
        got = _verdict("theorem t (x : ℕ) (h : x = 3) : x + 1 = 4", script)
        assert "'<;>'" in got and "conv" in got, got
