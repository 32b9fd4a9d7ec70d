"""The logic of the lean_pool tools: leased proof handles over the pool, under the tactic policy.

``LeanTools`` is what the server calls; it takes plain arguments and returns the output
models below. One client (over HTTP, one token) runs at most ``lean.num_workers - 1`` Lean
calls at once and a handle holds at most ToolsConfig.max_handle_states states, none deeper
than max_handle_depth tactics from its root (a cold call replays at most that many), so a
client replaying deep handles never takes the last worker from another client's
verify_proof. Lean-layer errors are translated here (``raise … from``) by the one mapping of
burnqed.tools.common.errors (``lean_tool_error``), in the words of the call that met them, so the
server stays a list of declarations. A failed
tactic is a result with status ``failed``, never an error.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

from pydantic import BaseModel, ConfigDict, Field

from burnqed.lean.detached import DetachedProof
from burnqed.lean.errors import HandleLost, LeanError, UnknownHandle
from burnqed.lean.errors import InvalidInput as LeanInvalidInput
from burnqed.lean.interface import ProofPool
from burnqed.lean.protocol import Goal, Message, render_goal, render_goals
from burnqed.lean.results import PoolStatus, TacticOutcome, TacticStatus
from burnqed.lean.statement import StatementError, split_statement
from burnqed.lean.target import ProofTarget
from burnqed.tools.common.config import ToolsConfig
from burnqed.tools.common.errors import InvalidInput, LeanCall, LeaseError, Refused, lean_tool_error
from burnqed.tools.lean.fairness import FairLanes
from burnqed.tools.lean.leases import HandleRegistry
from burnqed.tools.common.policy import TacticPolicy, normalise_blanks

__all__ = [
    "CloseProofResult",
    "GoalView",
    "Hypothesis",
    "LeanTools",
    "MessageView",
    "PoolStatusResult",
    "RunTacticResult",
    "StartProofResult",
    "VerifyProofResult",
    "checker_name",
    "goal_view",
]

_LEAN_NAME = re.compile(r"^[^\s()\[\]{}#`,;:]+$")


# ---------------------------------------------------------------- output models


def checker_name(backend: str) -> str:
    """The name a refusal carries: "embedded checker" for the offline backend, "Lean" for a real one."""
    return "embedded checker" if backend == "embedded" else "Lean"


def _target(statement: str | None, name: str | None, header: str | None = None) -> ProofTarget:
    """A tool call's proof target, built at the boundary (ProofTarget holds the rule "exactly one
    of statement or name"; its refusal becomes the tools' InvalidInput)."""
    try:
        return ProofTarget(statement=statement, name=name, header=header)
    except LeanInvalidInput as exc:
        raise InvalidInput(str(exc)) from exc


class Hypothesis(BaseModel):
    """One local hypothesis of a goal."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    value: str | None = None


class GoalView(BaseModel):
    """A goal both as Lean prints it and structured."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="the goal as Lean prints it (h : T lines, then ⊢ target)")
    case: str | None = Field(default=None, description="the goal's case name, if any")
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    target: str


def goal_view(goal: Goal) -> GoalView:
    """A protocol goal as a GoalView."""
    hyps = [
        Hypothesis(
            name=v.user_name,
            type=v.type.pp if v.type is not None and v.type.pp is not None else "?",
            value=v.value.pp if v.value is not None else None,
        )
        for v in goal.vars
    ]
    target = goal.target.pp if goal.target.pp is not None else "?"
    return GoalView(text=render_goal(goal), case=goal.user_name, hypotheses=hyps, target=target)


class MessageView(BaseModel):
    """A Lean message."""

    model_config = ConfigDict(frozen=True)

    severity: str
    text: str
    line: int | None = None
    column: int | None = None


def _message_view(message: Message) -> MessageView:
    pos = message.pos
    return MessageView(
        severity=message.severity,
        text=message.data,
        line=pos.line if pos is not None else None,
        column=pos.column if pos is not None else None,
    )


class StartProofResult(BaseModel):
    """A new proof: its handle (a lease), the root state and its goals."""

    model_config = ConfigDict(frozen=True)

    handle: str = Field(description="pass to run_tactic / close_proof; expires when idle")
    state_id: int = Field(description="the root state")
    statement: str | None
    name: str | None = None
    goals: list[GoalView]
    goals_text: str = Field(description="all goals as Lean prints them")
    backend: str
    idle_timeout_s: float

    def summary(self) -> str:
        """Short text for the model."""
        return f"handle {self.handle}, state {self.state_id}:\n{self.goals_text}"


class RunTacticResult(BaseModel):
    """What one tactic did."""

    model_config = ConfigDict(frozen=True)

    handle: str
    state_id: int
    tactic: str
    status: TacticStatus
    next_state_id: int | None = None
    goals: list[GoalView] = Field(default_factory=list)
    goals_text: str = Field(default="", description="the new goals as Lean prints them ('no goals' when done)")
    messages: list[MessageView] = Field(default_factory=list)
    parse_error: str | None = None
    proof_complete: bool = Field(description="no goals left (verify_proof is the real check)")
    handle_alive: bool = Field(default=True, description="false after status 'lost': start a new proof")
    elapsed_ms: float = 0.0
    backend: str = Field(default="", description="who checked: embedded (the offline checker, not Lean), pantograph, command")

    def summary(self) -> str:
        """Short text for the model."""
        if self.status is TacticStatus.SUCCESS:
            head = "proof complete" if self.proof_complete else f"state {self.next_state_id}"
            return f"{self.status.value}: {head}\n{self.goals_text}"
        detail = self.parse_error or "\n".join(m.text for m in self.messages if m.severity == "error")
        who = "embedded checker: " if self.backend == "embedded" else ""
        return f"{who}{self.status.value}: {detail}".rstrip(": ")


class CloseProofResult(BaseModel):
    """A closed proof handle."""

    model_config = ConfigDict(frozen=True)

    handle: str
    closed: bool

    def summary(self) -> str:
        """Short text for the model."""
        return f"handle {self.handle} closed"


class VerifyProofResult(BaseModel):
    """The replay gate's verdict."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    reason: str = ""
    failed_step: int | None = None
    steps: int = 0
    backend: str

    def summary(self) -> str:
        """Short text for the model."""
        if self.ok:
            return f"verified: {self.steps} tactics replayed, no goals, no sorry ({self.backend})"
        step = f" at step {self.failed_step}" if self.failed_step is not None else ""
        who = "embedded checker: " if self.backend == "embedded" else ""
        return f"{who}rejected{step}: {self.reason}"


class PoolStatusResult(BaseModel):
    """The pool and the handle leases."""

    model_config = ConfigDict(frozen=True)

    pool: PoolStatus
    live_handles: int
    max_live_handles: int
    expired_handles: int = Field(description="handles closed by idle expiry since the server started")
    idle_timeout_s: float
    worker_pids: list[int] = Field(default_factory=list, description="Lean worker processes")

    def summary(self) -> str:
        """Short text for the model."""
        p = self.pool
        return (
            f"{p.backend}: {p.workers} workers ({p.idle} idle, {p.busy} busy), "
            f"{self.live_handles}/{self.max_live_handles} handles, {p.requests} requests, {p.restarts} restarts"
        )


# ---------------------------------------------------------------- the service


class LeanTools:
    """Proof handles as leases, under the tactic policy."""

    def __init__(
        self, pool: ProofPool, registry: HandleRegistry[Any], policy: TacticPolicy, config: ToolsConfig
    ) -> None:
        self.pool = pool
        self.registry = registry
        self.policy = policy
        self.config = config
        self._lanes: dict[str, anyio.CapacityLimiter] = {}
        self._fair: FairLanes | None = None

    @asynccontextmanager
    async def _lane(self, client: str | None) -> AsyncIterator[None]:
        """At most num_workers - 1 Lean calls of one client at once (one worker stays for the others);
        with tools.fair_lean_calls, the free workers granted max-min fair between clients (FairLanes)."""
        if client is None:
            yield
            return
        workers = int(getattr(self.pool.status(), "workers", 2) or 2)
        if self.config.fair_lean_calls:
            if self._fair is None:
                self._fair = FairLanes(workers, workers - 1, self.config.fair_recent_s)
            async with self._fair.slot(client):
                yield
            return
        lane = self._lanes.get(client)
        if lane is None:
            lane = self._lanes[client] = anyio.CapacityLimiter(max(1, workers - 1))
        async with lane:
            yield

    async def start_proof(
        self,
        statement: str | None = None,
        name: str | None = None,
        client: str | None = None,
        header: str | None = None,
    ) -> StartProofResult:
        """Open a worker-independent proof on a statement (or a named constant) and lease it to ``client``."""
        _target(statement, name)  # exactly one of statement or name, before anything else is checked
        statement, header = self._split(statement, header)
        if statement is not None:
            statement = self.policy.check_statement(statement)
        if name is not None:
            name = name.strip()
            if not _LEAN_NAME.match(name):
                raise InvalidInput(f"{name!r} is not a Lean name")
            self.policy.check_statement(name)
        if header is not None:
            header = self.policy.check_header(header)
        self.registry.check_capacity(client, total=False)  # the client's own cap first: it evicts nobody
        await self.registry.make_room()
        self.registry.check_capacity(client)
        try:
            async with self._lane(client):
                handle = await self._open(_target(statement, name, header))
        except LeanError as exc:
            raise lean_tool_error(exc, self._call("the statement", "start the proof")) from exc
        try:
            lease = self.registry.add(handle, client=client, statement=statement, name=name)
        except LeaseError:  # the cap filled up while Lean was starting the goal
            await handle.close()
            raise
        goals = list(handle.goals)
        return StartProofResult(
            handle=lease.lease_id,
            state_id=handle.state_id,
            statement=statement,
            name=name,
            goals=[goal_view(g) for g in goals],
            goals_text=render_goals(goals),
            backend=self.pool.backend,
            idle_timeout_s=self.registry.idle_timeout_s,
        )

    @property
    def checker(self) -> str:
        """Who checks: "embedded checker" on the embedded backend (never to be taken for Lean), else "Lean"."""
        return checker_name(self.pool.backend)

    def _call(self, subject: str, action: str, handle: str | None = None, state_id: int | None = None) -> LeanCall:
        """The words of this call for its Lean errors (``embedded checker: rejected …`` on the embedded backend)."""
        return LeanCall(checker=self.checker, subject=subject, action=action, handle=handle, state_id=state_id)

    @staticmethod
    def _split(statement: str | None, header: str | None) -> tuple[str | None, str | None]:
        """A statement pasted with its file header (``import Mathlib`` … ``theorem …``, as Goedel-Prover-V2's
        miniF2F gives it) as (theorem, header), the way the benchmark importer splits it; both given is refused."""
        if statement is None:
            return statement, header
        # the policy's reading of blanks (a tab or a Windows line end is whitespace), before the lexer sees it
        try:
            own, theorem = split_statement(normalise_blanks(statement))
        except StatementError as exc:
            raise InvalidInput(f"statement: {exc}") from exc
        if own is None:
            return statement, header
        if header is not None:
            raise InvalidInput("the statement carries its own header (import/open lines): pass it in one place")
        return theorem, own

    async def _open(self, target: ProofTarget) -> DetachedProof:
        return await DetachedProof.open(self.pool, target, warm_s=self.config.handle_warm_s)

    def _check_growth(self, proof: Any, handle: str, state_id: int) -> None:
        """Refuse a tactic that would grow a handle past its state or depth bound."""
        if not isinstance(proof, DetachedProof) or state_id not in proof.states:
            return
        if len(proof.states) >= self.config.max_handle_states:
            raise Refused(
                "handle_size",
                f"handle {handle} holds {len(proof.states)} states (the cap is {self.config.max_handle_states}); "
                "start a new proof",
            )
        if proof.depth(state_id) >= self.config.max_handle_depth:
            raise Refused(
                "handle_depth",
                f"state {state_id} is {self.config.max_handle_depth} tactics deep (the cap per handle); "
                "verify_proof the tactics so far, or start a new proof from a shorter path",
            )

    async def run_tactic(
        self, handle: str, state_id: int, tactic: str, goal_id: int | None = None, client: str | None = None
    ) -> RunTacticResult:
        """Run one tactic on a state of a proof leased to ``client``."""
        tactic = self.policy.check_tactic(tactic)
        async with self.registry.use(handle, client) as lease:
            self._check_growth(lease.handle, handle, state_id)
            try:
                async with self._lane(client):
                    outcome: TacticOutcome = await lease.handle.run_tactic(state_id, tactic, goal_id=goal_id)
            except LeanError as exc:
                if isinstance(exc, (HandleLost, UnknownHandle)):
                    await self.registry.discard(handle, "lost (its Lean worker died)")
                call = self._call("the tactic", "run the tactic", handle=handle, state_id=state_id)
                raise lean_tool_error(exc, call) from exc
            # a detached proof outlives a dead worker: the next call replays it on another one
            alive = isinstance(lease.handle, DetachedProof) or (
                outcome.status is not TacticStatus.LOST and not getattr(lease.handle, "lost", False)
            )
        if not alive:
            await self.registry.discard(handle, "lost (its Lean worker died)")
        return RunTacticResult(
            handle=handle,
            state_id=state_id,
            tactic=tactic,
            status=outcome.status,
            next_state_id=outcome.next_state_id,
            goals=[goal_view(g) for g in outcome.goals],
            goals_text=render_goals(outcome.goals) if outcome.ok else "",
            messages=[_message_view(m) for m in outcome.messages],
            parse_error=outcome.parse_error,
            proof_complete=outcome.proof_complete,
            handle_alive=alive,
            elapsed_ms=round(outcome.elapsed_s * 1000, 3),
            backend=self.pool.backend,
        )

    async def close_proof(self, handle: str, client: str | None = None) -> CloseProofResult:
        """Close a proof leased to ``client``; its worker returns to the pool."""
        await self.registry.release(handle, client=client)
        return CloseProofResult(handle=handle, closed=True)

    async def verify_proof(
        self,
        tactics: list[str],
        statement: str | None = None,
        name: str | None = None,
        header: str | None = None,
        client: str | None = None,
    ) -> VerifyProofResult:
        """Replay a tactic list from a fresh start (the replay gate)."""
        _target(statement, name)  # exactly one of statement or name, before anything else is checked
        statement, header = self._split(statement, header)
        if statement is not None:
            statement = self.policy.check_statement(statement)
        if name is not None and not _LEAN_NAME.match(name.strip()):
            raise InvalidInput(f"{name!r} is not a Lean name")
        if not tactics:
            raise InvalidInput("the tactic list is empty")
        if len(tactics) > self.config.max_proof_tactics:
            raise InvalidInput(f"more than {self.config.max_proof_tactics} tactics")
        checked = [self.policy.check_tactic(t) for t in tactics]
        if header is not None:
            header = self.policy.check_header(header)
        try:
            async with self._lane(client):
                verdict = await self.pool.verify_proof(
                    _target(statement, name.strip() if name else None, header), checked
                )
        except LeanError as exc:
            raise lean_tool_error(exc, self._call("the statement", "verify")) from exc
        return VerifyProofResult(
            ok=verdict.ok,
            reason=verdict.reason,
            failed_step=verdict.failed_step,
            steps=verdict.steps,
            backend=self.pool.backend,
        )

    def pool_status(self) -> PoolStatusResult:
        """The pool's and the leases' state."""
        return PoolStatusResult(
            pool=self.pool.status(),
            live_handles=len(self.registry),
            max_live_handles=self.registry.max_live,
            expired_handles=self.registry.expired_total,
            idle_timeout_s=self.registry.idle_timeout_s,
            worker_pids=self.pool.worker_pids(),
        )
