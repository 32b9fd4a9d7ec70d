"""Issue 37: Lean-checked proofs the embedded checker used to refuse, each beside a false or
Lean-refused variant that must stay refused. Whole files go through ``frontend.process``."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker


def _verdict(header: str, body: str) -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = Checker().handle({"cmd": "frontend.process", "payload": {"file": text, "readHeader": True}})
    assert "error" not in ans, ans
    errors = [m["data"] for u in ans["units"] for m in u["messages"] if m["severity"] == "error"]
    return errors[0] if errors else "accepted"


# lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean evalAllGoals loops over getGoals (none: it
# succeeds); evalAnyGoals throws when no goal succeeded; `try t` is `first | t | skip`;
# `t <;> s` focuses the main goal first, so it fails without one
ZERO_GOALS = [
    ("all_goals t", "norm_num\nall_goals linarith", True),
    ("try t", "norm_num\ntry linarith", True),
    ("repeat t", "norm_num\nrepeat linarith", True),
    ("skip", "norm_num\nskip", True),
    ("basic tactic", "norm_num\nlinarith", False),
    ("any_goals t", "norm_num\nany_goals linarith", False),
    ("t <;> s", "norm_num\nlinarith <;> simp", False),
]


@pytest.mark.parametrize(("script", "lean_accepts"), [c[1:] for c in ZERO_GOALS], ids=[c[0] for c in ZERO_GOALS])
def test_tactics_after_the_last_goal_follow_leans_combinators(script: str, lean_accepts: bool) -> None:
    got = _verdict("theorem t : (2 : ℕ) + 2 = 4", script)
    assert (got == "accepted") == lean_accepts, got
