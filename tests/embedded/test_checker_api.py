"""The checker's typed API: protocol request models in, answer models out, errors as the
protocol's error answer; JSON only on the REPL's line (repl/request.py, repl/server.py)."""

from __future__ import annotations

import json

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.repl.request import decode_request
from burnqed.embedded.repl.server import answer_line
from burnqed.lean.protocol import (
    ANSWER_TYPES,
    REQUEST_TYPES,
    ExprEcho,
    ExprEchoResult,
    FrontendProcess,
    FrontendProcessResult,
    GoalDelete,
    GoalDeleteResult,
    GoalPrint,
    GoalPrintResult,
    GoalStart,
    GoalStartResult,
    GoalTactic,
    GoalTacticResult,
    OptionsPrint,
    OptionsPrintResult,
    OptionsSet,
    ReplErrorAnswer,
    Request,
    Reset,
    ResetResult,
    Stat,
    StatResult,
)

STATEMENT = "∀ (n : Nat), n + 0 = n"


def test_a_proof_runs_on_models_from_start_to_a_clean_root() -> None:
    c = Checker()
    start = c.goal_start(GoalStart(expr=STATEMENT))
    assert isinstance(start, GoalStartResult) and start.state_id == 0
    step = c.goal_tactic(GoalTactic(state_id=start.state_id, tactic="intro n"))
    assert isinstance(step, GoalTacticResult) and step.succeeded
    assert step.goals is not None and step.goals[0].target.pp == "n + 0 = n"
    done = c.run(GoalTactic(state_id=step.next_state_id, tactic="rfl"))
    assert isinstance(done, GoalTacticResult) and done.goals == []
    root = c.goal_print(GoalPrint(state_id=done.next_state_id or 0, root_expr=True))
    assert isinstance(root, GoalPrintResult)
    assert not root.root_has_sorry and not root.root_has_mvar
    assert c.stat() == StatResult(n_goals=3)
    assert c.goal_delete(GoalDelete(state_ids=[0, 99])) == GoalDeleteResult()
    assert c.reset(Reset()) == ResetResult(n_goals=2)


def test_refusals_are_the_protocols_error_answer_not_exceptions() -> None:
    c = Checker()
    missing = c.run(GoalTactic(state_id=7, tactic="rfl"))
    assert missing == ReplErrorAnswer(error="index", desc="Invalid state index 7")
    both = c.goal_start(GoalStart(expr="1 = 1", copy_from="Nat.add_comm"))
    assert isinstance(both, ReplErrorAnswer) and both.error == "arguments"
    bad = c.expr_echo(ExprEcho(expr="1 +"))
    assert isinstance(bad, ReplErrorAnswer) and bad.error == "parsing"


def test_a_failed_tactic_is_an_answer_with_error_messages() -> None:
    c = Checker()
    c.goal_start(GoalStart(expr=STATEMENT))
    failed = c.goal_tactic(GoalTactic(state_id=0, tactic="exact foo"))
    assert isinstance(failed, GoalTacticResult) and not failed.succeeded
    assert [m.data for m in failed.error_messages] == ["unknown identifier 'foo'"]


def test_options_round_trip_through_options_print() -> None:
    c = Checker()
    c.options_set(OptionsSet(timeout=250, automatic_mode=False))
    assert c.run(OptionsPrint()) == OptionsPrintResult(automatic_mode=False, timeout=250)
    assert c.options_print().wire() == {"automaticMode": False, "timeout": 250}


def test_expr_echo_and_frontend_answer_their_models() -> None:
    c = Checker()
    echo = c.run(ExprEcho(expr=STATEMENT))
    assert isinstance(echo, ExprEchoResult) and echo.expr.pp == STATEMENT and echo.type.pp == "Prop"
    out = c.frontend_process(FrontendProcess(file="theorem t (n : Nat) : n = n := by\n  sorry\n", sorrys=True))
    assert isinstance(out, FrontendProcessResult) and out.units[0].goal_state_id is not None


@pytest.mark.parametrize("cmd", sorted(REQUEST_TYPES))
def test_every_modelled_command_answers_its_answer_model(cmd: str) -> None:
    c = Checker()
    c.goal_start(GoalStart(expr=STATEMENT))
    payloads = {
        "goal.start": {"expr": STATEMENT},
        "goal.tactic": {"stateId": 0, "tactic": "intro n"},
        "goal.delete": {"stateIds": [0]},
        "goal.print": {"stateId": 0},
        "expr.echo": {"expr": STATEMENT},
        "frontend.process": {"file": "example : (1 : Nat) = 1 := rfl\n"},
    }
    request = REQUEST_TYPES[cmd].model_validate(payloads.get(cmd, {}))
    assert isinstance(c.run(request), ANSWER_TYPES[cmd])


def test_a_line_becomes_a_request_model_or_the_command_error() -> None:
    assert decode_request('{"cmd": "goal.tactic", "payload": {"stateId": 3, "tactic": "rfl"}}') == GoalTactic(
        state_id=3, tactic="rfl"
    )
    assert decode_request("stat") == Stat()
    assert decode_request('goal.start {"expr": "1 = 1"}') == GoalStart(expr="1 = 1")
    for line in ('{"cmd": "nope", "payload": {}}', '{"cmd": "stat"}', "{", '{"cmd": "goal.print", "payload": {"stateId": "1"}}'):
        got = decode_request(line)
        assert isinstance(got, ReplErrorAnswer) and got.error == "command", line


def test_the_json_line_writes_the_models_wire_form() -> None:
    c, d = Checker(), Checker()
    line = '{"cmd": "goal.start", "payload": {"expr": "' + STATEMENT + '"}}'
    request = decode_request(line)
    assert isinstance(request, Request)
    assert json.loads(answer_line(c, line)) == d.run(request).wire()
