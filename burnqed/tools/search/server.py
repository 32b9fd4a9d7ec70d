"""The search MCP server: search jobs, tactic generation and state scoring.

Declarations only; the logic is burnqed.tools.search.tools.SearchTools. The pool, the
job manager and the host of the lazily loaded policy / energy head live in the lifespan,
so jobs outlive the client that launched them (and are recorded on disk).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from burnqed.tools.common.config import ToolsRunConfig
from burnqed.writelock import Holder
from burnqed.tools.search.host import ContextHost
from burnqed.tools.common.jobs import JobManager, JobRecord, JobStatus
from burnqed.tools.common.policy import STATEMENT_FORMS
from burnqed.tools.search.tools import (
    GenerateTacticsResult,
    JobList,
    JobResultView,
    JobView,
    ScoreStatesResult,
    SearchBudget,
    SearchTools,
)
from burnqed.tools.common.serving import (
    DESTRUCTIVE,
    MUTATING,
    READ_ONLY,
    Toolset,
    client_key,
    jobs_dir,
    new_server,
    tool_result,
)

__all__ = ["SearchContext", "build_server", "search_lifespan"]

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Best-first proof search as background jobs. launch_search(theorem_set or statements, budget)
returns a job id at once; job_status shows progress (pass wait_s to wait a few seconds, with
progress notifications if you ask for them); job_result gives the solve rate (detail='full':
every theorem's outcome and proof). generate_tactics and score_states expose the policy and
the energy head on single states."""

JobId = Annotated[str, Field(min_length=1, description="the id launch_search returned")]
PolicyArg = Annotated[
    Literal["model", "none"], Field(description="'model': the policy LM; 'none': automation tactics only")
]

SearchContext = Context[SearchTools]
"""A search tool's context: its lifespan state is the server's SearchTools."""


@asynccontextmanager
async def search_lifespan(config: ToolsRunConfig) -> AsyncIterator[SearchTools]:
    """Pool, job manager and component host for the search server. The server writes jobs
    into the run directory, so it holds the run's writer lock for its life (a child of the
    daemon or of ``run-once`` works under its parent's; another writer there refuses it)."""
    from burnqed.lean import LeanPool
    from burnqed.rundir import RunDir

    with RunDir(config.paths.run_dir).hold("burnqed serve search") as held:
        host = ContextHost()
        tools: SearchTools | None = None
        try:
            async with (
                LeanPool(config.lean) as pool,
                JobManager(jobs_dir(config), config.tools.max_running_jobs) as jobs,
                anyio.create_task_group() as tg,
            ):
                await tg.start(host.run)
                if held.borrowed and held.holder is not None:
                    tg.start_soon(_end_with, held.holder)
                try:
                    tools = SearchTools(config, pool, jobs, host)
                    tg.start_soon(_warm, tools, name="held-out index")
                    yield tools
                finally:
                    tg.cancel_scope.cancel()
        finally:
            if tools is not None:
                tools.cluster.close()  # after the jobs (and their campaigns' actors) have stopped


async def _end_with(holder: Holder) -> None:
    """A server working under its parent's run lock (the daemon's child) ends when the parent
    is gone (a SIGKILL): it must not go on writing jobs beside the next writer of the run."""
    while holder.alive():
        await anyio.sleep(0.25)
    log.warning("the run's writer %s is gone; this search server stops", holder.describe())
    os.kill(os.getpid(), signal.SIGTERM)


async def _warm(tools: SearchTools) -> None:
    try:
        await tools.warm_held_out()
    except Exception:  # the index is built again on first use; a failure here only loses the head start
        log.warning("could not elaborate the held-out set ahead of time", exc_info=True)


def build_server(config: ToolsRunConfig) -> MCPServer[SearchTools]:
    """The search server for ``config``."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[SearchTools]) -> AsyncIterator[SearchTools]:
        async with search_lifespan(config) as tools:
            yield tools

    toolset: Toolset[SearchTools] = Toolset(config)

    def search(ctx: SearchContext) -> SearchTools:
        return ctx.request_context.lifespan_context

    @toolset.tool(title='Launch a proof search', annotations=MUTATING, exactly_one_of=("theorem_set", "statements"))
    async def launch_search(
        ctx: SearchContext,
        theorem_set: Annotated[str | None, Field(description="a built-in theorem set, e.g. 'core'")] = None,
        statements: Annotated[
            list[str] | None, Field(min_length=1, description=f"or statements to prove, each {STATEMENT_FORMS}")
        ] = None,
        budget: Annotated[SearchBudget | None, Field(description="per-theorem budget (default: server config)")] = None,
        limit: Annotated[int | None, Field(ge=1, description="only the first N theorems of the set")] = None,
        policy: PolicyArg = "model",
        use_ebm: Annotated[bool, Field(description="rank states with the energy head")] = False,
        cluster: Annotated[
            bool,
            Field(description="spread the statements over the Ray cluster's Lean actors (only on a server whose "
                  "operator enabled cluster jobs; an error if Ray is missing or the cluster cannot be reached)"),
        ] = False,
    ) -> Annotated[CallToolResult, JobView]:
        """Start a best-first search job over exactly one of: a theorem set or a list of statements.
        Returns the job id at once; job status is one of running, succeeded, failed, cancelled,
        interrupted (the server stopped). Jobs outlive the client; cancel_job stops one."""
        view = await search(ctx).launch_search(
            theorem_set, statements, budget or SearchBudget(), policy, use_ebm, limit, cluster, client=client_key(ctx)
        )
        return tool_result(view)

    @toolset.tool(title='Search job status', annotations=READ_ONLY)
    async def job_status(
        ctx: SearchContext,
        job_id: JobId,
        wait_s: Annotated[
            float,
            Field(ge=0, le=30, description="wait up to this long (capped at a few seconds) for the job to finish"),
        ] = 0.0,
    ) -> Annotated[CallToolResult, JobView]:
        """A job's status (running / succeeded / failed / cancelled / interrupted) and progress."""

        async def progress(record: JobRecord) -> None:
            p = record.progress
            await ctx.report_progress(p.done, p.total or None, f"{p.succeeded} proved")

        return tool_result(await search(ctx).wait_job(job_id, wait_s, progress))

    @toolset.tool(title='Search job result', annotations=READ_ONLY)
    async def job_result(
        ctx: SearchContext,
        job_id: JobId,
        detail: Annotated[
            Literal["summary", "full"], Field(description="full: every theorem's outcome and proof")
        ] = "summary",
    ) -> Annotated[CallToolResult, JobResultView]:
        """A finished job's result: solve rate and budget (detail='full': the whole evaluation report)."""
        return tool_result(await search(ctx).job_result(job_id, detail))

    @toolset.tool(title='Cancel a search job', annotations=DESTRUCTIVE)
    async def cancel_job(ctx: SearchContext, job_id: JobId) -> Annotated[CallToolResult, JobView]:
        """Cancel a running job (what it found so far stays written)."""
        return tool_result(await search(ctx).cancel_job(job_id, client=client_key(ctx)))

    @toolset.tool(title='List search jobs', annotations=READ_ONLY)
    async def list_jobs(
        ctx: SearchContext,
        status: Annotated[JobStatus | None, Field(description="only jobs with this status")] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 20,
    ) -> Annotated[CallToolResult, JobList]:
        """Search jobs, newest first (including those of earlier server runs)."""
        return tool_result(search(ctx).list_jobs(status, limit))

    @toolset.tool(title='Sample tactics from the policy', annotations=READ_ONLY)
    async def generate_tactics(
        ctx: SearchContext,
        state: Annotated[str, Field(min_length=1, description="a proof state as Lean prints it (h : T lines, ⊢ goal)")],
        n: Annotated[int, Field(ge=1, le=64, description="how many candidates")] = 8,
        policy: PolicyArg = "model",
    ) -> Annotated[CallToolResult, GenerateTacticsResult]:
        """Tactics the policy proposes for a proof state, best first, with log-probabilities."""
        return tool_result(await search(ctx).generate_tactics(state, n, policy))

    @toolset.tool(title='Score proof states (energy head)', annotations=READ_ONLY)
    async def score_states(
        ctx: SearchContext,
        states: Annotated[list[str], Field(min_length=1, description="proof states as Lean prints them")],
    ) -> Annotated[CallToolResult, ScoreStatesResult]:
        """Energies of proof states from the energy head (lower = more provable)."""
        return tool_result(await search(ctx).score_states(states))

    return new_server("search", config, lifespan, INSTRUCTIONS, toolset)
