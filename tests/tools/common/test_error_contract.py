"""The error contract of the tool layer: a lower-layer error leaving a tool reaches the client
as the tool error of the table in burnqed.tools.common.errors, with its message (an unmapped
exception would reach it as a bare "Error executing tool")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.blueprint import BlueprintError
from burnqed.cluster.errors import ClusterStartError, RayMissing
from burnqed.config import load_config
from burnqed.data.theorems import TheoremSetError
from burnqed.ebm.errors import EBMCheckpointError
from burnqed.lean import errors as lean
from burnqed.policy.errors import PolicyLoadError
from burnqed.tools.common import errors as tools
from burnqed.tools.common.errors import as_tool_error
from burnqed.tools.search.server import build_server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (lean.InvalidStatement("parse", "bad"), tools.InvalidInput),
        (lean.ForeignState("not yours"), tools.InvalidInput),
        (lean.HandleLost("gone"), tools.LeaseLost),
        (lean.LeanTimeout("slow"), tools.LeanUnavailable),
        (PolicyLoadError("no model"), tools.ServiceUnavailable),
        (EBMCheckpointError("no head"), tools.ServiceUnavailable),
        (BlueprintError("locked"), tools.BlueprintToolError),
        (TheoremSetError("no set"), tools.InvalidInput),
        (RayMissing("cluster mode needs Ray"), tools.ServiceUnavailable),
        (ClusterStartError("cannot start or join Ray"), tools.ServiceUnavailable),
    ],
)
def test_every_row_of_the_table(error: Exception, expected: type[tools.ToolsError]) -> None:
    mapped = as_tool_error(error)
    assert type(mapped) is expected and str(error) in str(mapped) and mapped.__cause__ is error


def test_anything_else_is_not_mapped() -> None:
    assert as_tool_error(ZeroDivisionError("bug")) is None
    own = tools.InvalidInput("x")
    assert as_tool_error(own) is own


async def test_a_policy_error_reaches_the_client_with_its_message(
    tools_overrides: dict[str, Any], tmp_path: Path
) -> None:
    config = load_config(None, {**tools_overrides, "policy.model_dir": str(tmp_path / "no-model")})
    async with Client(build_server(config)) as client:
        with anyio.fail_after(60):
            result = await client.call_tool("generate_tactics", {"state": "⊢ True", "n": 2, "policy": "model"})
    assert result.is_error
    assert "does not exist" in result.content[0].text, result.content[0].text


@pytest.mark.parametrize(
    ("error", "call", "expected", "text"),
    [
        (
            lean.InvalidStatement("parse", "bad"),
            tools.LeanCall(subject="the statement", action="verify"),
            tools.InvalidInput,
            "Lean rejected the statement: parse: bad",
        ),
        (
            lean.InvalidStatement("parse", "bad"),
            tools.LeanCall(checker="embedded checker", subject="the statement"),
            tools.InvalidInput,
            "embedded checker: rejected the statement: parse: bad",
        ),
        (
            lean.ForeignState("x"),
            tools.LeanCall(handle="h1", state_id=3),
            tools.InvalidInput,
            "state 3 does not belong to handle h1",
        ),
        (
            lean.HandleLost("gone"),
            tools.LeanCall(handle="h1"),
            tools.LeaseLost,
            "handle h1 is lost (its Lean worker died); start a new proof",
        ),
        (
            lean.LeanTimeout("slow"),
            tools.LeanCall(action="verify"),
            tools.LeanUnavailable,
            "the Lean pool could not verify: LeanTimeout: slow",
        ),
    ],
)
def test_one_lean_mapping_in_a_calls_words(
    error: lean.LeanError, call: tools.LeanCall, expected: type[tools.ToolsError], text: str
) -> None:
    """The lean tools and the contract share one Lean mapping: the same tool error, the call's words."""
    mapped = tools.lean_tool_error(error, call)
    assert type(mapped) is expected and str(mapped) == text and mapped.__cause__ is error
    assert type(as_tool_error(error)) is expected
