"""The tools layer's files in a run directory (burnqed.rundir.RunDir): the search server's jobs
and the MCP tool-call log. Every other module asks here for them."""

from __future__ import annotations

from pathlib import Path

from burnqed.rundir import RunDir

__all__ = ["TOOL_CALLS_NAME", "jobs_in", "tool_call_log"]

TOOL_CALLS_NAME = "tool_calls.jsonl"


def jobs_in(run: RunDir) -> Path:
    """The search server's job records and results in ``run``."""
    return run.root / "jobs"


def tool_call_log(logs_dir: Path) -> Path:
    """The MCP tool-call log in the logs folder ``logs_dir`` (a run's ``RunDir.logs``, or
    ``PathsConfig.logs_dir``)."""
    return logs_dir / TOOL_CALLS_NAME
