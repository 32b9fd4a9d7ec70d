"""Wire fidelity to Pantograph v0.3.4 (lenianiva/Pantograph at 757db11): one test per field
the embedded checker answers, each naming the source it follows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from burnqed.embedded import Checker
from tests.embedded.util import wire


@pytest.fixture
def checker() -> Checker:
    c = Checker()
    assert wire(c, {"cmd": "goal.start", "payload": {"expr": "∀ (n : Nat), n + 0 = n"}})["stateId"] == 0
    return c


def test_goal_print_always_carries_goals_and_extra_mvars(checker: Checker) -> None:
    # Protocol.lean GoalPrintResult: `goals: Array Goal := #[]`, `extraMVars: Array Expression := #[]`
    # (not Options: always serialised); Library.lean goalPrint fills goals only when asked
    got = wire(checker, {"cmd": "goal.print", "payload": {"stateId": 0}})
    assert got["goals"] == [] and got["extraMVars"] == []
    assert "root" not in got and "parentExprs" not in got  # root?, parentExprs?: omitted when not asked


def test_goal_print_flags(checker: Checker) -> None:
    # GoalPrintResult: rootHasSorry, rootHasUnsafe, rootHasMVar are Bools, always present
    got = wire(checker, {"cmd": "goal.print", "payload": {"stateId": 0}})
    assert (got["rootHasSorry"], got["rootHasUnsafe"], got["rootHasMVar"]) == (False, False, True)


def test_goal_print_root_goals_and_extra_mvars_when_asked(checker: Checker) -> None:
    # Library.lean goalPrint: root? when rootExpr, goals when goals, one entry per extra mvar ({} if unknown)
    got = wire(checker,
        {"cmd": "goal.print", "payload": {"stateId": 0, "rootExpr": True, "goals": True, "extraMVars": ["_uniq.99"]}}
    )
    assert got["root"] == {"pp": "?_"} and len(got["goals"]) == 1 and got["extraMVars"] == [{}]


def test_parse_error_answer_fields(checker: Checker) -> None:
    # Repl.lean goal_tactic: `.parseError message => return { messages? := .none, parseError? := .some message }`
    # so hasSorry/hasUnsafe (Bools with defaults) come along, messages is omitted
    got = wire(checker, {"cmd": "goal.tactic", "payload": {"stateId": 0, "tactic": "intro ("}})
    assert set(got) == {"parseError", "hasSorry", "hasUnsafe"}
    assert got["hasSorry"] is False and got["hasUnsafe"] is False


def test_tactic_failure_fields(checker: Checker) -> None:
    # Repl.lean: `.failure messages => return { messages? := .some messages }`
    got = wire(checker, {"cmd": "goal.tactic", "payload": {"stateId": 0, "tactic": "exact foo"}})
    assert set(got) == {"messages", "hasSorry", "hasUnsafe"}


def test_messages_carry_serial_message_fields(checker: Checker) -> None:
    # Lean's SerialMessage (deriving ToJson): fileName, pos, endPos?, keepFullRange, severity, caption, data
    got = wire(checker, {"cmd": "goal.tactic", "payload": {"stateId": 0, "tactic": "exact foo"}})
    msg = got["messages"][0]
    assert {"fileName", "pos", "keepFullRange", "severity", "caption", "data"} <= set(msg)
    assert msg["severity"] == "error" and msg["pos"] == {"line": 1, "column": 0}


def test_success_fields(checker: Checker) -> None:
    # Repl.lean goal_tactic success: nextStateId?, goals?, messages?, hasSorry, hasUnsafe
    got = wire(checker, {"cmd": "goal.tactic", "payload": {"stateId": 0, "tactic": "intro n"}})
    assert set(got) == {"nextStateId", "goals", "messages", "hasSorry", "hasUnsafe"}


@pytest.mark.parametrize("bad", ["0", 0.0, True, -1, None])
def test_a_state_id_that_is_no_nat_is_refused(checker: Checker, bad: object) -> None:
    # Repl.lean execute: `fromJson?` failure => errorCommand s!"Unable to parse json: {error}"
    got = wire(checker, {"cmd": "goal.tactic", "payload": {"stateId": bad, "tactic": "intro n"}})
    assert got["error"] == "command" and got["desc"].startswith("Unable to parse json:")


def test_delete_ids_must_be_nats(checker: Checker) -> None:
    got = wire(checker, {"cmd": "goal.delete", "payload": {"stateIds": ["0"]}})
    assert got["error"] == "command"
    assert wire(checker, {"cmd": "goal.delete", "payload": {"stateIds": [0, 7]}}) == {}


def test_the_child_process_answers_in_the_same_shapes() -> None:
    lines = [
        {"cmd": "goal.start", "payload": {"expr": "∀ (n : Nat), n + 0 = n"}},
        {"cmd": "goal.print", "payload": {"stateId": 0}},
        {"cmd": "goal.tactic", "payload": {"stateId": "0", "tactic": "intro n"}},
        {"cmd": "goal.tactic", "payload": {"stateId": 0, "tactic": "intro ("}},
    ]
    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines) + "\n"
    out = subprocess.run(
        [sys.executable, "-m", "burnqed.embedded"], input=text, capture_output=True, text=True, timeout=60, check=True
    ).stdout.splitlines()
    assert out[0] == "ready."
    printed, refused, parse = (json.loads(x) for x in out[2:5])
    assert out[2] == json.dumps(printed, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    assert printed["goals"] == [] and printed["extraMVars"] == []
    assert refused["error"] == "command"
    assert set(parse) == {"parseError", "hasSorry", "hasUnsafe"}
