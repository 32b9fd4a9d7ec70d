"""Errors of expert iteration.

IterationError
 ├── IterationDataError     no theorems, no reference proofs, no pairs to learn from
 └── StepInterrupted        a step hook stopped the run (tests simulate crashes with it)
"""

from __future__ import annotations

__all__ = ["IterationDataError", "IterationError", "StepInterrupted"]


class IterationError(Exception):
    """Base class of every error raised by burnqed.iteration."""


class IterationDataError(IterationError):
    """The data an iteration needs is missing or empty."""


class StepInterrupted(IterationError):
    """A step was stopped on purpose before it finished (its marker is not written)."""
