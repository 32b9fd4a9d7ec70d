"""A server pointed at a missing or empty run directory says so (issue 38: "no iterations yet",
"0 targets" with no word that the directory was not there)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from burnqed.config import load_config
from burnqed.tools.servers import build_named_server

pytestmark = pytest.mark.anyio


async def text(name: str, overrides: dict[str, Any], tool: str) -> str:
    async with Client(build_named_server(name, load_config(None, overrides))) as client:
        result = await client.call_tool(tool, {})
        return str(result.content[0].text)


async def test_stats_and_blueprint_name_a_missing_run_directory(tools_overrides: dict[str, Any], tmp_path: Any) -> None:
    missing = {**tools_overrides, "paths.run_dir": str(tmp_path / "nowhere"), "blueprint.path": str(tmp_path / "no.md")}
    curve = await text("stats", missing, "solve_curve")
    assert curve.startswith("no iterations yet: the run directory (paths.run_dir) does not exist")
    assert str(tmp_path) not in curve  # tool texts never show the server's paths
    targets = await text("blueprint", missing, "list_targets")
    assert targets.startswith("0 targets (none): the BLUEPRINT file (blueprint.path) does not exist")
    (tmp_path / "empty").mkdir()
    empty = await text("stats", {**tools_overrides, "paths.run_dir": str(tmp_path / "empty")}, "solve_curve")
    assert empty == "no iterations yet: the run directory (paths.run_dir) is empty: no run has written there yet"
