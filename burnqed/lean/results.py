"""Typed results of the Lean layer: tactic outcomes, replay verdicts and pool status.

A tactic outcome is data, never an exception: success (a new state and its goals),
failed (Lean's error messages), parse_error (the tactic text does not parse), timeout
(Lean's own interrupt, or no answer within the read time-out) and lost (the worker died;
the handle is dead).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from burnqed.lean.protocol import Goal, Message, render_goals

__all__ = ["PoolStatus", "ProofVerdict", "TacticOutcome", "TacticStatus"]


class TacticStatus(StrEnum):
    """What happened to one tactic."""

    SUCCESS = "success"
    FAILED = "failed"
    PARSE_ERROR = "parse_error"
    TIMEOUT = "timeout"
    LOST = "lost"


class TacticOutcome(BaseModel):
    """The result of ``ProofHandle.run_tactic``."""

    model_config = ConfigDict(frozen=True)

    status: TacticStatus
    state_id: int = Field(description="the state the tactic ran on")
    tactic: str
    next_state_id: int | None = None
    goals: list[Goal] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    has_sorry: bool = False
    parse_error: str | None = None
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """The tactic produced a new state."""
        return self.status is TacticStatus.SUCCESS

    @property
    def proof_complete(self) -> bool:
        """Success with no goals left (the replay gate still has to confirm it)."""
        return self.status is TacticStatus.SUCCESS and not self.goals

    @property
    def rendered(self) -> str:
        """The new goals as Lean prints them (``no goals`` when none), or the error text."""
        if self.status is TacticStatus.SUCCESS:
            return render_goals(self.goals)
        return self.error_text

    @property
    def error_text(self) -> str:
        """The error messages (or the parse error / reason) as one text."""
        if self.parse_error is not None:
            return self.parse_error
        return "\n".join(m.data for m in self.messages if m.severity == "error") or self.status.value


class ProofVerdict(BaseModel):
    """The replay gate's verdict on a tactic list."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    reason: str = Field(default="", description="why it was rejected; empty when ok")
    failed_step: int | None = Field(default=None, description="index of the tactic that failed, if one did")
    steps: int = Field(default=0, description="tactics replayed successfully")
    outside_fragment: bool = Field(
        default=False, description="the embedded checker cannot express the statement (not a verdict on the proof)"
    )
    file: str | None = Field(default=None, description="the complete Lean file the proof makes (header, theorem, tactics)")
    checked_by: str | None = Field(
        default=None, description="what checked the whole file: lean (compiled, axioms audited) or kernel (embedded)"
    )
    axioms: list[str] | None = Field(default=None, description="axioms the proof depends on, when lean compiled it")


class PoolStatus(BaseModel):
    """A snapshot of the pool."""

    model_config = ConfigDict(frozen=True)

    backend: str
    workers: int = Field(description="live worker processes (idle + busy)")
    idle: int
    busy: int
    starting: int
    waiting: int = Field(description="acquirers queued for a worker")
    open_handles: int
    restarts: int = Field(description="workers replaced after a death, time-out or recycling")
    requests: int = Field(description="requests answered since the pool started")
