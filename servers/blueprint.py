"""MCP server: the blueprint (list_targets, get_target, update_status, schedule_iteration)."""

from burnqed.cli.serve import module_server
from burnqed.tools.blueprint.server import build_server

__all__ = ["build_server", "mcp"]  # noqa: F822 - mcp is built on first access

__getattr__ = module_server(build_server)
