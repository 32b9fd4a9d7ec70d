"""Errors of expert iteration.

IterationError
 ├── IterationDataError         no theorems, no reference proofs, no pairs to learn from
 ├── StepInterrupted            a step hook stopped the run (tests simulate crashes with it)
 └── ReportError                `burnqed report` cannot compare what it was given
      ├── EvalReportMissing     a run lacks an evaluation the report needs (names the file)
      └── StatementSetMismatch  two eval reports do not cover the same statements
"""

from __future__ import annotations

__all__ = [
    "EvalReportMissing",
    "IterationDataError",
    "IterationError",
    "ReportError",
    "StatementSetMismatch",
    "StepInterrupted",
]


class IterationError(Exception):
    """Base class of every error raised by burnqed.iteration."""


class IterationDataError(IterationError):
    """The data an iteration needs is missing or empty."""


class StepInterrupted(IterationError):
    """A step was stopped on purpose before it finished (its marker is not written)."""


class ReportError(IterationError):
    """The statistics of a run cannot be computed from what is on disk."""


class EvalReportMissing(ReportError):
    """An evaluation report the run report needs is absent or unreadable."""

    def __init__(self, path: str, why: str = "missing") -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


class StatementSetMismatch(ReportError):
    """Two evaluation reports cannot be paired: their statements differ."""

    def __init__(self, baseline: str, candidate: str, only_a: list[str], only_b: list[str], changed: list[str]) -> None:
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} only in {baseline} (e.g. {only_a[0]})")
        if only_b:
            parts.append(f"{len(only_b)} only in {candidate} (e.g. {only_b[0]})")
        if changed:
            parts.append(f"{len(changed)} with a different statement under the same name (e.g. {changed[0]})")
        super().__init__(f"cannot pair {baseline} with {candidate}: " + "; ".join(parts))
        self.only_a = only_a
        self.only_b = only_b
        self.changed = changed
