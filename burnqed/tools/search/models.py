"""The search server's typed results and its budget argument (what SearchTools returns)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.tools.common.jobs import JobRecord, JobStatus

__all__ = [
    "CandidateView",
    "GenerateTacticsResult",
    "JobList",
    "JobResultView",
    "JobView",
    "ScoreStatesResult",
    "SearchBudget",
    "job_view",
]


class SearchBudget(BaseModel):
    """Per-theorem search budget (unset fields keep the server's search config)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_nodes: int | None = Field(default=None, ge=1, le=100_000, description="states expanded per theorem")
    time_limit_s: float | None = Field(default=None, gt=0, le=3600, description="wall clock per theorem")
    num_candidates: int | None = Field(default=None, ge=1, le=64, description="tactics sampled per state")
    max_depth: int | None = Field(default=None, ge=1, le=256)
    mode: Literal["step", "whole", "hybrid"] | None = Field(
        default=None, description="step: best-first over tactics; whole: k whole proofs (pass@k); hybrid: both"
    )
    whole_samples: int | None = Field(default=None, ge=1, le=1024, description="whole mode: proofs sampled per theorem")
    correction_rounds: int | None = Field(
        default=None, ge=0, le=8, description="whole mode: rounds a failed proof's errors go back to the model"
    )


class JobView(BaseModel):
    """A job as the tools show it."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    kind: str
    status: JobStatus
    done: int
    total: int
    proved: int
    message: str = ""
    created: datetime
    finished: datetime | None = None
    error: str | None = None
    outcome: dict[str, Any] | None = Field(default=None, description="the result summary, once finished")

    def summary(self) -> str:
        """Short text for the model."""
        text = f"job {self.job_id}: {self.status.value}, {self.done}/{self.total} done, {self.proved} proved"
        if self.error:
            text += f" — {self.error}"
        return text


def job_view(record: JobRecord) -> JobView:
    """A JobRecord as a JobView."""
    return JobView(
        job_id=record.job_id,
        kind=record.kind,
        status=record.status,
        done=record.progress.done,
        total=record.progress.total,
        proved=record.progress.succeeded,
        message=record.progress.message,
        created=record.created,
        finished=record.finished,
        error=record.error,
        outcome=record.summary,
    )


class JobList(BaseModel):
    """Jobs, newest first."""

    model_config = ConfigDict(frozen=True)

    jobs: list[JobView]

    def summary(self) -> str:
        """Short text for the model."""
        return "\n".join(j.summary() for j in self.jobs) or "no jobs"


class JobResultView(BaseModel):
    """A finished job's result: the solve rate up front, the full report on request."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    status: JobStatus
    solved: int | None = None
    total: int | None = None
    solve_rate: float | None = None
    error: str | None = None
    outcome: dict[str, Any] | None = Field(default=None, description="the result summary (set, budget, trajectories)")
    result: dict[str, Any] | None = Field(default=None, description="the full EvalReport, with detail='full'")

    def summary(self) -> str:
        """Short text for the model."""
        if self.solve_rate is not None:
            return f"job {self.job_id}: {self.solved}/{self.total} proved ({self.solve_rate:.1%})"
        return f"job {self.job_id}: {self.status.value}" + (f" — {self.error}" if self.error else "")


class CandidateView(BaseModel):
    """One proposed tactic."""

    model_config = ConfigDict(frozen=True)

    tactic: str
    log_prob: float


class GenerateTacticsResult(BaseModel):
    """Tactics the policy proposes for a state, best first."""

    model_config = ConfigDict(frozen=True)

    candidates: list[CandidateView]
    policy: str

    def summary(self) -> str:
        """Short text for the model."""
        return "\n".join(f"{c.log_prob:8.3f}  {c.tactic}" for c in self.candidates) or "no candidates"


class ScoreStatesResult(BaseModel):
    """Energies of states (lower = more provable)."""

    model_config = ConfigDict(frozen=True)

    energies: list[float]
    ebm: str

    def summary(self) -> str:
        """Short text for the model."""
        return ", ".join(f"{e:.3f}" for e in self.energies)
