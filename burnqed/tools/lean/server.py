"""The lean_pool MCP server: proof handles, tactics, the replay gate and the pool's status.

Declarations only: each tool validates its arguments (pydantic, from the annotations),
calls burnqed.tools.lean.tools.LeanTools and returns its typed result. The pool, the
lease registry and its sweeper live in the server's lifespan.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.lean.tools import (
    CloseProofResult,
    LeanTools,
    PoolStatusResult,
    RunTacticResult,
    StartProofResult,
    VerifyProofResult,
)
from burnqed.tools.lean.leases import HandleRegistry
from burnqed.tools.common.policy import STATEMENT_FORMS, TacticPolicy
from burnqed.tools.common.serving import (
    DESTRUCTIVE,
    MUTATING,
    READ_ONLY,
    Toolset,
    client_key,
    new_server,
    tool_result,
)

__all__ = ["LeanContext", "LeanServerState", "build_server", "lean_lifespan"]

INSTRUCTIONS = """\
Lean 4 proof checking, one tactic at a time. start_proof gives a handle and the root state's
goals; run_tactic(handle, state_id, tactic) returns a status (success, failed, parse_error,
timeout, lost) and on success the next state (states are immutable, so any earlier state can
be branched from again). A handle holds no Lean worker between calls and survives a crashed
worker, but counts against your cap: close_proof when done (idle handles expire).
verify_proof replays a whole tactic list from scratch and is the only check that counts.
Commands and meta-programming (#eval, run_cmd, set_option, IO, unsafe, sorry, ...) are refused."""


@dataclass(frozen=True)
class LeanServerState:
    """What the lean_pool server's tools share: the pool behind its lease registry."""

    tools: LeanTools


LeanContext = Context[LeanServerState]
"""A lean_pool tool's context: its lifespan state is the server's LeanServerState."""


@asynccontextmanager
async def lean_lifespan(config: ToolsRunConfig) -> AsyncIterator[LeanServerState]:
    """Start the pool and the lease sweeper; on exit close every leased handle, then the pool."""
    from burnqed.lean import LeanPool

    tc = config.tools
    registry: HandleRegistry[Any] = HandleRegistry(
        tc.handle_idle_timeout_s,
        tc.max_live_handles,
        tc.expired_memory,
        max_per_client=tc.max_handles_per_client,
        operators=frozenset(tc.operator_clients),
    )
    async with LeanPool(config.lean) as pool, anyio.create_task_group() as tg:
        tg.start_soon(registry.run_sweeper, tc.lease_sweep_interval_s, name="lease sweeper")
        try:
            yield LeanServerState(tools=LeanTools(pool, registry, TacticPolicy(tc), tc))
        finally:
            tg.cancel_scope.cancel()
            await registry.close_all()


def build_server(config: ToolsRunConfig) -> MCPServer[LeanServerState]:
    """The lean_pool server for ``config`` (nothing starts until a client connects)."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[LeanServerState]) -> AsyncIterator[LeanServerState]:
        async with lean_lifespan(config) as state:
            yield state

    toolset: Toolset[LeanServerState] = Toolset(config)

    def tools(ctx: LeanContext) -> LeanTools:
        return ctx.request_context.lifespan_context.tools

    @toolset.tool(title='Start a proof', annotations=MUTATING, exactly_one_of=("statement", "name"))
    async def start_proof(
        ctx: LeanContext,
        statement: Annotated[
            str | None,
            Field(description=STATEMENT_FORMS),
        ] = None,
        name: Annotated[str | None, Field(description="or the name of a theorem in the environment")] = None,
        header: Annotated[
            str | None,
            Field(description="the statement's file header: import, open and set_option lines (e.g. miniF2F's)"),
        ] = None,
    ) -> Annotated[CallToolResult, StartProofResult]:
        """Start a proof of exactly one of: a statement, or the name of a theorem. Returns a handle, the root
        state id (0) and its goals. Close the handle with close_proof when done (idle handles expire)."""
        return tool_result(await tools(ctx).start_proof(statement, name, client=client_key(ctx), header=header))

    @toolset.tool(title='Run a tactic', annotations=MUTATING)
    async def run_tactic(
        ctx: LeanContext,
        handle: Annotated[str, Field(description="the handle from start_proof")],
        state_id: Annotated[int, Field(ge=0, description="the state to run the tactic on")],
        tactic: Annotated[str, Field(min_length=1, description="one Lean 4 tactic, e.g. 'intro n'")],
        goal_id: Annotated[int | None, Field(ge=0, description="which goal of the state (default: the first)")] = None,
    ) -> Annotated[CallToolResult, RunTacticResult]:
        """Run one tactic on a state of a handle. status is one of success (next_state_id and its goals),
        failed (Lean's error messages), parse_error, timeout, or lost (the worker died; the handle
        still works, its states are replayed on another worker)."""
        return tool_result(await tools(ctx).run_tactic(handle, state_id, tactic, goal_id, client=client_key(ctx)))

    @toolset.tool(title='Close a proof handle', annotations=DESTRUCTIVE)
    async def close_proof(
        ctx: LeanContext,
        handle: Annotated[str, Field(description="the handle from start_proof")],
    ) -> Annotated[CallToolResult, CloseProofResult]:
        """Close a proof handle and release its states."""
        return tool_result(await tools(ctx).close_proof(handle, client=client_key(ctx)))

    @toolset.tool(title='Verify a whole proof', annotations=READ_ONLY, exactly_one_of=("statement", "name"))
    async def verify_proof(
        ctx: LeanContext,
        tactics: Annotated[list[str], Field(min_length=1, description="the whole proof, one tactic per item")],
        statement: Annotated[str | None, Field(description=STATEMENT_FORMS)] = None,
        name: Annotated[str | None, Field(description="or the name of a theorem in the environment")] = None,
        header: Annotated[str | None, Field(description="the statement's file header (import, open, set_option)")] = None,
    ) -> Annotated[CallToolResult, VerifyProofResult]:
        """Replay a tactic list from a fresh start on exactly one of a statement or a theorem name: ok only
        if no goals, no sorry and no unassigned metavariables remain. The only check that counts."""
        return tool_result(await tools(ctx).verify_proof(tactics, statement, name, header, client=client_key(ctx)))

    @toolset.tool(title='Lean pool status', annotations=READ_ONLY)
    async def pool_status(ctx: LeanContext) -> Annotated[CallToolResult, PoolStatusResult]:
        """The Lean pool's workers and requests, and the open proof handles."""
        return tool_result(tools(ctx).pool_status())

    return new_server("lean", config, lifespan, INSTRUCTIONS, toolset)
