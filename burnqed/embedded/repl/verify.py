"""Checking reference proofs against the embedded checker, in process (no child process).

The one ``check_proof`` and its ``ProofCheck`` (``Checker.check_proof`` is this function on
itself). The benchmark generator verifies every reference proof it emits, and the
automation-share report runs single tactics on root goals; both talk to ``burnqed.embedded.Checker``
through the same request dictionaries the REPL reads from its stdin (PANTOGRAPH.md), so what
is verified here is what the pool will see.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

__all__ = ["CheckerLike", "ProofCheck", "check_proof", "closes_in_one", "new_checker"]

log = logging.getLogger(__name__)


class CheckerLike(Protocol):
    """Anything that answers protocol requests in process, like the embedded Checker."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one request object with one answer object."""
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

    checker: CheckerLike = Checker()
    checker.handle({"cmd": "options.set", "payload": {"timeout": int(timeout_s * 1000)}})
    return checker


def _messages(answer: dict[str, Any]) -> str:
    if "error" in answer:
        return f"{answer.get('error')}: {answer.get('desc', '')}"
    if "parseError" in answer:
        return f"parse error: {answer['parseError']}"
    texts = [str(m.get("data", "")) for m in answer.get("messages", []) if m.get("severity") == "error"]
    return "; ".join(texts) or "tactic failed"


def check_proof(checker: CheckerLike, statement: str, tactics: list[str], *, truncate: bool = False) -> ProofCheck:
    """Run ``tactics`` on the first goal from ``statement``; ok when no goals remain and the root is clean.

    With ``truncate``, a proof whose goals are all closed before its last tactic counts as the
    shorter prefix (``steps`` says how long); without it, leftover tactics make it fail.
    """
    start = checker.handle({"cmd": "goal.start", "payload": {"expr": statement}})
    if "stateId" not in start:
        return ProofCheck(ok=False, error=_messages(start))
    states = [start["stateId"]]
    try:
        state, goals_left, used = start["stateId"], 1, 0  # goal.start opens the statement's goal
        for tactic in tactics:
            if not goals_left:
                if truncate:
                    break
                return ProofCheck(ok=False, steps=used, error=f"no goals left before {tactic!r}")
            answer = checker.handle({"cmd": "goal.tactic", "payload": {"stateId": state, "tactic": tactic}})
            if "nextStateId" not in answer:
                return ProofCheck(ok=False, steps=used, step=used, error=f"{tactic!r}: {_messages(answer)}", goals_left=goals_left)
            state = answer["nextStateId"]
            states.append(state)
            goals_left = len(answer.get("goals") or [])
            used += 1
        if goals_left:
            return ProofCheck(ok=False, steps=used, error="goals remain after the last tactic", goals_left=goals_left)
        root = checker.handle({"cmd": "goal.print", "payload": {"stateId": state, "rootExpr": True, "goals": True}})
        if "error" in root or root.get("rootHasSorry") or root.get("rootHasMVar"):
            return ProofCheck(ok=False, steps=used, error=f"root not clean: {_messages(root) if 'error' in root else root}")
        return ProofCheck(ok=True, steps=used)
    finally:
        checker.handle({"cmd": "goal.delete", "payload": {"stateIds": states}})


def closes_in_one(checker: CheckerLike, statement: str, tactic: str) -> bool:
    """Whether ``tactic`` alone closes the root goal of ``statement``."""
    return check_proof(checker, statement, [tactic]).ok
