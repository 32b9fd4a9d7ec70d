"""The replay gate every place a proof counts calls (``LeanPool.verify_proof``): a fresh
handle, every tactic replayed, no goal left, a root without sorry or metavariables, then the
whole-file final check (burnqed.lean.final_check)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from burnqed.lean.errors import InvalidInput, InvalidStatement, OutsideFragment
from burnqed.lean.final_check import WorkerLender, check_replayed
from burnqed.lean.handle import ProofHandle
from burnqed.lean.results import ProofVerdict
from burnqed.lean.target import ProofTarget

__all__ = ["ReplayPool", "replay_proof"]


class ReplayPool(WorkerLender, Protocol):
    """What the replay gate needs of a pool (LeanPool): a fresh handle, and a worker to borrow
    for the final check."""

    async def open_proof(self, target: ProofTarget) -> ProofHandle:
        """A fresh proof handle."""
        ...


async def replay_proof(
    pool: ReplayPool,
    target: ProofTarget,
    tactics: Sequence[str],
    *,
    file_text: str | None = None,
) -> ProofVerdict:
    """Replay ``tactics`` on a fresh handle of ``pool`` and check the result as Lean would see the file.

    ``file_text``: the file these were read from (``burnqed verify-file``); the final check
    then compiles that file as given, not one reassembled from our reading of it.
    """
    try:
        handle = await pool.open_proof(target)
    except (InvalidStatement, InvalidInput) as exc:
        return ProofVerdict(
            ok=False, reason=f"statement refused: {exc}", outside_fragment=isinstance(exc, OutsideFragment)
        )
    async with handle:
        state, goals, sorry = handle.state_id, handle.goals, False
        for step, tactic in enumerate(tactics):
            out = await handle.run_tactic(state, tactic)
            if not out.ok or out.next_state_id is None:
                return ProofVerdict(
                    ok=False,
                    reason=f"step {step} {tactic!r}: {out.status.value}: {out.error_text[:500]}",
                    failed_step=step,
                    steps=step,
                )
            state, goals, sorry = out.next_state_id, out.goals, sorry or out.has_sorry
        steps = len(tactics)
        if goals:
            return ProofVerdict(ok=False, reason=f"{len(goals)} goal(s) left after the last tactic", steps=steps)
        if sorry:
            return ProofVerdict(ok=False, reason="a tactic used sorry", steps=steps)
        printed = await handle.print_root(state)
        if printed.root_has_sorry:
            return ProofVerdict(ok=False, reason="the proof term contains sorry", steps=steps)
        if printed.root_has_mvar:
            return ProofVerdict(ok=False, reason="the proof term has unassigned metavariables", steps=steps)
    if target.statement is None:
        return ProofVerdict(ok=True, steps=steps, checked_by="replay")  # a constant's type has no file text
    return await check_replayed(pool, target.statement, tactics, target.header, steps, file_text=file_text)
