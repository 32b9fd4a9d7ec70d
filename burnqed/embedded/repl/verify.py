"""Checking reference proofs against the embedded checker, in process (no child process).

The one ``check_proof`` and its ``ProofCheck`` (``Checker.check_proof`` is this function on
itself). The benchmark generator verifies every reference proof it emits, and the
automation-share report runs single tactics on root goals; both talk to ``burnqed.embedded.Checker``
with the protocol models the REPL decodes from its stdin (burnqed.lean.protocol, PANTOGRAPH.md),
so what is verified here is what the pool will see.
"""

from __future__ import annotations

import logging
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from burnqed.lean.protocol import (
    GoalDelete,
    GoalDeleteResult,
    GoalPrint,
    GoalPrintResult,
    GoalStart,
    GoalStartResult,
    GoalTactic,
    GoalTacticResult,
    OptionsSet,
    ReplErrorAnswer,
)

__all__ = ["CheckerLike", "ProofCheck", "check_proof", "closes_in_one", "new_checker"]

log = logging.getLogger(__name__)


class CheckerLike(Protocol):
    """Anything that answers the goal commands in process, with protocol models, like the
    embedded Checker."""

    def goal_start(self, req: GoalStart) -> GoalStartResult | ReplErrorAnswer:
        """Answer goal.start."""
        ...

    def goal_tactic(self, req: GoalTactic) -> GoalTacticResult | ReplErrorAnswer:
        """Answer goal.tactic."""
        ...

    def goal_print(self, req: GoalPrint) -> GoalPrintResult | ReplErrorAnswer:
        """Answer goal.print."""
        ...

    def goal_delete(self, req: GoalDelete) -> GoalDeleteResult:
        """Answer goal.delete."""
        ...


class ProofCheck(BaseModel):
    """The verdict on one tactic list for one statement: ok only when the proof closes every
    goal without sorry; otherwise ``step`` is the failing tactic's index (None when the
    statement or the end failed) and ``error`` says why."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    steps: int = 0
    """Tactics used; with truncation, the prefix after which no goals remained."""
    step: int | None = None
    error: str | None = None
    goals_left: int = 0
    """Goals open after the last tactic run."""


def new_checker(timeout_s: float = 10.0) -> CheckerLike:
    """A fresh in-process embedded checker with its tactic time-out set."""
    from burnqed.embedded import Checker  # late: the checker pulls in z3 and sympy

    checker = Checker()
    checker.options_set(OptionsSet(timeout=int(timeout_s * 1000)))
    return checker


def _messages(answer: GoalStartResult | GoalTacticResult | ReplErrorAnswer) -> str:
    if isinstance(answer, ReplErrorAnswer):
        return f"{answer.error}: {answer.desc}"
    if isinstance(answer, GoalTacticResult) and answer.parse_error is not None:
        return f"parse error: {answer.parse_error}"
    texts = [m.data for m in answer.error_messages] if isinstance(answer, GoalTacticResult) else []
    return "; ".join(texts) or "tactic failed"


def check_proof(checker: CheckerLike, statement: str, tactics: list[str], *, truncate: bool = False) -> ProofCheck:
    """Run ``tactics`` on the first goal from ``statement``; ok when no goals remain and the root is clean.

    With ``truncate``, a proof whose goals are all closed before its last tactic counts as the
    shorter prefix (``steps`` says how long); without it, leftover tactics make it fail.
    """
    start = checker.goal_start(GoalStart(expr=statement))
    if isinstance(start, ReplErrorAnswer):
        return ProofCheck(ok=False, error=_messages(start))
    states = [start.state_id]
    try:
        state, goals_left, used = start.state_id, 1, 0  # goal.start opens the statement's goal
        for tactic in tactics:
            if not goals_left:
                if truncate:
                    break
                return ProofCheck(ok=False, steps=used, error=f"no goals left before {tactic!r}")
            answer = checker.goal_tactic(GoalTactic(state_id=state, tactic=tactic))
            if isinstance(answer, ReplErrorAnswer) or answer.next_state_id is None:
                return ProofCheck(ok=False, steps=used, step=used, error=f"{tactic!r}: {_messages(answer)}", goals_left=goals_left)
            state = answer.next_state_id
            states.append(state)
            goals_left = len(answer.goals or [])
            used += 1
        if goals_left:
            return ProofCheck(ok=False, steps=used, error="goals remain after the last tactic", goals_left=goals_left)
        root = checker.goal_print(GoalPrint(state_id=state, root_expr=True, goals=True))
        if isinstance(root, ReplErrorAnswer):
            return ProofCheck(ok=False, steps=used, error=f"root not clean: {_messages(root)}")
        if root.root_has_sorry or root.root_has_mvar:
            return ProofCheck(ok=False, steps=used, error=f"root not clean: {root.wire()}")
        return ProofCheck(ok=True, steps=used)
    finally:
        checker.goal_delete(GoalDelete(state_ids=states))


def closes_in_one(checker: CheckerLike, statement: str, tactic: str) -> bool:
    """Whether ``tactic`` alone closes the root goal of ``statement``."""
    return check_proof(checker, statement, [tactic]).ok
