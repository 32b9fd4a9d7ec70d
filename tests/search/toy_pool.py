"""A tiny in-memory pool with toy proof rules: a test double at the Lean boundary.

Goals are plain targets. ``trivial`` closes ``True``; ``constructor`` splits ``A ∧ B``;
``left``/``right`` pick a side of ``A ∨ B``; ``rfl`` closes ``x = x``; ``step`` turns
``Loop k`` into ``Loop k+1`` and ``noop`` leaves a state as it is (a duplicate). With
``lie=True`` the tactic ``trust_me`` claims to close any goal during search, but the
replay gate replays honestly and refuses it. ``die_on`` makes a run_tactic of that
tactic report the worker lost (``die_times`` times); ``error_on`` makes the REPL answer
that tactic with an error object.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import anyio

from burnqed.lean.errors import HandleLost, InvalidStatement, LeanReplError, OutsideFragment
from burnqed.lean.protocol import Expression, Goal, GoalPrintResult
from burnqed.lean.results import ProofVerdict, TacticOutcome, TacticStatus
from burnqed.lean.target import ProofTarget

__all__ = ["ToyHandle", "ToyPool"]


def _split(target: str, op: str) -> tuple[str, str] | None:
    depth = 0
    for i, ch in enumerate(target):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and target.startswith(f" {op} ", i):
            return target[:i].strip("() "), target[i + 3 :].strip("() ")
    return None


def apply_tactic(target: str, tactic: str, *, lie: bool) -> list[str] | None:
    """New goals replacing ``target`` (None: the tactic fails)."""
    if tactic == "trivial" and target == "True":
        return []
    if tactic == "rfl":
        sides = _split(target, "=")
        return [] if sides and sides[0] == sides[1] else None
    if tactic == "constructor" and (parts := _split(target, "∧")):
        return list(parts)
    if tactic in ("left", "right") and (parts := _split(target, "∨")):
        return [parts[0] if tactic == "left" else parts[1]]
    if tactic == "step" and target.startswith("Loop "):
        return [f"Loop {int(target.split()[1]) + 1}"]
    if tactic == "noop":
        return [target]
    if tactic == "trust_me" and lie:
        return []
    return None


def _goal(target: str) -> Goal:
    return Goal(target=Expression(pp=target))


class ToyHandle:
    """One proof: states are lists of targets."""

    def __init__(self, pool: ToyPool, statement: str) -> None:
        self.pool = pool
        self.states: dict[int, list[str]] = {0: [statement]}
        self.state_id = 0
        self.goals = [_goal(statement)]

    async def run_tactic(self, state_id: int, tactic: str, goal_id: int | None = None) -> TacticOutcome:
        """Apply a toy tactic to the first goal."""
        self.pool.tactics_run += 1
        if self.pool.latency_s:
            await anyio.sleep(self.pool.latency_s)
        if tactic == self.pool.error_on:
            raise LeanReplError("internal", f"checker error on {tactic}")
        if tactic == self.pool.die_on and self.pool.die_times > 0:
            self.pool.die_times -= 1
            if self.pool.die_as_error:
                raise HandleLost("toy worker died")
            return TacticOutcome(status=TacticStatus.LOST, state_id=state_id, tactic=tactic)
        goals = self.states[state_id]
        new = apply_tactic(goals[0], tactic, lie=self.pool.lie) if goals else None
        if new is None:
            return TacticOutcome(status=TacticStatus.FAILED, state_id=state_id, tactic=tactic)
        next_id = len(self.states)
        self.states[next_id] = new + goals[1:]
        return TacticOutcome(
            status=TacticStatus.SUCCESS,
            state_id=state_id,
            tactic=tactic,
            next_state_id=next_id,
            goals=[_goal(g) for g in self.states[next_id]],
        )


    async def print_root(self, state_id: int) -> GoalPrintResult:
        """Clean flags always: the toy's lies are only caught by the replay gate."""
        return GoalPrintResult()


class ToyPool:
    """start_proof / verify_proof / backend, as burnqed.lean.LeanPool offers them."""

    backend = "toy"

    def __init__(
        self,
        *,
        lie: bool = False,
        die_on: str | None = None,
        die_times: int = 0,
        die_as_error: bool = False,
        latency_s: float = 0.0,
        error_on: str | None = None,
    ) -> None:
        self.lie = lie
        self.die_on = die_on
        self.die_times = die_times
        self.die_as_error = die_as_error
        self.latency_s = latency_s
        self.error_on = error_on
        self.tactics_run = 0
        self.started = 0
        self.verified: list[list[str]] = []

    @asynccontextmanager
    async def start_proof(self, target: ProofTarget) -> AsyncIterator[ToyHandle]:
        """A fresh toy proof; ``Bad ...`` statements are refused like an elaboration error, ``Real ...`` as
        outside the embedded fragment."""
        statement = target.statement
        if statement is not None and statement.startswith("Real"):
            raise OutsideFragment("elab", f"outside the embedded fragment: unsupported type in {statement!r}")
        if statement is None or statement.startswith("Bad"):
            raise InvalidStatement("elab", f"cannot elaborate {statement!r}")
        self.started += 1
        yield ToyHandle(self, statement)

    async def verify_proof(self, target: ProofTarget, tactics: Sequence[str]) -> ProofVerdict:
        """Replay honestly (``trust_me`` never works here)."""
        statement = target.statement
        self.verified.append(list(tactics))
        if statement is None:
            return ProofVerdict(ok=False, reason="toy pool has no named constants")
        goals = [statement]
        for i, tactic in enumerate(tactics):
            new = apply_tactic(goals[0], tactic, lie=False) if goals else None
            if new is None:
                return ProofVerdict(ok=False, reason=f"step {i} failed: {tactic}", failed_step=i, steps=i)
            goals = new + goals[1:]
        if goals:
            return ProofVerdict(ok=False, reason="goals remain", steps=len(tactics))
        return ProofVerdict(ok=True, steps=len(tactics))
