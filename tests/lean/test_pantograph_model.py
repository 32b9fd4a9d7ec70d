"""The fake Pantograph's scope, environment, goal site and goal.start forms, held to Pantograph's source.

Each test names the lines of Pantograph v0.3.4 (commit 757db11, the one vendor/ pins) whose
behaviour it checks in tests/fixtures/fake_repl.py: the client's tests on the fake are only
worth what the fake's faithfulness is. The fake is driven over its real pipe, JSON line by
JSON line, as the worker drives it.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fixtures.lean import fake_repl_command


class Repl:
    """The fake REPL in a child process: one request line in, one answer line out."""

    def __init__(self, *flags: str) -> None:
        self.proc = subprocess.Popen(
            fake_repl_command(*flags), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready."

    def __call__(self, cmd: str, **payload: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, "payload": payload}) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def sorry_state(self, text: str) -> int:
        """The goal state of the one sorry in ``text`` (frontend.process, inheritEnv false)."""
        units = self("frontend.process", file=text, sorrys=True)["units"]
        assert not [m for u in units for m in u["messages"] if m["severity"] == "error"], units
        (state,) = [u["goalStateId"] for u in units if "goalStateId" in u]
        return int(state)

    def errors(self, answer: dict[str, Any]) -> list[str]:
        """The error texts of a goal.tactic or frontend.process answer."""
        messages = answer.get("messages", []) + [m for u in answer.get("units", []) for m in u["messages"]]
        return [m["data"] for m in messages if m["severity"] == "error"]


@contextmanager
def _started(*flags: str) -> Iterator[Repl]:
    """A fake REPL launched with ``flags``, killed and its pipes closed on exit."""
    r = Repl(*flags)
    try:
        yield r
    finally:
        r.proc.kill()
        r.proc.wait(timeout=10)
        for pipe in (r.proc.stdin, r.proc.stdout):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def repl() -> Iterator[Repl]:
    r = Repl()
    yield r
    r.proc.kill()
    r.proc.wait(timeout=10)
    for pipe in (r.proc.stdin, r.proc.stdout):
        if pipe is not None:
            pipe.close()


THEOREM = "theorem t (x : Nat) : 0 < x + 1 := by sorry\n"


def test_goal_tactic_elaborates_in_the_repls_scope_not_the_snippets(repl: Repl) -> None:
    """Repl.lean 45-56 (runCoreM: openDecls and opts from the REPL's State.scope) and 189-235
    (frontend_process replaces that scope only when inheritEnv): a snippet's `open` does not
    reach the tactics run on its sorry goal."""
    state = repl.sorry_state("open Real\n\n" + THEOREM)
    out = repl("goal.tactic", stateId=state, tactic="exact pi_pos")
    assert repl.errors(out) == ["unknown identifier 'pi_pos'"]


def test_inherit_env_makes_the_snippets_scope_the_repls(repl: Repl) -> None:
    """Repl.lean 231-235: with inheritEnv the REPL takes the snippet's environment and scope
    (`open`, `set_option`), and later tactics elaborate in it."""
    header = repl("frontend.process", file="open Real\nset_option maxHeartbeats 400000\n", inheritEnv=True)
    assert repl.errors(header) == []
    state = repl.sorry_state(THEOREM)
    assert "nextStateId" in repl("goal.tactic", stateId=state, tactic="exact pi_pos")


def test_a_headers_max_heartbeats_does_not_reach_tactics_the_launch_option_does() -> None:
    """Repl.lean 51-58 (`{ (← read).coreContext with options := scope.opts, ... }`) keeps the
    start-up context's `maxHeartbeats` field, computed from the launch options by
    createCoreContext (Library.lean 54-65); Lean's `withOptions` (CoreM.lean) refreshes
    `maxRecDepth` from the scope's options but not `maxHeartbeats`. So the scope's
    `set_option maxHeartbeats` (even taken with inheritEnv) leaves tactics at the launch limit
    (leanprover-community/repl issue 69 reports the same of that REPL's tactic mode)."""
    with _started() as scoped:
        scoped("frontend.process", file="set_option maxHeartbeats 400000\n", inheritEnv=True)
        out = scoped("goal.tactic", stateId=scoped.sorry_state(THEOREM), tactic="heavy")
        assert scoped.errors(out) == ["(deterministic) timeout, maximum number of heartbeats (200000) has been reached"]
    with _started("--maxHeartbeats=0") as launched:
        out = launched("goal.tactic", stateId=launched.sorry_state(THEOREM), tactic="heavy")
        assert "nextStateId" in out, out


def test_each_frontend_process_starts_from_a_fresh_scope(repl: Repl) -> None:
    """Frontend/Basic.lean 138-161 (createContextStateFromFile: `mkState env`): the snippet is
    elaborated over the REPL's environment but from an empty scope, so a statement needs its own
    `open` even after the REPL's scope has one."""
    repl("frontend.process", file="open Real\n", inheritEnv=True)
    bare = repl("frontend.process", file="theorem t : 0 < π := by sorry\n", sorrys=True)
    assert repl.errors(bare) == ["unknown identifier 'π'"]
    opened = repl("frontend.process", file="open Real\n\ntheorem t : 0 < π := by sorry\n", sorrys=True)
    assert repl.errors(opened) == []


def test_definitions_stay_only_with_inherit_env(repl: Repl) -> None:
    """Repl.lean 231-232 (setEnv only when inheritEnv): a definition processed without it is
    gone; with it, declaring it again is an error."""
    definition = "def is_small (n : Nat) : Prop := n < 10\n"
    assert repl.errors(repl("frontend.process", file=definition)) == []
    assert repl.errors(repl("frontend.process", file=definition, inheritEnv=True)) == []
    again = repl("frontend.process", file=definition)
    assert repl.errors(again) == ["'is_small' has already been declared"]


def _two_goals(repl: Repl) -> int:
    state = repl.sorry_state("theorem t (n : Nat) : n = n ∧ n + 0 = n := by sorry\n")
    split = repl("goal.tactic", stateId=state, tactic="constructor")
    assert [g["target"]["pp"] for g in split["goals"]] == ["n = n", "n + 0 = n"]
    return int(split["nextStateId"])


def test_without_goal_id_the_tactic_acts_on_the_whole_goal_list(repl: Repl) -> None:
    """Repl.lean 106-116 (no goalId, automaticMode: `.unfocus`) and Goal.lean 48-54 (run as is):
    `all_goals` acts on every goal; a plain tactic on the first, the others stay."""
    state = _two_goals(repl)
    assert repl("goal.tactic", stateId=state, tactic="all_goals rfl")["goals"] == []
    assert [g["target"]["pp"] for g in repl("goal.tactic", stateId=state, tactic="rfl")["goals"]] == ["n + 0 = n"]


def test_a_goal_id_moves_its_goal_first_and_keeps_the_others(repl: Repl) -> None:
    """Repl.lean 108-111 (goalId, automaticMode: `.prefer`) and Goal.lean 39-47."""
    state = _two_goals(repl)
    out = repl("goal.tactic", stateId=state, goalId=1, tactic="rfl")
    assert [g["target"]["pp"] for g in out["goals"]] == ["n = n"]
    assert repl("goal.tactic", stateId=state, goalId=2, tactic="rfl") == {"desc": "Invalid goal index 2", "error": "index"}


def test_without_automatic_mode_the_tactic_sees_its_goal_alone(repl: Repl) -> None:
    """Repl.lean 112-115 and 117-120 (`.focus`: the other goals go dormant, Goal.lean 35-38)."""
    assert repl("options.set", automaticMode=False) == {}
    state = _two_goals(repl)
    out = repl("goal.tactic", stateId=state, tactic="all_goals rfl")
    assert out["goals"] == []  # the second goal is dormant, not shown
    assert repl("goal.print", stateId=out["nextStateId"])["rootHasMVar"] is True


def test_goal_start_reads_a_term_so_binder_form_is_a_parse_error(repl: Repl) -> None:
    """Repl.lean goal_start → parseElabType: `(a b : ℕ) (h : a < b) : P` is no term."""
    refused = repl("goal.start", expr="(a b : ℕ) (h : a < b) : a + 1 ≤ b")
    assert refused["error"] == "parsing"
    assert "stateId" in repl("goal.start", expr="(2 : ℕ) + 2 = 4")
