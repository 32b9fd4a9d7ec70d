"""A Toolset wraps each tool where it is declared, through the SDK's public Tool: the error
contract, a schema that refuses unknown arguments and its argument rules, a typed lifespan."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from burnqed.config import load_config
from burnqed.lean import errors as lean
from burnqed.tools.common.serving import MUTATING, Toolset, new_server, tool_result

pytestmark = pytest.mark.anyio

TOOLS_DIR = Path(__file__).resolve().parents[3] / "burnqed" / "tools"


@dataclass(frozen=True)
class _State:
    greeting: str


class _Said(BaseModel):
    text: str


def _server(tmp_path: Path) -> MCPServer[_State]:
    config = load_config(None, {"paths.logs_dir": str(tmp_path / "logs"), "paths.run_dir": str(tmp_path / "run")})
    toolset: Toolset[_State] = Toolset(config)

    @asynccontextmanager
    async def lifespan(_server: MCPServer[_State]) -> AsyncIterator[_State]:
        yield _State("hello")

    @toolset.tool(title="Say", annotations=MUTATING, exactly_one_of=("a", "b"))
    async def say(
        ctx: Context[_State],
        a: Annotated[str | None, Field(description="a")] = None,
        b: Annotated[str | None, Field(description="b")] = None,
    ) -> Annotated[CallToolResult, _Said]:
        """Say a or b; b='lost' meets a Lean error."""
        if b == "lost":
            raise lean.HandleLost(f"handle gone under {tmp_path}/secret")
        return tool_result(_Said(text=f"{ctx.request_context.lifespan_context.greeting} {a or b}"))

    return new_server("test", config, lifespan, "test", toolset)


async def test_a_declared_tool_is_served_wrapped_with_its_rules(tmp_path: Path) -> None:
    async with Client(_server(tmp_path)) as client:
        with anyio.fail_after(30):
            (tool,) = (await client.list_tools()).tools
            ok = await client.call_tool("say", {"a": "x"})
            lost = await client.call_tool("say", {"b": "lost"})
            unknown = await client.call_tool("say", {"a": "x", "c": 1})
    schema: dict[str, Any] = tool.input_schema
    assert schema["additionalProperties"] is False and [r["required"] for r in schema["oneOf"]] == [["a"], ["b"]]
    assert "ctx" not in schema["properties"] and tool.output_schema is not None
    assert not ok.is_error and ok.structured_content == {"text": "hello x"}
    # the contract: the Lean error is a tool error with its message, the server's paths scrubbed
    assert lost.is_error and "handle gone under" in lost.content[0].text and str(tmp_path) not in lost.content[0].text
    assert unknown.is_error and unknown.content[0].text.startswith("refused [unknown_argument]")


def test_a_tool_declared_twice_is_refused() -> None:
    toolset: Toolset[_State] = Toolset()

    async def twice() -> str:
        """A tool."""
        return ""

    toolset.tool(title="t", annotations=MUTATING)(twice)
    with pytest.raises(ValueError, match="declared twice"):
        toolset.tool(title="t", annotations=MUTATING)(twice)


def test_the_tools_reach_no_sdk_private_and_no_untyped_context() -> None:
    """Tools are declared through the SDK's public API, each context typed by its server's lifespan state."""
    for path in sorted(TOOLS_DIR.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "_tool_manager" not in text, path
        assert not re.search(r"Context\[Any,\s*Any\]", text), path
