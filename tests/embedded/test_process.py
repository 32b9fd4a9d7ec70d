"""The real child process: start-up, command forms, answer shapes, error types, time-outs."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from anyio.abc import Process

pytestmark = pytest.mark.anyio


class Repl:
    """Line-level driver of ``python -m burnqed.embedded``."""

    def __init__(self, proc: Process) -> None:
        self.proc = proc
        self.buf = b""

    async def line(self) -> str:
        assert self.proc.stdout is not None
        with anyio.fail_after(30):
            while b"\n" not in self.buf:
                chunk = await self.proc.stdout.receive()
                self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\n")
        return raw.decode("utf-8")

    async def raw(self, text: str) -> str:
        assert self.proc.stdin is not None
        await self.proc.stdin.send((text + "\n").encode("utf-8"))
        return await self.line()

    async def send(self, cmd: str, **payload: Any) -> dict[str, Any]:
        text = await self.raw(
            json.dumps({"cmd": cmd, "payload": payload}, ensure_ascii=False)
        )
        return json.loads(text)


@pytest.fixture(scope="module")
async def repl() -> AsyncIterator[Repl]:
    """One embedded REPL for the module."""
    proc = await anyio.open_process(
        [sys.executable, "-m", "burnqed.embedded", "Init", "--maxHeartbeats=0"]
    )
    r = Repl(proc)
    assert await r.line() == "ready."
    yield r
    with anyio.fail_after(10):
        if proc.returncode is None:
            assert proc.stdin is not None
            await proc.stdin.send(b"\n")
            await proc.wait()
    await proc.aclose()


async def test_answers_are_compact_and_key_sorted(repl: Repl) -> None:
    text = await repl.raw(
        '{"cmd": "goal.start", "payload": {"expr": "∀ (n : Nat), n + 0 = n"}}'
    )
    obj = json.loads(text)
    assert text == json.dumps(
        obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True
    )
    assert set(obj) == {"stateId", "root"} and obj["root"].startswith("_uniq.")


async def test_line_form_and_flat_form(repl: Repl) -> None:
    ok = json.loads(await repl.raw('goal.start {"expr": "True"}'))
    assert "stateId" in ok
    flat = json.loads(await repl.raw('{"cmd": "goal.start", "expr": "True"}'))
    assert flat["error"] == "command"
    unknown = await repl.send("no.such.command")
    assert unknown["error"] == "command"
    bad = json.loads(await repl.raw("{not json"))
    assert bad["error"] == "command"


async def test_goal_start_errors(repl: Repl) -> None:
    parse = await repl.send("goal.start", expr="∀ (n : Nat), n +")
    assert parse["error"] == "parsing" and ":1:" in parse["desc"]
    elab = await repl.send("goal.start", expr="∀ (n : Nat), foo = n")
    assert elab == {
        "error": "elab",
        "desc": "<Pantograph>:1:13: outside the embedded fragment: unknown identifier 'foo'",
    }
    both = await repl.send("goal.start", expr="True", copyFrom="Nat.add_comm")
    assert both["error"] == "arguments"
    missing = await repl.send("goal.start", copyFrom="Nat.no_such_lemma")
    assert missing == {"error": "index", "desc": "Symbol not found: Nat.no_such_lemma"}


async def test_goal_tactic_shapes(repl: Repl) -> None:
    sid = (await repl.send("goal.start", expr="∀ (n : Nat), n + 0 = n"))["stateId"]
    ok = await repl.send("goal.tactic", stateId=sid, tactic="intro n")
    assert set(ok) == {"nextStateId", "goals", "messages", "hasSorry", "hasUnsafe"}
    goal = ok["goals"][0]
    assert goal["target"] == {"pp": "n + 0 = n"} and goal["fragment"] == "tactic"
    assert goal["vars"] == [
        {
            "isInaccessible": False,
            "name": goal["vars"][0]["name"],
            "type": {"pp": "Nat"},
            "userName": "n",
        }
    ]
    failed = await repl.send(
        "goal.tactic", stateId=ok["nextStateId"], tactic="exact foo"
    )
    assert "nextStateId" not in failed and "goals" not in failed
    assert (
        failed["messages"][0]["severity"] == "error"
        and "unknown identifier 'foo'" in failed["messages"][0]["data"]
    )
    parse = await repl.send("goal.tactic", stateId=sid, tactic="intro (")
    assert set(parse) == {"parseError", "hasSorry", "hasUnsafe"}
    done = await repl.send("goal.tactic", stateId=ok["nextStateId"], tactic="rfl")
    assert done["goals"] == []
    none_left = await repl.send(
        "goal.tactic", stateId=done["nextStateId"], tactic="rfl"
    )
    assert none_left["error"] == "exception"
    bad_goal = await repl.send("goal.tactic", stateId=sid, goalId=3, tactic="intro n")
    assert bad_goal == {"error": "index", "desc": "Invalid goal index 3"}
    bad_state = await repl.send("goal.tactic", stateId=12345, tactic="intro n")
    assert bad_state == {"error": "index", "desc": "Invalid state index 12345"}
    two = await repl.send("goal.tactic", stateId=sid, tactic="intro n", expr="rfl")
    assert two["error"] == "operation"


async def test_goal_print_and_delete(repl: Repl) -> None:
    sid = (await repl.send("goal.start", expr="True"))["stateId"]
    flags = await repl.send("goal.print", stateId=sid, goals=True)
    assert (
        flags["rootHasMVar"] is True
        and flags["rootHasSorry"] is False
        and len(flags["goals"]) == 1
    )
    done = (await repl.send("goal.tactic", stateId=sid, tactic="trivial"))[
        "nextStateId"
    ]
    flags = await repl.send("goal.print", stateId=done)
    assert flags["rootHasMVar"] is False and flags["rootHasSorry"] is False
    assert await repl.send("goal.delete", stateIds=[sid, 99999]) == {}
    assert (await repl.send("goal.print", stateId=sid))["error"] == "index"


async def test_timeout_answers_interrupt_and_process_lives_on(repl: Repl) -> None:
    # expanding both sides takes sympy far longer than the 50 ms allowed
    statement = "∀ (a b c d e f : Int), (a + b + c + d + e + f) ^ 7 = (a - b + c - d + e - f) ^ 7"
    sid = (await repl.send("goal.start", expr=statement))["stateId"]
    sid = (await repl.send("goal.tactic", stateId=sid, tactic="intro a b c d e f"))[
        "nextStateId"
    ]
    assert await repl.send("options.set", timeout=50) == {}
    answer = await repl.raw(
        json.dumps(
            {"cmd": "goal.tactic", "payload": {"stateId": sid, "tactic": "ring"}}
        )
    )
    assert answer == '{"desc":"interrupt","error":"internal"}'
    assert await repl.send("options.set", timeout=0) == {}
    alive = await repl.send("goal.tactic", stateId=sid, tactic="intro")
    assert "messages" in alive


async def test_escaped_lone_surrogate_is_answered_and_process_lives_on(repl: Repl) -> None:
    line = json.dumps({"cmd": "goal.start", "payload": {"expr": "«\ud800» = 1"}})
    ans = json.loads(await repl.raw(line))
    assert ans == {"desc": "<Pantograph>:1:0: outside the embedded fragment: unknown identifier '\ufffd'", "error": "elab"}
    ans = json.loads(await repl.raw('{"cmd":"stat","payload":' + "[" * 5000 + "]" * 5000 + "}"))
    assert ans["error"] == "command"
    assert "nGoals" in await repl.send("stat")


async def test_stat_and_reset(repl: Repl) -> None:
    before = (await repl.send("stat"))["nGoals"]
    await repl.send("goal.start", expr="True")
    assert (await repl.send("stat"))["nGoals"] == before + 1
    assert await repl.send("reset") == {"nGoals": before + 1}
    assert await repl.send("stat") == {"nGoals": 0}
    assert (await repl.send("goal.start", expr="True"))["stateId"] == 0


async def test_empty_line_exits_cleanly() -> None:
    proc = await anyio.open_process([sys.executable, "-m", "burnqed.embedded"])
    r = Repl(proc)
    assert await r.line() == "ready."
    assert proc.stdin is not None
    await proc.stdin.send(b"\n")
    with anyio.fail_after(10):
        code = await proc.wait()
    await proc.aclose()
    assert code == 0
