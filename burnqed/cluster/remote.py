"""A Lean actor behind the one Lean interface: ``RemotePool`` and ``RemoteSession``.

They satisfy ``burnqed.lean.interface.ProofPool`` / ``ProofSession`` by forwarding every
call to a ``LeanActor``, so the search, the replay gate and the MCP tools run on a remote
pool unchanged. Errors raised inside the actor (InvalidStatement, HandleLost, …) are
raised here as themselves; an actor that died under an open proof makes the session lost,
as a dead worker does: that call returns a ``lost`` outcome, later ones raise HandleLost.
Each call is one Ray round trip (about a millisecond); a campaign searches whole
statements inside the actor instead (``LeanActor.search``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from burnqed.cluster.ray_support import is_actor_failure, task_error_cause
from burnqed.lean.errors import HandleLost, LeanProcessDied
from burnqed.lean.protocol import Goal, GoalPrintResult
from burnqed.lean.results import PoolStatus, ProofVerdict, TacticOutcome, TacticStatus
from burnqed.lean.target import ProofTarget

__all__ = ["RemotePool", "RemoteSession"]


async def _call(actor: Any, method: str, *args: Any) -> Any:
    """One forwarded call; the actor's own exception re-raised, a dead actor as LeanProcessDied."""
    try:
        return await getattr(actor, method).remote(*args)
    except Exception as exc:
        if is_actor_failure(exc):
            raise LeanProcessDied(f"the Lean actor died: {exc}") from exc
        cause = task_error_cause(exc)
        if cause is not exc:
            raise cause from None
        raise


class RemoteSession:
    """One proof open in a Lean actor (a ProofSession)."""

    def __init__(self, actor: Any, handle_id: str, state_id: int, goals: list[Goal]) -> None:
        self._actor = actor
        self.id = handle_id
        self._state_id = state_id
        self._goals = goals
        self._lost: str | None = None
        self._closed = False

    @property
    def state_id(self) -> int:
        """The root state's id."""
        return self._state_id

    @property
    def goals(self) -> Sequence[Goal]:
        """The root state's goals."""
        return self._goals

    @property
    def lost(self) -> bool:
        """The actor (or the worker) under the proof died."""
        return self._lost is not None

    @property
    def worker_pid(self) -> int | None:
        """None: the worker is a process on another node."""
        return None

    async def __aenter__(self) -> RemoteSession:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _check(self) -> None:
        if self._lost is not None:
            raise HandleLost(f"proof {self.id} is lost: {self._lost}")

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> TacticOutcome:
        """Run ``tactic`` in the actor; a dead actor is a ``lost`` outcome."""
        self._check()
        try:
            out: TacticOutcome = await _call(self._actor, "run_tactic", self.id, state_id, tactic, goal_id)
        except LeanProcessDied as exc:
            self._lost = str(exc)
            return TacticOutcome(status=TacticStatus.LOST, state_id=state_id, tactic=tactic)
        if out.status is TacticStatus.LOST:
            self._lost = "the worker died"
        return out

    async def print_root(self, state_id: int) -> GoalPrintResult:
        """goal.print of ``state_id`` in the actor."""
        self._check()
        try:
            printed: GoalPrintResult = await _call(self._actor, "print_root", self.id, state_id)
        except LeanProcessDied as exc:
            self._lost = str(exc)
            raise HandleLost(f"proof {self.id} is lost: {exc}") from exc
        return printed

    async def close(self) -> None:
        """Release the proof in the actor (nothing to release when the actor died)."""
        if self._closed:
            return
        self._closed = True
        if self._lost is None:
            try:
                await _call(self._actor, "close_proof", self.id)
            except LeanProcessDied:
                self._lost = "the Lean actor died"


class _SessionContext:
    def __init__(self, pool: RemotePool, target: ProofTarget) -> None:
        self._pool, self._target = pool, target
        self._session: RemoteSession | None = None

    async def __aenter__(self) -> RemoteSession:
        self._session = await self._pool.open_proof(self._target)
        return self._session

    async def __aexit__(self, *exc_info: object) -> None:
        if self._session is not None:
            await self._session.close()


class RemotePool:
    """A Lean actor as a ProofPool: every call forwarded (``status()`` is the last ``refresh_status``)."""

    def __init__(self, actor: Any, backend: str) -> None:
        self._actor = actor
        self._backend = backend
        self._status = PoolStatus(backend=backend, workers=0, idle=0, busy=0, starting=0, waiting=0, open_handles=0,
                                  restarts=0, requests=0)

    @property
    def backend(self) -> str:
        """embedded | pantograph | command (the actor's pool's)."""
        return self._backend

    def start_proof(self, target: ProofTarget) -> _SessionContext:
        """``async with pool.start_proof(target) as proof`` on the actor."""
        return _SessionContext(self, target)

    async def open_proof(self, target: ProofTarget) -> RemoteSession:
        """A proof open in the actor that the caller closes."""
        opened = await _call(self._actor, "open_proof", target)
        return RemoteSession(self._actor, opened.handle_id, opened.state_id, list(opened.goals))

    async def verify_proof(self, target: ProofTarget, tactics: Sequence[str]) -> ProofVerdict:
        """The replay gate, run in the actor."""
        verdict: ProofVerdict = await _call(self._actor, "verify_proof", target, list(tactics))
        return verdict

    async def refresh_status(self) -> PoolStatus:
        """Fetch the actor's pool status (what ``status()`` returns until the next refresh)."""
        self._status = await _call(self._actor, "status")
        return self._status

    def status(self) -> PoolStatus:
        """The last fetched status (``refresh_status``); all zeros before the first."""
        return self._status

    def worker_pids(self) -> list[int]:
        """Empty: the workers are processes on the actor's node."""
        return []
