"""Abandoned HTTP sessions are reclaimed (issue 41): clients killed mid-session, then 50
clients in a row that exit without DELETE (as ``claude mcp list`` does), all connect; without
tokens, abandoned sessions do not lock out the next client either."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.servers.test_http import http_server

pytestmark = pytest.mark.anyio

TOKENS = "alice tok-alice-0123456789\nbob tok-bob-0123456789\n"
ALICE, BOB = "tok-alice-0123456789", "tok-bob-0123456789"

# the handshake era's sessions (mode="legacy"), as Claude Code 2.1 speaks; the session-less
# protocol (2026-07-28, the SDK client's default) holds no session to abandon
# clients (argv[3] of them, one process) that each open a session (with its GET stream), use it,
# say so and wait to be killed
_HOLDER = """
import sys, anyio
from contextlib import AsyncExitStack
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

async def main():
    async with AsyncExitStack() as stack:
        for _ in range(int(sys.argv[3])):
            http = await stack.enter_async_context(
                create_mcp_http_client(headers={"Authorization": "Bearer " + sys.argv[2]}))
            c = await stack.enter_async_context(
                Client(streamable_http_client(sys.argv[1], http_client=http), mode="legacy"))
            await c.list_tools()
        print("ready", flush=True)
        await anyio.sleep_forever()

anyio.run(main)
"""


async def connect_and_leave(url: str, token: str | None) -> int:
    """Initialize, list the tools, exit without DELETE (a health check); returns how many tools."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with anyio.fail_after(60):
        async with create_mcp_http_client(headers=headers) as http, Client(
            streamable_http_client(url, http_client=http, terminate_on_close=False), mode="legacy"
        ) as c:
            return len((await c.list_tools()).tools)


async def test_clients_killed_mid_session_then_fifty_health_checks_all_connect(
    tools_overrides: dict[str, Any], tmp_path: Path
) -> None:
    overrides = {**tools_overrides, "tools.http_max_sessions": 6, "tools.http_max_sessions_per_client": 4}
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKENS, encoding="utf-8")
    with http_server("stats", overrides, "--token-file", str(tokens), token=None) as url:
        # four clients in one process: the token's whole share, killed together
        holders = [subprocess.Popen([sys.executable, "-c", _HOLDER, url, ALICE, "4"], stdout=subprocess.PIPE,
                                    text=True, env={**os.environ})]
        try:
            for holder in holders:  # the token's whole share is held by live clients
                assert holder.stdout is not None
                with anyio.fail_after(120):
                    line = await anyio.to_thread.run_sync(holder.stdout.readline, abandon_on_cancel=True)
                assert line.strip() == "ready"
        finally:
            for holder in holders:
                holder.send_signal(signal.SIGKILL)  # killed mid-session: no DELETE, no goodbye
                holder.wait()
                if holder.stdout is not None:
                    holder.stdout.close()
        counts = [await connect_and_leave(url, ALICE) for _ in range(50)]
        assert min(counts) > 0 and len(counts) == 50
        assert await connect_and_leave(url, BOB) > 0
    log = tmp_path / "logs" / "tool_calls.jsonl"
    assert not log.exists() or "refused [sessions]" not in log.read_text(encoding="utf-8")


async def test_without_tokens_abandoned_sessions_do_not_lock_out_the_next_client(
    tools_overrides: dict[str, Any],
) -> None:
    overrides = {**tools_overrides, "tools.http_max_sessions": 4}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "gone", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with http_server("stats", overrides, "--no-auth", token=None) as url:
        async with httpx2.AsyncClient(timeout=30) as http:
            codes = [(await http.post(url, json=initialize, headers=headers)).status_code for _ in range(12)]
        assert codes == [200] * 12
        assert await connect_and_leave(url, None) > 0
