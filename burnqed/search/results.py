"""What a search reports: per-theorem statistics and the result with its trajectory records."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from burnqed.data.theorems import Theorem
from burnqed.trajectory.schema import TrajectoryRecord

__all__ = ["INFRASTRUCTURE_REASONS", "SearchReason", "SearchResult", "SearchStats"]

SearchReason = Literal[
    "proved",  # a proof was found and passed the replay gate
    "proof_rejected",  # the replay gate refused the proof the search found
    "exhausted",  # no state left to expand
    "node_budget",  # max_nodes states expanded
    "time_limit",  # the wall-clock safety cap ran out (depends on machine load: counted apart)
    "invalid_statement",  # Lean rejected the statement (goal.start failed)
    "outside_fragment",  # the embedded checker cannot express the statement (not a search failure)
    "lost",  # the worker died on every attempt
    "error",  # an infrastructure error other than a lost worker
    "cancelled",  # the run was interrupted before this theorem finished
]

# outcomes that say the machinery broke, not that the search failed: such a result writes no
# trajectory rows (never a training negative), is not kept by a checkpoint, and a resume retries it
INFRASTRUCTURE_REASONS: frozenset[str] = frozenset({"lost", "error", "cancelled"})


class SearchStats(BaseModel):
    """Counters and timings of one theorem's search, counted in place while it runs; ``+`` gives
    the totals of several (an evaluation's budget).

    ``nodes_failed`` and ``children_seen`` are derived (never counted twice) but still written
    to JSON, so reports and job results keep the names their readers know; a file that holds
    them loads, its values recomputed from the counters."""

    nodes_expanded: int = 0
    nodes_pruned: int = Field(default=0, description="tactics that reached a state already seen: dropped")
    states: int = Field(default=0, description="distinct states explored (trajectory rows)")
    proofs_rejected: int = Field(default=0, description="candidate proofs the replay gate refused")
    tactics_run: int = 0
    lean_s: float = 0.0
    generation_s: float = 0.0
    scoring_s: float = 0.0
    wall_s: float = 0.0
    peak_frontier: int = 0
    attempts: int = 1
    candidates_generated: int = Field(default=0, description="tactics proposed (policy rounds + automation)")
    candidates_duplicate: int = Field(default=0, description="proposals equal to another one's normalised text")
    children_new: int = Field(default=0, description="tactics that reached a state not seen before")
    failed_tactics: int = Field(default=0, description="tactics Lean refused (or that did not parse)")
    tactic_timeouts: int = Field(default=0, description="tactics cut off by a time-out: load-dependent, not refusals")
    depth_capped: int = Field(default=0, description="new states not queued because they sit at max_depth")
    resamples: int = Field(default=0, description="extra policy rounds for expansions short of new states")
    max_depth_reached: int = 0
    frontier_empty_at: int | None = Field(default=None, description="expansions done when the frontier ran empty")
    corrections: int = Field(default=0, description="whole mode: correction rounds asked of the policy")

    @computed_field(description="tactics that failed, did not parse or timed out")  # type: ignore[prop-decorator]
    @property
    def nodes_failed(self) -> int:
        """Refused tactics and time-outs together."""
        return self.failed_tactics + self.tactic_timeouts

    @computed_field(description="tactics that reached a state already seen (= nodes_pruned)")  # type: ignore[prop-decorator]
    @property
    def children_seen(self) -> int:
        """The same count as ``nodes_pruned``, under the name the frontier statistics use."""
        return self.nodes_pruned

    @classmethod
    def total(cls, items: Iterable[SearchStats]) -> SearchStats:
        """The sum of ``items`` (zero when there are none)."""
        return sum(items, cls(attempts=0))

    def __add__(self, other: SearchStats) -> SearchStats:
        """Totals: counts and seconds add, peaks keep the larger; ``frontier_empty_at`` belongs
        to one search and is None in a total."""
        if not isinstance(other, SearchStats):
            return NotImplemented
        peaks = {"peak_frontier", "max_depth_reached"}
        values: dict[str, Any] = {
            key: max(getattr(self, key), getattr(other, key)) if key in peaks else getattr(self, key) + getattr(other, key)
            for key in type(self).model_fields
            if key != "frontier_empty_at"
        }
        return SearchStats(**values)

    @property
    def other_s(self) -> float:
        """Wall time spent neither in Lean, the policy nor the energy head."""
        return max(0.0, self.wall_s - self.lean_s - self.generation_s - self.scoring_s)

    def why(self, reason: str) -> str:
        """A one-line account of where the search's candidates went, e.g. for an ``exhausted`` search."""
        parts = [
            f"{self.candidates_generated} candidates",
            f"{self.failed_tactics} failed in Lean",
            f"{self.candidates_duplicate} duplicates",
            f"{self.children_seen} reached seen states",
            f"{self.children_new} new states",
        ]
        if self.tactic_timeouts:
            parts.append(f"{self.tactic_timeouts} timed out")
        if self.depth_capped:
            parts.append(f"{self.depth_capped} at max depth")
        if self.resamples:
            parts.append(f"{self.resamples} resamples")
        return f"{reason} after {self.nodes_expanded} expansions (depth {self.max_depth_reached}): " + ", ".join(parts)


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

    @property
    def infrastructure(self) -> bool:
        """True when the outcome is an infrastructure failure (``INFRASTRUCTURE_REASONS``)."""
        return self.reason in INFRASTRUCTURE_REASONS

    @property
    def why(self) -> str | None:
        """Why an unproved search ended, with its frontier statistics (None when proved)."""
        return None if self.proved else self.stats.why(self.reason)
