"""One server, many clients: ``burnqed serve NAME --transport streamable-http`` as a real
subprocess behind a bearer token. Two clients share one pool and one job; a job and a proof
handle outlive the client that started them; a client without the token gets 401."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.fixtures.tools import as_set_flags

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(name: str, overrides: dict[str, Any], *extra: str, token: str | None = TOKEN) -> Iterator[str]:
    """``burnqed serve NAME --transport streamable-http`` on a free port; yields its URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "BURNQED_MCP_TOKEN"}
    if token is not None:
        env["BURNQED_MCP_TOKEN"] = token
    proc = subprocess.Popen(
        [sys.executable, "-m", "burnqed.cli", "serve", name, "--transport", "streamable-http",
         "--port", str(port), *extra, *as_set_flags(overrides)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        with socket.socket() as probe:
            for _ in range(600):
                if proc.poll() is not None:
                    raise AssertionError(f"server exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@asynccontextmanager
async def client(url: str, token: str | None = TOKEN) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http, Client(
        streamable_http_client(url, http_client=http)
    ) as c:
        yield c


async def call(c: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(30):
        result = await c.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_two_clients_share_one_job_that_outlives_its_launcher(tools_overrides: dict[str, Any]) -> None:
    # every node sleeps in the fake REPL and no theorem closes, so the job still runs for client B
    overrides = {**tools_overrides, "search.automation_tactics": ["sleep 400"],
                 "search.concurrency": 1}
    statements = [f"∀ (n : Nat), n + {i} = n → False" for i in range(30)]  # never proved here
    with http_server("search", overrides) as url:
        async with client(url) as a:
            job = await call(a, "launch_search", statements=statements, policy="none",
                             budget={"max_nodes": 2})
            job_id = job["job_id"]
        # A is gone; B sees the job, running, on the same server and pool
        async with client(url) as b:
            listed = await call(b, "list_jobs")
            [seen] = [j for j in listed["jobs"] if j["job_id"] == job_id]
            assert seen["status"] == "running"
            status = await call(b, "job_status", job_id=job_id, wait_s=2)
            assert status["done"] >= 1  # A's job kept running after A left
            cancelled = await call(b, "cancel_job", job_id=job_id)
            assert cancelled["status"] == "cancelled"
        async with client(url) as c:
            assert (await call(c, "job_status", job_id=job_id))["status"] == "cancelled"


async def test_a_proof_handle_outlives_its_client_and_a_second_client_continues_it(
    tools_overrides: dict[str, Any],
) -> None:
    with http_server("lean", tools_overrides) as url:
        async with client(url) as a:
            started = await call(a, "start_proof", statement="∀ (n : Nat), n + 0 = n")
            handle, state = started["handle"], started["state_id"]
        async with client(url) as b:
            step = await call(b, "run_tactic", handle=handle, state_id=state, tactic="intro n")
            done = await call(b, "run_tactic", handle=handle, state_id=step["next_state_id"], tactic="rfl")
            assert done["status"] == "success" and done["proof_complete"] is True
            assert (await call(b, "close_proof", handle=handle))["closed"] is True


async def test_requests_without_the_token_are_refused(tools_overrides: dict[str, Any]) -> None:
    with http_server("stats", tools_overrides) as url:
        async with httpx2.AsyncClient() as http:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
                response = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers)
                assert response.status_code == 401
        async with client(url) as ok:
            assert (await ok.list_tools()).tools


def test_serving_without_a_token_is_refused_unless_local_and_explicit(tools_overrides: dict[str, Any]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BURNQED_MCP_TOKEN"}
    argv = [sys.executable, "-m", "burnqed.cli", "serve", "stats", "--transport", "streamable-http",
            "--port", str(free_port()), *as_set_flags(tools_overrides)]
    for extra in ([], ["--host", "0.0.0.0", "--no-auth"]):
        done = subprocess.run([*argv, *extra], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "refusing to serve over HTTP without a token" in done.stderr
        assert "Traceback" not in done.stderr


async def test_no_auth_on_loopback_serves_this_machine(tools_overrides: dict[str, Any]) -> None:
    with http_server("stats", tools_overrides, "--no-auth", token=None) as url:
        async with client(url, token=None) as c:
            assert {t.name for t in (await c.list_tools()).tools} >= {"tool_usage"}


async def test_the_handle_cap_is_per_client(tools_overrides: dict[str, Any], tmp_path: Any) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("# one token per client\nalice tok-alice\nbob tok-bob\n", encoding="utf-8")
    overrides = {**tools_overrides, "tools.max_handles_per_client": 1}
    with http_server("lean", overrides, "--token-file", str(tokens), token=None) as url:
        async with client(url, "tok-alice") as a, client(url, "tok-bob") as b:
            await call(a, "start_proof", statement="∀ (n : Nat), n = n")
            with anyio.fail_after(30):
                refused = await a.call_tool("start_proof", {"statement": "∀ (n : Nat), n = n"})
            assert refused.is_error and "per client is 1" in refused.content[0].text
            assert (await call(b, "start_proof", statement="∀ (n : Nat), n = n"))["handle"]
        async with httpx2.AsyncClient() as http:  # only the file's tokens are valid
            response = await http.post(url, json={}, headers={"Authorization": f"Bearer {TOKEN}"})
            assert response.status_code == 401
