"""Which share of a theorem set single automation tactics close in one step."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from burnqed.data.theorems import Theorem
from burnqed.embedded.repl.verify import CheckerLike, closes_in_one, new_checker

__all__ = ["AutomationShare", "automation_share"]


class AutomationShare(BaseModel):
    """Per-tactic and union shares of a set closed by one automation tactic on the root goal."""

    model_config = ConfigDict(frozen=True)

    size: int
    closed: dict[str, int]
    """tactic -> number of statements it closes alone"""
    share: dict[str, float]
    union: int
    union_share: float
    by_family: dict[str, float]
    """family tag -> union share within that family (statements without a family tag: '-')"""


def _family(theorem: Theorem) -> str:
    return next((t.removeprefix("family:") for t in theorem.tags if t.startswith("family:")), "-")


def automation_share(
    theorems: Sequence[Theorem],
    tactics: Sequence[str],
    *,
    checker: CheckerLike | None = None,
    timeout_s: float = 10.0,
    progress: Callable[[int], None] | None = None,
) -> AutomationShare:
    """Run each tactic alone on each statement's root goal and count what closes."""
    checker = checker or new_checker(timeout_s)
    closed = dict.fromkeys(tactics, 0)
    union = 0
    family_total: dict[str, int] = {}
    family_closed: dict[str, int] = {}
    for index, theorem in enumerate(theorems):
        hit = False
        for tactic in tactics:
            if closes_in_one(checker, theorem.statement, tactic):
                closed[tactic] += 1
                hit = True
        family = _family(theorem)
        family_total[family] = family_total.get(family, 0) + 1
        family_closed[family] = family_closed.get(family, 0) + int(hit)
        union += int(hit)
        if progress is not None:
            progress(index)
    size = len(theorems)
    return AutomationShare(
        size=size,
        closed=closed,
        share={t: round(c / size, 4) if size else 0.0 for t, c in closed.items()},
        union=union,
        union_share=round(union / size, 4) if size else 0.0,
        by_family={f: round(family_closed[f] / n, 4) for f, n in sorted(family_total.items())},
    )
