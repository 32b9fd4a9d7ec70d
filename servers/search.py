"""MCP server: search jobs (launch_search, job_status, job_result, cancel_job, list_jobs, generate_tactics, score_states)."""

from burnqed.cli.serve import module_server
from burnqed.tools.search.server import build_server

__all__ = ["build_server", "mcp"]  # noqa: F822 - mcp is built on first access

__getattr__ = module_server(build_server)
