"""MCP server: the Lean pool (start_proof, run_tactic, close_proof, verify_proof, pool_status)."""

from burnqed.cli.serve import module_server
from burnqed.tools.lean.server import build_server

__all__ = ["build_server", "mcp"]  # noqa: F822 - mcp is built on first access

__getattr__ = module_server(build_server)
