"""The cells every table of `burnqed report` shares: a rate with its interval, the bootstrap settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from burnqed.search.comparison import (
    PairedComparison, PairedOutcomes, StatementSetMismatch, bootstrap_rate, compare_pairs, pair_reports,
)  # fmt: skip
from burnqed.search.evaluation import EvalReport

__all__ = ["POOLED", "RateCell", "Stats", "budget_note", "inside_names"]

POOLED = "pooled"
# search budgets that must match for two evaluations to be at equal budget
_BUDGET_KEYS = ("max_nodes", "num_candidates", "max_depth", "time_limit_s")


class RateCell(BaseModel):
    """One evaluation's solve rate on the statements inside the fragment."""

    model_config = ConfigDict(frozen=True)

    solved: int
    n: int = Field(description="statements inside the fragment")
    rate: float
    ci_lo: float = Field(description="bootstrap interval of the rate (fraction)")
    ci_hi: float
    report: str = Field(description="the EvalReport file (several, joined by ', ', when pooled)")


class Stats:
    """The bootstrap settings, applied alike to every cell and comparison."""

    def __init__(self, resamples: int, seed: int, level: float) -> None:
        self.resamples, self.seed, self.level = resamples, seed, level

    def cell(self, solved: list[bool], report: str, clusters: list[str] | None = None) -> RateCell | None:
        """The rate with its bootstrap interval (``clusters``: resample statements, seeds pooled); None if empty."""
        if not solved:
            return None
        rate, lo, hi = bootstrap_rate(solved, resamples=self.resamples, seed=self.seed, level=self.level,
                                      clusters=clusters)
        return RateCell(solved=sum(solved), n=len(solved), rate=rate, ci_lo=lo, ci_hi=hi, report=report)

    def compare(self, pairs: PairedOutcomes | None) -> PairedComparison | None:
        """The paired comparison of lined-up outcomes; None when there are none."""
        if pairs is None or not pairs.a:
            return None
        return compare_pairs(pairs, resamples=self.resamples, seed=self.seed, level=self.level)


def inside_names(report: EvalReport) -> list[str]:
    """The names of the statements inside the fragment, in the report's order."""
    return [o.name for o in report.outcomes if o.reason != "outside_fragment"]


def inside_proved(report: EvalReport) -> list[bool]:
    """Whether each statement inside the fragment was proved, in the report's order."""
    return [o.proved for o in report.outcomes if o.reason != "outside_fragment"]


def pair_or_note(
    a: EvalReport, b: EvalReport, baseline: str, candidate: str, notes: list[str], *, note_empty: bool = True
) -> PairedOutcomes | None:
    """``a`` and ``b`` lined up by statement; None (with a line in ``notes``) when their sets differ or
    nothing inside the fragment is left (noted only with ``note_empty``)."""
    try:
        pairs = pair_reports(a, b, baseline=baseline, candidate=candidate)
    except StatementSetMismatch as exc:
        notes.append(str(exc))
        return None
    if not pairs.a:
        if note_empty:
            notes.append(f"{candidate}: no statement inside the fragment")
        return None
    return pairs


def budget_note(without: EvalReport, with_: EvalReport, what: str = "no EBM vs EBM") -> str | None:
    """A note naming the search budgets two evaluations differ in; None when they match."""
    a, b = without.search.model_dump(), with_.search.model_dump()
    differ = [f"{k} {a[k]} vs {b[k]}" for k in _BUDGET_KEYS if a.get(k) != b.get(k)]
    return f"budgets differ ({what}): " + ", ".join(differ) if differ else None
