"""Tool schemas say what the tools require: a title on every tool, "exactly one of" as a
JSON-schema oneOf, the statuses and "close your handle" in the descriptions."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from burnqed.config import BurnqedConfig
from burnqed.lean.results import TacticStatus
from burnqed.tools.servers import build_named_server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name", ["lean", "search", "stats", "blueprint"])
async def test_every_tool_has_a_title_and_a_description(name: str, tools_config: BurnqedConfig) -> None:
    async with Client(build_named_server(name, tools_config)) as client:
        for tool in (await client.list_tools()).tools:
            assert tool.title and tool.title[0].isupper(), tool.name
            assert tool.description and len(tool.description) > 20, tool.name


async def test_exactly_one_of_is_in_the_schema_and_the_statuses_in_the_descriptions(
    tools_config: BurnqedConfig,
) -> None:
    tools: dict[str, Any] = {}
    for name in ("lean", "search"):
        async with Client(build_named_server(name, tools_config)) as client:
            tools |= {t.name: t for t in (await client.list_tools()).tools}
    for tool, fields in (("start_proof", ["statement", "name"]), ("verify_proof", ["statement", "name"]),
                         ("launch_search", ["theorem_set", "statements"])):
        assert tools[tool].input_schema["oneOf"] == [
            {"required": [f], "properties": {f: {"not": {"type": "null"}}}} for f in fields
        ]
        assert tools[tool].input_schema["additionalProperties"] is False
        assert "exactly one of" in tools[tool].description
    run_tactic = tools["run_tactic"].description
    assert all(status.value in run_tactic for status in TacticStatus)
    assert "close_proof" in tools["start_proof"].description
    assert all(s in tools["launch_search"].description for s in ("succeeded", "cancelled", "interrupted"))
    async with Client(build_named_server("lean", tools_config)) as client:
        both = await client.call_tool("start_proof", {"statement": "∀ (n : Nat), n = n", "name": "Nat.add_comm"})
        assert both.is_error
