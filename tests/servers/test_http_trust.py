"""The trust boundary over streamable HTTP (issue 27): a token is one client. Caps on handles
and sessions hold per token, a full handle pool evicts its least recently used idle handle,
handles and jobs belong to the token that opened them, the call log names the token (never
the token itself), a second search server leaves a live server's jobs alone, and the server
says "serving" only once it listens."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client

from burnqed.config import load_config
from tests.fixtures.tools import as_set_flags
from tests.servers.test_http import client, http_server

pytestmark = pytest.mark.anyio

TOKENS = "alice tok-alice-0123456789\nbob tok-bob-0123456789\nroot tok-root-0123456789\n"
ALICE, BOB, ROOT = "tok-alice-0123456789", "tok-bob-0123456789", "tok-root-0123456789"
STATEMENT = "∀ (n : Nat), n = n"


async def call(c: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(60):
        return await c.call_tool(tool, args)


def token_file(tmp_path: Path) -> str:
    path = tmp_path / "tokens"
    path.write_text(TOKENS, encoding="utf-8")
    return str(path)


async def test_handle_caps_hold_per_token_and_a_full_pool_evicts_its_oldest_idle_handle(
    tools_overrides: dict[str, Any], tmp_path: Path
) -> None:
    overrides = {**tools_overrides, "tools.max_handles_per_client": 2, "tools.max_live_handles": 3}
    with http_server("lean", overrides, "--token-file", token_file(tmp_path), token=None) as url:
        # two sessions of one token are one client: its cap is 2 across both
        async with client(url, ALICE) as a1, client(url, ALICE) as a2:
            first = (await call(a1, "start_proof", statement=STATEMENT)).structured_content["handle"]
            assert not (await call(a2, "start_proof", statement=STATEMENT)).is_error
            refused = await call(a2, "start_proof", statement=STATEMENT)
            assert refused.is_error and "per client is 2" in refused.content[0].text
        async with client(url, BOB) as b:
            assert not (await call(b, "start_proof", statement=STATEMENT)).is_error  # the pool is full now (3)
            # alice left two idle handles behind: bob's next start evicts the least recently used
            second = await call(b, "start_proof", statement=STATEMENT)
            assert not second.is_error, second.content[0].text
        async with client(url, ALICE) as a:
            gone = await call(a, "run_tactic", handle=first, state_id=0, tactic="intro n")
            assert gone.is_error and "evicted" in gone.content[0].text


async def test_handles_and_jobs_belong_to_their_token(tools_overrides: dict[str, Any], tmp_path: Path) -> None:
    overrides = {**tools_overrides, "tools.operator_clients": ["root"]}
    tokens = token_file(tmp_path)
    with http_server("lean", overrides, "--token-file", tokens, token=None) as url:
        async with client(url, ALICE) as a, client(url, BOB) as b, client(url, ROOT) as r:
            handle = (await call(a, "start_proof", statement=STATEMENT)).structured_content["handle"]
            for tool, args in (("run_tactic", {"state_id": 0, "tactic": "intro n"}), ("close_proof", {})):
                refused = await call(b, tool, handle=handle, **args)
                assert refused.is_error and "refused [ownership]" in refused.content[0].text, tool
            assert not (await call(a, "run_tactic", handle=handle, state_id=0, tactic="intro n")).is_error
            assert not (await call(r, "close_proof", handle=handle)).is_error  # an operator token may
    log = (tmp_path / "logs" / "tool_calls.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in log.splitlines()]
    assert {r["client"] for r in records} == {"alice", "bob", "root"}
    assert [r["refusal"] for r in records if r["client"] == "bob"] == ["ownership", "ownership"]
    assert ALICE not in log and BOB not in log and ROOT not in log  # names, never tokens
    statements = [f"∀ (n : Nat), n + {i} = n → False" for i in range(30)]
    slow = {**overrides, "search.automation_tactics": ["sleep 400"], "search.concurrency": 1}
    with http_server("search", slow, "--token-file", tokens, token=None) as url:
        async with client(url, ALICE) as a, client(url, BOB) as b:
            job = (await call(a, "launch_search", statements=statements, policy="none",
                              budget={"max_nodes": 2})).structured_content["job_id"]
            refused = await call(b, "cancel_job", job_id=job)
            assert refused.is_error and "refused [ownership]" in refused.content[0].text
            assert (await call(b, "job_status", job_id=job)).structured_content["status"] == "running"
            assert (await call(a, "cancel_job", job_id=job)).structured_content["status"] == "cancelled"


async def test_one_token_cannot_fill_the_session_table(tools_overrides: dict[str, Any], tmp_path: Path) -> None:
    overrides = {**tools_overrides, "tools.http_max_sessions": 4, "tools.http_max_sessions_per_client": 2}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}}
    headers = {"Authorization": f"Bearer {ALICE}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    with http_server("stats", overrides, "--token-file", token_file(tmp_path), token=None) as url:
        async with client(url, BOB) as b:  # bob holds a live session throughout
            async with httpx2.AsyncClient(timeout=30) as http:
                # initialize without DELETE, over and over: each new session ends alice's oldest idle one
                answers = [await http.post(url, json=initialize, headers=headers) for _ in range(6)]
                assert [a.status_code for a in answers] == [200] * 6
                sids = [a.headers["mcp-session-id"] for a in answers]
                first = await http.post(url, json=ping, headers={**headers, "mcp-session-id": sids[0],
                                                                 "mcp-protocol-version": "2025-06-18"})
                assert first.status_code == 404  # evicted: a live client would initialize again
                last = await http.post(url, json=ping, headers={**headers, "mcp-session-id": sids[-1],
                                                                "mcp-protocol-version": "2025-06-18"})
                assert last.status_code == 200
            assert (await b.list_tools()).tools  # alice never took bob's session
    log = tmp_path / "logs" / "tool_calls.jsonl"
    assert not log.exists() or "refused [sessions]" not in log.read_text(encoding="utf-8")


async def test_a_second_search_server_leaves_a_live_servers_job_alone(
    tools_overrides: dict[str, Any], tmp_path: Path
) -> None:
    from burnqed.iteration.layout import RunLayout

    slow = {**tools_overrides, "search.automation_tactics": ["sleep 400"], "search.concurrency": 1}
    statements = [f"∀ (n : Nat), n + {i} = n → False" for i in range(30)]
    # this process plays the daemon: it holds the run's writer lock, and both search servers
    # are its children (its own and the coordinator toolbox's), so both work under that lock
    with RunLayout(load_config(None, slow).paths.run_dir).hold("test daemon"):
        with http_server("search", slow) as url:
            async with client(url) as a:
                job = (await call(a, "launch_search", statements=statements, policy="none",
                                  budget={"max_nodes": 2})).structured_content["job_id"]
                # the second server starts while the job runs: its start-up sweep must leave it alone
                with http_server("search", slow) as url2:
                    async with client(url2) as second:
                        seen = (await call(second, "job_status", job_id=job)).structured_content
                        assert seen["status"] == "running"
                assert (await call(a, "job_status", job_id=job)).structured_content["status"] == "running"
    # the first server is gone now (it marked its job on the way out)
    record = json.loads((tmp_path / "run" / "jobs" / f"{job}.json").read_text(encoding="utf-8"))
    assert record["status"] == "interrupted" and record["owner_pid"] != os.getpid()


def test_serving_is_announced_only_once_the_port_is_bound(tools_overrides: dict[str, Any]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {**os.environ, "BURNQED_MCP_TOKEN": "t0k3n-for-tests"}
        done = subprocess.run(
            [sys.executable, "-m", "burnqed.cli", "serve", "stats", "--transport", "streamable-http",
             "--port", str(port), *as_set_flags(tools_overrides)],
            env=env, capture_output=True, text=True, timeout=60,
        )
    assert done.returncode == 2 and "cannot listen on 127.0.0.1" in done.stderr
    assert ": serving http://" not in done.stderr and "Traceback" not in done.stderr


def test_coordinator_status_shows_the_live_pid(tmp_path: Path) -> None:
    from burnqed.coordination.control import DaemonPaths, DaemonState, describe, write_pid, write_state

    paths = DaemonPaths(run_dir=tmp_path)
    paths.root.mkdir(parents=True)
    write_state(paths, DaemonState(status="session", pid=None))
    write_pid(paths)  # this process plays the daemon
    info = describe(paths)
    assert info["running"] is True and info["pid"] == os.getpid()
    shown = subprocess.run([sys.executable, "-m", "burnqed.cli", "coordinator", "status", "--run-dir", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
    assert f"yes (pid {os.getpid()})" in shown.stdout and "pid None" not in shown.stdout


def test_a_server_that_cannot_start_over_http_says_so_in_one_line_exit_2(tools_overrides: dict[str, Any]) -> None:
    """Issue 41: 77-80 lines with 3 tracebacks and exit 1, where stdio printed one line and exit 2."""
    broken = {**tools_overrides, "lean.backend": "command", "lean.command": ["/nonexistent/repl"]}
    outputs = []
    for transport in (["--transport", "streamable-http", "--no-auth", "--port", "0"], []):
        done = subprocess.run(
            [sys.executable, "-m", "burnqed.cli", "serve", "lean", *transport, *as_set_flags(broken)],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        # the start-up note naming the backend (issue 38) is not part of the failure
        lines = [x for x in done.stderr.strip().splitlines() if not x.startswith("burnqed-lean: Lean backend")]
        assert len(lines) == 1 and "/nonexistent/repl" in lines[0] and "Traceback" not in done.stderr, done.stderr
        outputs.append(lines[0])
    assert outputs[0] == outputs[1]  # the same line either way
