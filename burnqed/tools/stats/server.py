"""The stats MCP server: training and held-out scores per iteration, and tool usage.

Declarations only; the logic is burnqed.tools.stats.service.StatsService. Held-out results are
hidden unless the server runs with ``tools.show_held_out`` (``--show-held-out``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.common.held_out import held_out_set_names
from burnqed.tools.common.serving import (
    READ_ONLY,
    Toolset,
    call_log_path,
    jobs_dir,
    new_server,
    tool_result,
)
from burnqed.tools.stats.service import (
    EvalResult,
    IterationComparison,
    SolveCurve,
    StatsService,
    ToolUsage,
    TrajectorySummaryResult,
)

__all__ = ["StatsContext", "build_server", "stats_service"]

INSTRUCTIONS = """\
Scores of the expert-iteration run that no LLM produced: trajectory counts, solve rates per
iteration, comparisons and the solve curve, and how the MCP tools have been used."""

Iteration = Annotated[int, Field(ge=0, description="iteration index N (iter_N)")]


def stats_service(config: ToolsRunConfig) -> StatsService:
    """The stats service for ``config``'s run directory and call log."""
    return StatsService(
        config.paths.run_dir,
        call_log_path(config),
        config.tools.show_held_out,
        jobs_dir(config),
        held_out_sets=held_out_set_names(config),
    )


StatsContext = Context[StatsService]
"""A stats tool's context: its lifespan state is the server's StatsService."""


def build_server(config: ToolsRunConfig) -> MCPServer[StatsService]:
    """The stats server for ``config``."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[StatsService]) -> AsyncIterator[StatsService]:
        yield stats_service(config)

    toolset: Toolset[StatsService] = Toolset(config)

    def stats(ctx: StatsContext) -> StatsService:
        return ctx.request_context.lifespan_context

    @toolset.tool(title='Trajectory statistics', annotations=READ_ONLY, not_both=("iteration", "job_id"))
    async def trajectory_summary(
        ctx: StatsContext,
        iteration: Annotated[int | None, Field(ge=0, description="iteration N (default: the latest)")] = None,
        job_id: Annotated[str | None, Field(description="or a search job's trajectories")] = None,
    ) -> Annotated[CallToolResult, TrajectorySummaryResult]:
        """Counts over explored states: theorems, proved, states, positive/negative labels, depth histogram
        (of at most one of an iteration or a job; neither: the latest iteration)."""
        return tool_result(stats(ctx).trajectory_summary(iteration, job_id))

    @toolset.tool(title='Evaluation result of an iteration', annotations=READ_ONLY)
    async def eval_result(
        ctx: StatsContext,
        iteration: Iteration,
        detail: Annotated[Literal["summary", "full"], Field(description="full adds per-theorem outcomes")] = "summary",
    ) -> Annotated[CallToolResult, EvalResult]:
        """The scores of one iteration: training solve rate, and held-out solve rates when this server may show them."""
        return tool_result(stats(ctx).eval_result(iteration, detail))

    @toolset.tool(title='Compare two iterations', annotations=READ_ONLY)
    async def compare_iterations(
        ctx: StatsContext, a: Iteration, b: Iteration
    ) -> Annotated[CallToolResult, IterationComparison]:
        """Iteration b against iteration a, paired theorem by theorem: solve rates, the difference with a 95%
        bootstrap interval and McNemar's p, on the training theorems both searched (counts only) and, when
        this server may show them, on the held-out evaluations (with the theorems that changed)."""
        return tool_result(stats(ctx).compare_iterations(a, b))

    @toolset.tool(title='Solve rate per iteration', annotations=READ_ONLY)
    async def solve_curve(ctx: StatsContext) -> Annotated[CallToolResult, SolveCurve]:
        """Solve rates of every iteration so far, in order."""
        return tool_result(stats(ctx).solve_curve())

    @toolset.tool(title='Tool-call statistics', annotations=READ_ONLY)
    async def tool_usage(
        ctx: StatsContext,
        server_name: Annotated[
            Literal["lean", "search", "stats", "blueprint"] | None, Field(description="only this server's tools")
        ] = None,
        since: Annotated[datetime | None, Field(description="only calls at or after this time (ISO 8601, UTC)")] = None,
    ) -> Annotated[CallToolResult, ToolUsage]:
        """How the MCP tools were used: calls, errors and latency per tool, from the tool-call log."""
        return tool_result(stats(ctx).tool_usage(server_name, since))

    return new_server("stats", config, lifespan, INSTRUCTIONS, toolset)
