"""Which held-out split each evaluation of a run used, for `burnqed report` (issue 42).

Every choice (budgets, sampling, sizes, the head) is made on the tuning split and the test split
is evaluated once per final configuration (``iteration.eval_split``); a report says which split
each of its evaluations used, from the EvalReport's ``theorem_set`` (burnqed.data.sets.split_of:
``depth-tune[150]`` → tune, ``depth-test[150]`` → test, a file or another set → own).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.sets import split_of
from burnqed.search.evaluation import EvalReport

__all__ = ["SplitRow", "split_rows"]


class SplitRow(BaseModel):
    """One run's evaluations of one held-out set, and the split it is."""

    model_config = ConfigDict(frozen=True)

    seed: str = Field(description="the run")
    split: str = Field(description='"test", "tune", or "own" (a file or another set)')
    theorem_set: str = Field(description='the evaluations\' theorem_set, e.g. "depth-test[150]"')
    evaluations: list[str] = Field(description="the evaluations (file stems) of this set")


def split_rows(label: str, evaluations: Sequence[tuple[str, EvalReport]]) -> list[SplitRow]:
    """One row per distinct held-out set among a run's evaluations, in first-seen order."""
    by_set: dict[str, list[str]] = {}
    for stem, report in evaluations:
        by_set.setdefault(report.theorem_set or "", []).append(stem)
    return [SplitRow(seed=label, split=split_of(name), theorem_set=name or "unnamed", evaluations=stems)
            for name, stems in by_set.items()]
