"""MCP server: statistics (trajectory_summary, eval_result, compare_iterations, solve_curve, tool_usage)."""

from burnqed.cli.serve import module_server
from burnqed.tools.stats.server import build_server

__all__ = ["build_server", "mcp"]  # noqa: F822 - mcp is built on first access

__getattr__ = module_server(build_server)
