"""Outcome models, goal rendering and the package's public names."""

from __future__ import annotations

from burnqed import lean
from burnqed.lean import Goal, TacticOutcome, TacticStatus
from burnqed.lean.protocol import Expression, Message, Variable


def _goal() -> Goal:
    nat = Expression(pp="Nat")
    return Goal(
        target=Expression(pp="x + y = y + x"),
        vars=[
            Variable(user_name="x", type=nat),
            Variable(user_name="y", type=nat),
            Variable(user_name="h", type=Expression(pp="x = y")),
        ],
    )


def test_success_outcome_renders_goals_like_lean() -> None:
    out = TacticOutcome(status=TacticStatus.SUCCESS, state_id=0, tactic="intro x y h", next_state_id=1, goals=[_goal()])
    assert out.ok and not out.proof_complete
    assert out.rendered == "x y : Nat\nh : x = y\n⊢ x + y = y + x"
    done = TacticOutcome(status="success", state_id=1, tactic="omega", next_state_id=2)
    assert done.proof_complete and done.rendered == "no goals"


def test_failed_outcomes_carry_their_error_text() -> None:
    failed = TacticOutcome(status="failed", state_id=0, tactic="simp", messages=[Message(data="simp made no progress")])
    assert not failed.ok and not failed.proof_complete and failed.rendered == "simp made no progress"
    parse = TacticOutcome(status="parse_error", state_id=0, tactic="(", parse_error="unexpected end")
    assert parse.error_text == "unexpected end"
    assert TacticOutcome(status="lost", state_id=0, tactic="x").error_text == "lost"


def test_every_public_name_is_exported() -> None:
    for name in lean.__all__:
        assert getattr(lean, name) is not None
    for required in (
        "LeanConfig",
        "LeanPool",
        "ProofHandle",
        "TacticOutcome",
        "TacticStatus",
        "ProofVerdict",
        "PoolStatus",
    ):
        assert required in lean.__all__
