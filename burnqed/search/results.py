"""What a search reports: per-theorem statistics and the result with its trajectory records."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.theorems import Theorem
from burnqed.trajectory.schema import TrajectoryRecord

__all__ = ["SearchReason", "SearchResult", "SearchStats"]

SearchReason = Literal[
    "proved",  # a proof was found and passed the replay gate
    "proof_rejected",  # the replay gate refused the proof the search found
    "exhausted",  # no state left to expand
    "node_budget",  # max_nodes states expanded
    "time_limit",  # the wall-clock budget ran out
    "invalid_statement",  # Lean rejected the statement (goal.start failed)
    "outside_fragment",  # the embedded checker cannot express the statement (not a search failure)
    "lost",  # the worker died on every attempt
    "error",  # an infrastructure error other than a lost worker
    "cancelled",  # the run was interrupted before this theorem finished
]


class SearchStats(BaseModel):
    """Counters and timings of one theorem's search."""

    model_config = ConfigDict(frozen=True)

    nodes_expanded: int = 0
    nodes_pruned: int = Field(default=0, description="duplicate states dropped")
    nodes_failed: int = Field(default=0, description="tactics that failed, did not parse or timed out")
    states: int = Field(default=0, description="distinct states explored (trajectory rows)")
    proofs_rejected: int = Field(default=0, description="candidate proofs the replay gate refused")
    tactics_run: int = 0
    lean_s: float = 0.0
    generation_s: float = 0.0
    scoring_s: float = 0.0
    wall_s: float = 0.0
    peak_frontier: int = 0
    attempts: int = 1

    @property
    def other_s(self) -> float:
        """Wall time spent neither in Lean, the policy nor the energy head."""
        return max(0.0, self.wall_s - self.lean_s - self.generation_s - self.scoring_s)


class SearchResult(BaseModel):
    """The outcome of searching one theorem."""

    model_config = ConfigDict(frozen=True)

    theorem: Theorem
    proved: bool
    proof: list[str] | None = None
    stats: SearchStats
    records: list[TrajectoryRecord] = Field(default_factory=list)
    backend: str
    reason: SearchReason
    detail: str | None = Field(default=None, description="error text for invalid_statement / lost / error")
    iteration: int = 0
