"""Evaluation: a search run reduced to scores no LLM produced (solve rate, per-theorem outcomes).

An ``EvalReport`` is JSON (``report.model_dump_json()``); ``burnqed.search.comparison`` pairs two up.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.theorems import Theorem
from burnqed.search.config import SearchConfig
from burnqed.search.ranking import RankingQuality, ranking_quality
from burnqed.search.results import SearchReason, SearchResult, SearchStats

__all__ = [
    "EvalReport",
    "TheoremOutcome",
    "in_theorem_order",
    "load_report",
    "report_from_results",
]


class TheoremOutcome(BaseModel):
    """One theorem's result in an evaluation."""

    model_config = ConfigDict(frozen=True)

    name: str
    statement_sha: str
    proved: bool
    proof: list[str] | None = None
    nodes: int = Field(description="states expanded")
    wall_s: float
    reason: SearchReason
    detail: str | None = None
    why: str | None = Field(default=None, description="why an unproved search ended, with its frontier statistics")
    stats: SearchStats | None = Field(default=None, description="the search's counters (frontier statistics)")
    tags: list[str] = Field(
        default_factory=list, description="the theorem's tags (e.g. depth:4, family:depth_chain): per-depth rows"
    )


class EvalReport(BaseModel):
    """The JSON result of ``burnqed eval``."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description='what was evaluated, e.g. "with_ebm", "no_ebm", "automation"')
    backend: str
    iteration: int = 0
    theorem_set: str = ""
    total: int
    solved: int
    solve_rate: float = Field(description="solved / total; statements outside the backend's reach count as unsolved")
    outside_fragment: int = Field(
        default=0, description="statements the embedded checker cannot express: counted apart, never searched"
    )
    in_fragment_solve_rate: float | None = Field(
        default=None, description="solved / (total - outside_fragment), when any statement was outside"
    )
    reasons: dict[str, int] = Field(default_factory=dict, description="theorems per search reason")
    time_limit: int = Field(
        default=0, description="searches the wall-clock safety cap ended: load-dependent, so counted apart"
    )
    timing_dependent: int = Field(
        default=0, description="unproved theorems whose search hit the time cap or had a tactic time out"
    )
    exhausted_share: float | None = Field(
        default=None, description="share of the unproved (searched) theorems that ended with an empty frontier"
    )
    node_budget_share: float | None = Field(
        default=None, description="share of the unproved (searched) theorems that ended at the node budget"
    )
    ranking: RankingQuality | None = Field(
        default=None, description="how the energy head and the policy rank proof-path states on the proved searches"
    )
    outcomes: list[TheoremOutcome]
    budget: SearchStats = Field(description="the searches' statistics summed (SearchStats.total)")
    search: SearchConfig
    policy: str = Field(description='policy model id (path or fingerprint), or "none"')
    ebm: str | None = Field(default=None, description="energy-head checkpoint, if one was used")
    run_wall_s: float = 0.0
    created: datetime = Field(default_factory=lambda: datetime.now(UTC))


def report_from_results(
    results: Sequence[SearchResult],
    *,
    label: str,
    backend: str,
    search: SearchConfig,
    policy: str,
    ebm: str | None = None,
    iteration: int = 0,
    theorem_set: str = "",
    run_wall_s: float = 0.0,
) -> EvalReport:
    """Reduce search results to an EvalReport."""
    outcomes = [
        TheoremOutcome(
            name=r.theorem.name,
            statement_sha=r.theorem.sha,
            proved=r.proved,
            proof=r.proof,
            nodes=r.stats.nodes_expanded,
            wall_s=round(r.stats.wall_s, 4),
            reason=r.reason,
            detail=r.detail,
            why=r.why,
            stats=r.stats,
            tags=list(r.theorem.tags),
        )
        for r in results
    ]
    budget = SearchStats.total(r.stats for r in results)
    reasons: dict[str, int] = {}
    for r in results:
        reasons[r.reason] = reasons.get(r.reason, 0) + 1
    unproved = [r for r in results if not r.proved and r.reason != "outside_fragment"]
    solved = sum(o.proved for o in outcomes)
    outside = sum(o.reason == "outside_fragment" for o in outcomes)
    inside = len(outcomes) - outside
    return EvalReport(
        label=label,
        backend=backend,
        iteration=iteration,
        theorem_set=theorem_set,
        total=len(outcomes),
        solved=solved,
        solve_rate=solved / len(outcomes) if outcomes else 0.0,
        outside_fragment=outside,
        in_fragment_solve_rate=(solved / inside if inside else 0.0) if outside else None,
        reasons=dict(sorted(reasons.items())),
        time_limit=reasons.get("time_limit", 0),
        timing_dependent=sum(r.reason == "time_limit" or r.stats.tactic_timeouts > 0 for r in unproved),
        exhausted_share=sum(r.reason == "exhausted" for r in unproved) / len(unproved) if unproved else None,
        node_budget_share=sum(r.reason == "node_budget" for r in unproved) / len(unproved) if unproved else None,
        ranking=ranking_quality(r.records for r in results if r.proved),
        outcomes=outcomes,
        budget=budget,
        search=search,
        policy=policy,
        ebm=ebm,
        run_wall_s=run_wall_s,
    )


def in_theorem_order(theorems: Sequence[Theorem], results: Sequence[SearchResult]) -> list[SearchResult]:
    """``results`` (a resumed run's earlier ones and the new) in the order of ``theorems``, one per theorem."""
    by_name = {r.theorem.name: r for r in results}
    return [by_name[t.name] for t in theorems if t.name in by_name]


def load_report(path: str | Path) -> EvalReport:
    """Read an EvalReport JSON file."""
    return EvalReport.model_validate_json(Path(path).read_text(encoding="utf-8"))
