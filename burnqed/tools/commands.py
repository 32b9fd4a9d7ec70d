"""Sub-commands of burnqed.tools: ``burnqed serve lean|search|stats|blueprint`` (MCP over stdio)."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from burnqed.config import BurnqedConfig

__all__ = ["SERVERS", "build_named_server", "register"]

# server name -> "module:factory"; the factories live in burnqed.tools (servers/ re-exports them)
SERVERS: dict[str, str] = {
    "lean": "burnqed.tools.lean_server:build_server",
    "search": "burnqed.tools.search_server:build_server",
    "stats": "burnqed.tools.stats_server:build_server",
    "blueprint": "burnqed.tools.blueprint_server:build_server",
}


def build_named_server(name: str, config: BurnqedConfig) -> Any:
    """Build the MCP server called ``name`` (one of SERVERS)."""
    module_name, _, attr = SERVERS[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)(config)


async def _serve(args: argparse.Namespace, config: BurnqedConfig) -> int:
    server = build_named_server(args.server, config)
    await server.run_stdio_async()
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    serve = sub.add_parser(
        "serve",
        parents=[parent],
        help="run an MCP server on stdio (for Claude Code / Desktop, mcp dev, the coordinator)",
        description="Run one of burnqed's MCP servers over stdio. Tool calls are logged to "
        "<paths.logs_dir>/tool_calls.jsonl.",
    )
    serve.add_argument("server", choices=sorted(SERVERS), help="which server")
    serve.add_argument(
        "--show-held-out",
        action="store_true",
        default=None,
        help="stats server: expose held-out evaluation results (never for the coordinator)",
    )
    serve.set_defaults(handler=_serve, config_overrides=lambda a: {"tools.show_held_out": a.show_held_out})
