"""The mutable counters and timings of one search attempt, frozen into SearchStats at its end."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from burnqed.search.results import SearchStats

__all__ = ["AttemptClock"]


@dataclass(slots=True)
class AttemptClock:
    """Mutable timing and counters of one attempt (frozen into SearchStats at the end)."""

    started: float = field(default_factory=time.perf_counter)
    expanded: int = 0
    pruned: int = 0
    failed: int = 0
    timeouts: int = 0
    generated: int = 0
    duplicate: int = 0
    new: int = 0
    depth_capped: int = 0
    resamples: int = 0
    max_depth: int = 0
    empty_at: int | None = None
    rejected: int = 0
    tactics: int = 0
    lean_s: float = 0.0
    generation_s: float = 0.0
    scoring_s: float = 0.0
    peak_frontier: int = 0
    corrections: int = 0

    def stats(self, states: int, attempts: int) -> SearchStats:
        """The frozen statistics."""
        return SearchStats(
            nodes_expanded=self.expanded,
            nodes_pruned=self.pruned,
            nodes_failed=self.failed + self.timeouts,
            states=states,
            proofs_rejected=self.rejected,
            tactics_run=self.tactics,
            lean_s=self.lean_s,
            generation_s=self.generation_s,
            scoring_s=self.scoring_s,
            wall_s=time.perf_counter() - self.started,
            peak_frontier=self.peak_frontier,
            attempts=attempts,
            candidates_generated=self.generated,
            candidates_duplicate=self.duplicate,
            children_new=self.new,
            children_seen=self.pruned,
            failed_tactics=self.failed,
            tactic_timeouts=self.timeouts,
            depth_capped=self.depth_capped,
            resamples=self.resamples,
            max_depth_reached=self.max_depth,
            frontier_empty_at=self.empty_at,
            corrections=self.corrections,
        )
