"""A proof handle: one goal, one worker held for the proof's lifetime.

State ids are local to a process, so a handle pins its worker from ``goal.start`` until
``close()``, and only accepts the state ids it created. Outcomes of a tactic are data
(TacticOutcome). When the worker dies or stops answering, the handle becomes *lost*:
the call that noticed returns status ``lost`` (or ``timeout`` for a read time-out), the
worker goes back to the pool to be replaced at once, and every later call raises
HandleLost. Lean's own interrupt (``{"desc":"interrupt","error":"internal"}``) is a
``timeout`` outcome that keeps the handle alive. Closing deletes the handle's states in
one ``goal.delete`` and gives the worker back.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol

import anyio

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    ForeignState,
    HandleLost,
    InvalidStatement,
    LeanError,
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanTimeout,
    UnknownHandle,
    statement_refused,
)
from burnqed.lean.protocol import (
    FrontendProcess,
    FrontendProcessResult,
    Goal,
    GoalDelete,
    GoalPrint,
    GoalPrintResult,
    GoalStart,
    GoalStartResult,
    GoalTactic,
    GoalTacticResult,
    Message,
    render_goals,
)
from burnqed.lean.results import TacticOutcome, TacticStatus
from burnqed.lean.statement import (
    LeanHeader,
    StatementError,
    TheoremDecl,
    frontend_snippet,
    is_binder_form,
    is_theorem_form,
    statement_decl,
)
from burnqed.lean.target import ProofTarget
from burnqed.lean.worker import LeanWorker


__all__ = ["HandleOwner", "ProofHandle", "input_problem"]

log = logging.getLogger(__name__)


class HandleOwner(Protocol):
    """What a handle needs of the pool that lent it a worker (LeanPool satisfies it)."""

    config: LeanConfig

    def _release(self, worker: LeanWorker) -> None:
        """Take the worker back."""
        ...

    def _forget(self, handle: ProofHandle) -> None:
        """Stop counting the handle as open."""
        ...


def input_problem(text: str, limit: int) -> str | None:
    """Why ``text`` may not be sent to the REPL (NUL byte, too long), or None."""
    if "\x00" in text:
        return "contains a NUL byte"
    if len(text) > limit:
        return f"is {len(text)} characters long (max_input_chars={limit})"
    return None


def _error_message(text: str) -> Message:
    return Message(severity="error", data=text)


class ProofHandle:
    """One open proof on one worker; use as ``async with pool.start_proof(...) as proof``."""

    def __init__(
        self,
        pool: HandleOwner,
        worker: LeanWorker,
        handle_id: str,
        target: ProofTarget,
        header: LeanHeader | None = None,
    ) -> None:
        self.id = handle_id
        self.target = target
        self.statement = target.statement
        self.name = target.name
        self.header = header  # the target's header, parsed
        self.state_id = -1
        self.root = ""
        self.goals: list[Goal] = []
        self.lost_reason: str | None = None
        self._pool = pool
        self._worker: LeanWorker | None = worker
        self._states: set[int] = set()
        self._closed = False
        self._lock = anyio.Lock()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "lost" if self.lost else "open"
        return f"<ProofHandle {self.id} {state} states={len(self._states)}>"

    async def __aenter__(self) -> ProofHandle:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ state

    @property
    def closed(self) -> bool:
        """``close()`` was called (or the pool shut down)."""
        return self._closed

    @property
    def lost(self) -> bool:
        """The worker died; the handle's states are gone."""
        return self.lost_reason is not None

    @property
    def states(self) -> frozenset[int]:
        """The state ids this handle created and has not released."""
        return frozenset(self._states)

    @property
    def worker_pid(self) -> int | None:
        """The pid of the worker process held (None once released)."""
        return self._worker.pid if self._worker is not None else None

    @property
    def rendered(self) -> str:
        """The root goals as Lean prints them."""
        return render_goals(self.goals)

    def _check_usable(self) -> LeanWorker:
        if self._closed:
            raise UnknownHandle(f"proof handle {self.id} is closed")
        if self.lost_reason is not None or self._worker is None:
            raise HandleLost(f"proof handle {self.id} is lost: {self.lost_reason}")
        return self._worker

    def _check_state(self, state_id: int) -> None:
        if state_id not in self._states:
            raise ForeignState(f"state {state_id} does not belong to proof handle {self.id}")

    def _lose(self, reason: str) -> None:
        """Mark the handle dead and give its (dead) worker back to be replaced."""
        if self.lost_reason is None:
            self.lost_reason = reason
        worker, self._worker = self._worker, None
        self._states.clear()
        if worker is not None:
            self._pool._release(worker)

    async def _request(self, worker: LeanWorker, request: Any) -> Any:
        """One request; if the worker dies under it (even by cancellation) the handle is lost."""
        try:
            return await worker.request(request)
        finally:
            if not worker.alive and self._worker is worker:
                self._lose(worker.death or "worker died")

    # ------------------------------------------------------------------ operations

    async def _open(self) -> None:
        """The root state (called by the pool): goal.start, or frontend.process for theorem form / a header."""
        worker = self._check_usable()
        decl = self._decl()
        if self.header is not None or decl is not None:
            await self._open_snippet(worker, decl)
            return
        request = GoalStart(expr=self.statement) if self.statement is not None else GoalStart(copy_from=self.name)
        try:
            started: GoalStartResult = await self._request(worker, request)
        except LeanReplError as exc:
            raise statement_refused(exc.error, exc.desc) from exc
        self.state_id, self.root = started.state_id, started.root
        self._states.add(started.state_id)
        printed: GoalPrintResult = await self._request(worker, GoalPrint(state_id=started.state_id, goals=True))
        self.goals = list(printed.goals or [])

    def _decl(self) -> TheoremDecl | None:
        """The statement's signature when it is in theorem form (``theorem name (x : ℕ) : P``) or
        binder form (``(x : ℕ) : P``): forms goal.start's parseElabType cannot read, sent as a theorem."""
        if self.statement is None or not (is_theorem_form(self.statement) or is_binder_form(self.statement)):
            return None
        try:
            return statement_decl(self.statement)
        except StatementError as exc:
            raise InvalidStatement("parsing", str(exc)) from exc

    async def _open_snippet(self, worker: LeanWorker, decl: TheoremDecl | None) -> None:
        """Theorem form under a header: the theorem with ``sorry`` through frontend.process, its sorry goal as root."""
        if self.statement is None:
            raise InvalidStatement("arguments", "a header needs a statement, not a constant name")
        try:
            decl = decl or statement_decl(self.statement)
        except StatementError as exc:
            raise InvalidStatement("parsing", str(exc)) from exc
        snippet = frontend_snippet(self.header or LeanHeader(), decl)
        try:
            result: FrontendProcessResult = await self._request(worker, FrontendProcess(file=snippet, sorrys=True))
        except LeanReplError as exc:
            raise statement_refused(exc.error, exc.desc) from exc
        errors = [m.data for unit in result.units for m in unit.errors]
        if errors:
            raise statement_refused("elab", "; ".join(errors)[:2000])
        started = [unit for unit in result.units if unit.goal_state_id is not None]
        if len(started) != 1 or len(started[0].goals or []) != 1:
            raise LeanProtocolError(
                f"frontend.process gave {len(started)} sorry state(s) for one theorem with one sorry"
            )
        unit = started[0]
        assert unit.goal_state_id is not None
        self.state_id, self.root = unit.goal_state_id, ""
        self._states.add(unit.goal_state_id)
        self.goals = list(unit.goals or [])

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> TacticOutcome:
        """Run ``tactic`` on ``state_id`` (goal ``goal_id``, default the first); never raises for Lean's verdict."""
        start = time.monotonic()
        async with self._lock:
            worker = self._check_usable()
            self._check_state(state_id)

            def outcome(status: TacticStatus, **fields: Any) -> TacticOutcome:
                return TacticOutcome(
                    status=status, state_id=state_id, tactic=tactic, elapsed_s=time.monotonic() - start, **fields
                )

            problem = input_problem(tactic, self._pool.config.max_input_chars)
            if problem is not None:
                # never sent: Lean could not parse it either, and the pipe stays clean
                return outcome(TacticStatus.PARSE_ERROR, parse_error=f"tactic refused by burnqed: {problem}")
            try:
                result: GoalTacticResult = await self._request(
                    worker, GoalTactic(state_id=state_id, goal_id=goal_id, tactic=tactic)
                )
            except LeanTimeout as exc:
                return outcome(TacticStatus.TIMEOUT, messages=[_error_message(f"{exc}; proof handle lost")])
            except (LeanProcessDied, LeanProtocolError) as exc:
                return outcome(TacticStatus.LOST, messages=[_error_message(str(exc))])
            except LeanReplError as exc:
                if exc.error == "internal" and exc.desc == "interrupt":
                    return outcome(TacticStatus.TIMEOUT, messages=[_error_message("Lean interrupted the tactic")])
                if exc.error == "exception" or (exc.error == "index" and "goal" in exc.desc.lower()):
                    return outcome(TacticStatus.FAILED, messages=[_error_message(f"{exc.error}: {exc.desc}")])
                raise
        if result.parse_error is not None:
            return outcome(TacticStatus.PARSE_ERROR, parse_error=result.parse_error, messages=result.messages or [])
        if result.next_state_id is None:
            return outcome(TacticStatus.FAILED, messages=result.messages or [])
        self._states.add(result.next_state_id)
        return outcome(
            TacticStatus.SUCCESS,
            next_state_id=result.next_state_id,
            goals=result.goals or [],
            messages=result.messages or [],
            has_sorry=bool(result.has_sorry),
        )

    async def print_root(self, state_id: int) -> GoalPrintResult:
        """goal.print with the root expression and goals: the flags the replay gate checks."""
        async with self._lock:
            worker = self._check_usable()
            self._check_state(state_id)
            return await self._request(worker, GoalPrint(state_id=state_id, root_expr=True, goals=True))

    async def release_states(self, state_ids: list[int]) -> None:
        """Delete some of this handle's states now (one goal.delete) to save the worker's memory."""
        async with self._lock:
            worker = self._check_usable()
            for sid in state_ids:
                self._check_state(sid)
            if self.state_id in state_ids:
                raise ForeignState(f"the root state {self.state_id} is released only by close()")
            await self._request(worker, GoalDelete(state_ids=sorted(set(state_ids))))
            self._states.difference_update(state_ids)

    async def close(self) -> None:
        """Delete this handle's states (one goal.delete) and give the worker back; idempotent."""
        with anyio.CancelScope(shield=True):
            async with self._lock:
                if self._closed:
                    return
                self._closed = True
                self._pool._forget(self)
                worker, self._worker = self._worker, None
                if worker is None:
                    return
                try:
                    if self._states and worker.alive:
                        await worker.request(GoalDelete(state_ids=sorted(self._states)))
                except LeanReplError as exc:
                    log.warning("goal.delete on close of %s failed: %s", self.id, exc)
                except LeanError as exc:
                    log.info("worker died while closing %s: %s", self.id, exc)
                finally:
                    self._states.clear()
                    self._pool._release(worker)

    def _detach(self) -> LeanWorker | None:
        """Forget the worker without any request (pool shutdown or a failed open)."""
        self._closed = True
        worker, self._worker = self._worker, None
        self._states.clear()
        return worker
