"""ProofGate: the verification gate a proof passes before a target counts as done.

The gate replays a tactic list against a locked statement on a Lean pool of its own
(started on first use, one worker): every tactic must pass the tactic policy, the replay
must end with no goals, and the root must carry neither sorry nor metavariables
(LeanPool.verify_proof). On the embedded backend the independent kernel must be enforced,
or no proof counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Self

import anyio
from anyio.abc import TaskGroup, TaskStatus

from burnqed.blueprint import ProofRecord
from burnqed.lean.target import ProofTarget
from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.common.errors import InvalidInput, ProofRejected, ServiceUnavailable
from burnqed.tools.common.policy import TacticPolicy

if TYPE_CHECKING:
    from burnqed.lean import LeanPool

__all__ = ["ProofGate"]


class ProofGate:
    """Replays proofs against locked statements; use as ``async with ProofGate(config)``."""

    def __init__(self, config: ToolsRunConfig) -> None:
        self.config = config
        self.policy = TacticPolicy(config.tools)
        self.backend = config.lean.backend
        self._pool: LeanPool | None = None
        self._starting = anyio.Lock()
        self._tg: TaskGroup | None = None

    async def __aenter__(self) -> Self:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        try:
            return await self._tg.__aexit__(exc_type, exc, tb)
        finally:
            self._tg, self._pool = None, None

    async def _hold_pool(self, *, task_status: TaskStatus[LeanPool]) -> None:
        # the pool is entered and left in this task, which the gate's task group owns: a
        # request handler that asks first must not own the pool's task group
        from burnqed.lean import LeanPool

        config = self.config.lean.model_copy(update={"num_workers": 1})
        async with LeanPool(config) as pool:
            task_status.started(pool)
            await anyio.sleep_forever()

    def _refuse_unkernelled(self) -> None:
        kernel = self.config.lean.lean_options.get("kernel", "enforce")
        if self.backend == "embedded" and kernel != "enforce":
            raise ServiceUnavailable(
                f"the embedded checker runs with kernel={kernel}: no proof counts until the kernel is enforced "
                "(remove lean.lean_options.kernel)"
            )

    async def _get_pool(self) -> LeanPool:
        async with self._starting:
            if self._pool is None:
                if self._tg is None:
                    raise ServiceUnavailable("the verification gate is not running")
                self._pool = await self._tg.start(self._hold_pool)
            return self._pool

    async def verify(
        self, label: str, statement: str, statement_sha: str, tactics: Sequence[str], source: str
    ) -> ProofRecord:
        """A ProofRecord when the proof replays against ``statement``, else ProofRejected."""
        self._refuse_unkernelled()
        if not tactics:
            raise ProofRejected(f"{label}: the proof is empty")
        if len(tactics) > self.config.tools.max_proof_tactics:
            raise InvalidInput(f"{label}: proofs are at most {self.config.tools.max_proof_tactics} tactics")
        checked = [self.policy.check_tactic(t) for t in tactics]
        pool = await self._get_pool()
        verdict = await pool.verify_proof(ProofTarget.of(statement), checked)
        if not verdict.ok:
            raise ProofRejected(f"{label}: the proof does not replay on {pool.backend}: {verdict.reason}")
        return ProofRecord.of(label, statement_sha, checked, backend=pool.backend, source=source)
