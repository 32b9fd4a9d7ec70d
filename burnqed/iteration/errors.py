"""Errors of expert iteration.

IterationError
 ├── IterationDataError         no theorems, no reference proofs, no pairs to learn from
 ├── StepInterrupted            a step hook stopped the run (tests simulate crashes with it)
 ├── CheckpointUnreadable       a run's checkpoint or held-out report is there but cannot be read (names it)
 └── ReportError                `burnqed report` cannot compare what it was given
      └── EvalReportMissing     a run lacks an evaluation the report needs (names the file)

Two reports that cannot be paired raise ``burnqed.search.comparison.StatementSetMismatch``.
"""

from __future__ import annotations

__all__ = [
    "CheckpointUnreadable",
    "EvalReportMissing",
    "IterationDataError",
    "IterationError",
    "ReportError",
    "StepInterrupted",
]


class IterationError(Exception):
    """Base class of every error raised by burnqed.iteration."""


class IterationDataError(IterationError):
    """The data an iteration needs is missing or empty."""


class StepInterrupted(IterationError):
    """A step was stopped on purpose before it finished (its marker is not written)."""


class CheckpointUnreadable(IterationError):
    """A run's checkpoint or held-out report exists but cannot be read (permissions, garbled):
    named as damaged, never taken for missing nor silently passed over."""


class ReportError(IterationError):
    """The statistics of a run cannot be computed from what is on disk."""


class EvalReportMissing(ReportError):
    """An evaluation report the run report needs is absent or unreadable."""

    def __init__(self, path: str, why: str = "missing") -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why
