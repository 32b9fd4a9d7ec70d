"""Each server as a real ``burnqed serve NAME`` subprocess, driven by the MCP stdio client."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from burnqed.blueprint import BlueprintStore
from burnqed.config import load_config
from tests.fixtures.lean import pid_alive
from tests.fixtures.tools import as_set_flags

pytestmark = pytest.mark.anyio

EXPECTED_TOOLS = {
    "lean": {"start_proof", "run_tactic", "close_proof", "verify_proof", "pool_status"},
    "search": {
        "launch_search",
        "job_status",
        "job_result",
        "cancel_job",
        "list_jobs",
        "generate_tactics",
        "score_states",
    },
    "stats": {"trajectory_summary", "eval_result", "compare_iterations", "solve_curve", "tool_usage"},
    "blueprint": {"list_targets", "get_target", "update_status", "record_proof", "schedule_iteration"},
}
PROBES: dict[str, tuple[str, dict[str, Any]]] = {
    "search": ("generate_tactics", {"state": "⊢ 1 = 1", "policy": "none", "n": 2}),
    "stats": ("tool_usage", {}),
    "blueprint": ("list_targets", {}),
}


def serve(name: str, overrides: dict[str, Any]) -> StdioServerParameters:
    """``burnqed serve NAME`` with the test's config, as stdio parameters."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "burnqed.cli", "serve", name, *as_set_flags(overrides)]
    )


@pytest.mark.parametrize("name", sorted(PROBES))
async def test_burnqed_serve_speaks_mcp_over_stdio(name: str, tools_overrides: dict[str, Any]) -> None:
    config = load_config(None, tools_overrides)
    BlueprintStore(config.blueprint.path).register_target("theorem", "t", statement="True")
    tool, args = PROBES[name]
    with anyio.fail_after(60):
        async with Client(serve(name, tools_overrides)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == EXPECTED_TOOLS[name]
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content[0].text
            assert result.structured_content is not None and result.content[0].text


async def test_a_client_that_vanishes_mid_proof_leaks_no_lean_process(tools_overrides: dict[str, Any]) -> None:
    """The lean server over stdio; the client leaves mid-proof and every Lean worker goes away."""
    with anyio.fail_after(60):
        async with Client(serve("lean", tools_overrides)) as client:
            assert {t.name for t in (await client.list_tools()).tools} == EXPECTED_TOOLS["lean"]
            verified = await client.call_tool(
                "verify_proof", {"statement": "∀ (n : Nat), n + 0 = n", "tactics": ["intro n", "rfl"]}
            )
            assert verified.structured_content["ok"] is True
            started = await client.call_tool("start_proof", {"statement": "∀ (n : Nat), n + 0 = n"})
            assert not started.is_error
            pids = (await client.call_tool("pool_status", {})).structured_content["worker_pids"]
            assert pids and all(pid_alive(p) for p in pids)
            # leave without close_proof: the client's pipes close under the server
    with anyio.fail_after(15):
        while any(pid_alive(p) for p in pids):
            await anyio.sleep(0.05)
