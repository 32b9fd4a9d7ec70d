"""The four MCP servers by name, and building one from a config."""

from __future__ import annotations

import importlib
from typing import Any

from burnqed.collector import paused
from burnqed.tools.common.config import ToolsRunConfig

__all__ = ["SERVERS", "build_named_server"]

# server name -> "module:factory"; the factories live in burnqed.tools (servers/ re-exports them)
SERVERS: dict[str, str] = {
    "lean": "burnqed.tools.lean.server:build_server",
    "search": "burnqed.tools.search.server:build_server",
    "stats": "burnqed.tools.stats.server:build_server",
    "blueprint": "burnqed.tools.blueprint.server:build_server",
}


def build_named_server(name: str, config: ToolsRunConfig) -> Any:
    """Build the MCP server called ``name`` (one of SERVERS)."""
    module_name, _, attr = SERVERS[name].partition(":")
    with paused():  # the MCP SDK's models and the tools' schemas: a large heap at once
        return getattr(importlib.import_module(module_name), attr)(config)
