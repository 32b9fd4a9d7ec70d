"""The blueprint MCP server: targets, status changes with attempt accounting, scheduled iterations.

Declarations only; the logic is burnqed.tools.blueprint.tools.BlueprintTools over
burnqed.blueprint.BlueprintStore (config.blueprint.path). No tool changes a statement.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from burnqed.blueprint import IterationSpec
from burnqed.tools.blueprint.tools import BlueprintTools, EntryView, TargetList
from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.common.held_out import held_out_set_names
from burnqed.tools.blueprint.proof_gate import ProofGate
from burnqed.tools.common.serving import (
    MUTATING,
    READ_ONLY,
    Toolset,
    jobs_dir,
    new_server,
    tool_result,
)

__all__ = ["BlueprintContext", "build_server"]

INSTRUCTIONS = """\
The BLUEPRINT.md of the run: targets (theorems, lemmas, theorem sets) with status and attempts
N / M, and scheduled expert iterations. Statements are locked when registered and cannot change.
Schedule an iteration to have the daemon run it; target status changes count attempts.
A target becomes done only through record_proof(label, job_id): the server replays the proof
the search job found against the locked statement. exhausted follows from a spent budget."""

StatusName = Literal["todo", "running", "partial", "done", "failed", "exhausted"]
SettableStatus = Literal["todo", "running", "partial", "failed"]


BlueprintContext = Context[BlueprintTools]
"""A blueprint tool's context: its lifespan state is the server's BlueprintTools."""


def build_server(config: ToolsRunConfig) -> MCPServer[BlueprintTools]:
    """The blueprint server for ``config.blueprint``."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[BlueprintTools]) -> AsyncIterator[BlueprintTools]:
        async with ProofGate(config) as gate:
            yield BlueprintTools(
                config.blueprint.path,
                config.blueprint,
                show_held_out=config.tools.show_held_out,
                gate=gate,
                jobs_dir=jobs_dir(config),
                held_out_sets=held_out_set_names(config),
            )

    toolset: Toolset[BlueprintTools] = Toolset(config)

    def bp(ctx: BlueprintContext) -> BlueprintTools:
        return ctx.request_context.lifespan_context

    @toolset.tool(title='List blueprint targets', annotations=READ_ONLY)
    async def list_targets(
        ctx: BlueprintContext,
        status: Annotated[StatusName | None, Field(description="only targets with this status")] = None,
        detail: Annotated[Literal["summary", "full"], Field(description="full adds statements and notes")] = "summary",
    ) -> Annotated[CallToolResult, TargetList]:
        """The blueprint's targets with status and attempts, optionally of one status."""
        return tool_result(bp(ctx).list_targets(status, detail))

    @toolset.tool(title='Get a blueprint entry', annotations=READ_ONLY)
    async def get_target(
        ctx: BlueprintContext,
        label: Annotated[str, Field(min_length=1, description="the entry's label")],
    ) -> Annotated[CallToolResult, EntryView]:
        """One blueprint entry in full: statement, status, attempts, uses, plan, results, notes."""
        return tool_result(bp(ctx).get_target(label))

    @toolset.tool(title="Update a target's status", annotations=MUTATING)
    async def update_status(
        ctx: BlueprintContext,
        label: Annotated[str, Field(min_length=1, description="a target's label")],
        status: Annotated[SettableStatus, Field(description="the new status (done: record_proof; exhausted: automatic)")],
        note: Annotated[str | None, Field(max_length=2000, description="why (kept in the entry's notes)")] = None,
    ) -> Annotated[CallToolResult, EntryView]:
        """Change a target's status to todo, running, partial or failed; attempts are counted and the
        target becomes exhausted when its budget is spent. done is set only by record_proof."""
        return tool_result(bp(ctx).update_status(label, status, note))

    @toolset.tool(title='Record a replayed proof', annotations=MUTATING)
    async def record_proof(
        ctx: BlueprintContext,
        label: Annotated[str, Field(min_length=1, description="a theorem's or lemma's label")],
        job_id: Annotated[str, Field(min_length=1, description="the finished search job that proved it")],
    ) -> Annotated[CallToolResult, EntryView]:
        """Mark a target done: the server takes the proof from the job's stored result and replays it
        against the locked statement; the target is done only if the replay succeeds."""
        return tool_result(await bp(ctx).record_proof(label, job_id))

    @toolset.tool(title='Schedule an expert iteration', annotations=MUTATING)
    async def schedule_iteration(
        ctx: BlueprintContext,
        spec: Annotated[IterationSpec, Field(description="what the iteration should do")],
    ) -> Annotated[CallToolResult, EntryView]:
        """Schedule an expert iteration (entry iter_N, status todo) for the daemon to run."""
        return tool_result(bp(ctx).schedule_iteration(spec))

    return new_server("blueprint", config, lifespan, INSTRUCTIONS, toolset)
