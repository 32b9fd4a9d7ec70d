"""Every example a tool's own schema and description give is accepted, over a real stdio session.

A new user's first call copies the example from the tool's description (issue 38: start_proof
refused its own ``theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by``). The examples are read from
the listed schemas, not from this file, so an example added to a description without a case
here fails the test.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from burnqed.tools.common.policy import STATEMENT_EXAMPLES
from tests.fixtures.tools import as_set_flags

pytestmark = pytest.mark.anyio

_EXAMPLE = re.compile(r"e\.g\. '([^']+)'")
THEOREM_FORM = "theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by"


def examples(tool: Any) -> dict[str, list[str]]:
    """``parameter -> examples`` quoted as ``e.g. '…'`` in the tool's schema ("" for the tool's own description)."""
    found: dict[str, list[str]] = {}
    if tool.description:
        found.update({"": _EXAMPLE.findall(tool.description)} if _EXAMPLE.search(tool.description) else {})
    for name, prop in (tool.input_schema.get("properties") or {}).items():
        text = str(prop)
        if _EXAMPLE.search(text):
            found[name] = _EXAMPLE.findall(text)
    return found


def serve(name: str, overrides: dict[str, Any]) -> StdioServerParameters:
    """``burnqed serve NAME`` on the embedded backend."""
    flags = as_set_flags({**overrides, "lean.backend": "embedded", "lean.command": []})
    return StdioServerParameters(command=sys.executable, args=["-m", "burnqed.cli", "serve", name, *flags])


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(120):
        result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool}({args}): {result.content[0].text}"
    return result


async def test_every_lean_tool_example_is_accepted_and_theorem_form_proves(tools_overrides: dict[str, Any]) -> None:
    async with Client(serve("lean", tools_overrides)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        seen = {(name, param): found for name, tool in tools.items() for param, found in examples(tool).items()}
        assert set(seen) == {("start_proof", "statement"), ("verify_proof", "statement"), ("run_tactic", "tactic")}
        assert seen[("start_proof", "statement")] == seen[("verify_proof", "statement")] == list(STATEMENT_EXAMPLES)
        assert THEOREM_FORM in STATEMENT_EXAMPLES
        for statement in seen[("start_proof", "statement")]:
            started = (await call(client, "start_proof", statement=statement)).structured_content
            assert started["backend"] == "embedded" and started["goals"], statement
            await call(client, "close_proof", handle=started["handle"])
        for statement in seen[("verify_proof", "statement")]:
            tactics = ["intro n", "rfl"] if statement.startswith("∀") else ["omega"]
            verdict = (await call(client, "verify_proof", statement=statement, tactics=tactics)).structured_content
            assert verdict["ok"] is True, (statement, verdict)
        # run_tactic's example, on the proposition it fits
        started = (await call(client, "start_proof", statement="∀ (n : Nat), n + 0 = n")).structured_content
        for tactic in seen[("run_tactic", "tactic")]:
            ran = (await call(client, "run_tactic", handle=started["handle"], state_id=0, tactic=tactic))
            assert ran.structured_content["status"] == "success", ran.content[0].text
        # the theorem form, tactic by tactic, to no goals
        theorem = (await call(client, "start_proof", statement=THEOREM_FORM)).structured_content
        assert "h : 0 < x" in theorem["goals_text"] and "⊢ 1 ≤ x" in theorem["goals_text"]
        done = await call(client, "run_tactic", handle=theorem["handle"], state_id=0, tactic="omega")
        assert done.structured_content["proof_complete"] is True
        # a refusal on the embedded backend names the embedded checker, never Lean
        refused = await client.call_tool("start_proof", {"statement": "(n + "})
        assert refused.is_error and "embedded checker: rejected the statement" in refused.content[0].text
        assert "Lean rejected" not in refused.content[0].text


async def test_every_search_tool_example_is_accepted(tools_overrides: dict[str, Any]) -> None:
    async with Client(serve("search", tools_overrides)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        seen = {(name, param): found for name, tool in tools.items() for param, found in examples(tool).items()}
        assert set(seen) == {("launch_search", "statements"), ("launch_search", "theorem_set")}
        assert seen[("launch_search", "statements")] == list(STATEMENT_EXAMPLES)
        jobs = [
            (await call(client, "launch_search", statements=seen[("launch_search", "statements")], policy="none",
                        budget={"max_nodes": 8})).structured_content["job_id"],
            *[
                (await call(client, "launch_search", theorem_set=s, limit=1, policy="none",
                            budget={"max_nodes": 4})).structured_content["job_id"]
                for s in seen[("launch_search", "theorem_set")]
            ],
        ]
        views = []
        for job in jobs:
            with anyio.fail_after(120):
                while (view := (await call(client, "job_status", job_id=job, wait_s=2)).structured_content)[
                    "status"
                ] == "running":
                    pass
            views.append(view)
        assert [v["status"] for v in views] == ["succeeded"] * len(jobs), views
        # the three forms of one statement family: every one searched, none refused as a statement
        full = (await call(client, "job_result", job_id=jobs[0], detail="full")).structured_content["result"]
        assert len(full["outcomes"]) == len(STATEMENT_EXAMPLES)
        assert all(o.get("reason") != "invalid_statement" for o in full["outcomes"]), full["outcomes"]
        assert full["solved"] == len(STATEMENT_EXAMPLES), full["outcomes"]


@pytest.mark.parametrize("name", ["stats", "blueprint"])
async def test_the_other_servers_give_no_example_without_a_case_here(name: str, tools_overrides: dict[str, Any]) -> None:
    """An example added to a stats or blueprint tool's description must get a call in this file."""
    async with Client(serve(name, tools_overrides)) as client:
        found = {t.name: examples(t) for t in (await client.list_tools()).tools}
    assert all(not e for e in found.values()), found
