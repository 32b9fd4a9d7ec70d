"""Per-depth (per-family) rows of `burnqed report`: every arm's solve rate on the statements of one depth.

A statement's group is its ``depth:N`` tag, else its ``family:X`` tag (burnqed.data.depth tags
the depth world's statements). The tags come from the eval reports' outcomes; reports written
before outcomes carried tags are looked up in their built-in theorem set (``theorem_set``, e.g.
depth-test) by statement hash. Pooled rows pool the seeds by statement (burnqed.search.comparison).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from burnqed.iteration.report_cells import POOLED, RateCell, Stats
from burnqed.search.evaluation import EvalReport

__all__ = ["GroupRow", "group_rows"]


class GroupRow(BaseModel):
    """One depth (or family) of one run, or pooled: each arm's solve rate on its statements."""

    model_config = ConfigDict(frozen=True)

    seed: str = Field(description='the run, or "pooled"')
    group: str = Field(description='"depth:N", else "family:X", else "untagged"')
    statements: int = Field(description="distinct statements of this group (inside the fragment)")
    rates: dict[str, RateCell] = Field(
        description='arm → rate: "iter_N_no_ebm", "iter_N" (with the head), "baseline_<name>"'
    )


_GROUP_PREFIXES = ("depth:", "family:")


def _group_of(tags: Sequence[str]) -> str:
    for prefix in _GROUP_PREFIXES:
        found = sorted(t for t in tags if t.startswith(prefix))
        if found:
            return found[0]
    return "untagged"


def _set_tags(theorem_set: str) -> dict[str, list[str]]:
    """Statement hash → tags of a built-in set named by a report's ``theorem_set`` ("depth-test[150]"); {} if none."""
    from burnqed.data.benchmark import BenchmarkError
    from burnqed.data.sets import builtin_sets, load_builtin
    from burnqed.data.theorems import TheoremSetError

    name = theorem_set.split("[", 1)[0]
    if name not in builtin_sets():
        return {}
    try:
        return {t.sha: list(t.tags) for t in load_builtin(name)}
    except (TheoremSetError, BenchmarkError, OSError):
        return {}  # the rows then say "untagged"


class _Grouping:
    """The group of each outcome: its own tags, else its set's (loaded once per set name)."""

    def __init__(self) -> None:
        self.sets: dict[str, dict[str, list[str]]] = {}

    def groups(self, report: EvalReport) -> list[tuple[str, str, bool]]:
        """(group, statement name, proved) of the outcomes inside the fragment."""
        inside = [o for o in report.outcomes if o.reason != "outside_fragment"]
        lookup: dict[str, list[str]] = {}
        if inside and not any(o.tags for o in inside) and report.theorem_set:
            if report.theorem_set not in self.sets:
                self.sets[report.theorem_set] = _set_tags(report.theorem_set)
            lookup = self.sets[report.theorem_set]
        return [(_group_of(o.tags or lookup.get(o.statement_sha, [])), o.name, o.proved) for o in inside]


def _group_key(group: str) -> tuple[int, int, str]:
    kind, _, value = group.partition(":")
    order = _GROUP_PREFIXES.index(kind + ":") if kind + ":" in _GROUP_PREFIXES else len(_GROUP_PREFIXES)
    return (order, int(value) if value.isdigit() else 0, group)


def group_rows(runs: Sequence[tuple[str, Sequence[tuple[str, EvalReport]]]], stats: Stats) -> list[GroupRow]:
    """Per run (then pooled by statement when several), per group: each arm's rate; [] when nothing is tagged."""
    grouping = _Grouping()
    # (seed, group, arm) → [(name, proved)]
    cells: dict[tuple[str, str, str], list[tuple[str, bool]]] = {}
    arm_order: list[str] = []
    for label, arms in runs:
        for arm, report in arms:
            if arm not in arm_order:
                arm_order.append(arm)
            for group, name, proved in grouping.groups(report):
                cells.setdefault((label, group, arm), []).append((name, proved))
                if len(runs) > 1:
                    cells.setdefault((POOLED, group, arm), []).append((name, proved))
    groups = sorted({g for _, g, _ in cells}, key=_group_key)
    if groups in ([], ["untagged"]):
        return []
    rows = []
    for seed in [label for label, _ in runs] + ([POOLED] if len(runs) > 1 else []):
        for group in groups:
            rates: dict[str, RateCell] = {}
            names: set[str] = set()
            for arm in arm_order:
                outcomes = cells.get((seed, group, arm))
                if not outcomes:
                    continue
                names |= {n for n, _ in outcomes}
                cell = stats.cell([p for _, p in outcomes], arm,
                                  [n for n, _ in outcomes] if seed == POOLED else None)
                if cell is not None:
                    rates[arm] = cell
            if rates:
                rows.append(GroupRow(seed=seed, group=group, statements=len(names), rates=rates))
    return rows
