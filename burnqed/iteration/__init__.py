"""burnqed.iteration: expert iteration — fine-tune, train the energy head, search, evaluate; resumable.

Names are imported lazily (on first access): ``burnqed.config`` reads
``burnqed.iteration.config``, which must not pull in the runner and its models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from burnqed.lazy import lazy_exports

if TYPE_CHECKING:
    from burnqed.iteration.config import IterationConfig, IterationRunConfig
    from burnqed.iteration.errors import (
        EvalReportMissing,
        IterationDataError,
        IterationError,
        ReportError,
        StatementSetMismatch,
        StepInterrupted,
    )
    from burnqed.iteration.layout import STEPS, RunLayout
    from burnqed.iteration.report import RunReport, run_report, write_chart
    from burnqed.iteration.runner import (
        IterationReport,
        IterationRunner,
        StepHook,
        apply_plan,
        plan_of,
    )
    from burnqed.iteration.statistics import PairedComparison, compare_paired, mcnemar_exact, paired_bootstrap

_WHERE: dict[str, str] = {
    "STEPS": "burnqed.iteration.layout",
    "EvalReportMissing": "burnqed.iteration.errors",
    "PairedComparison": "burnqed.iteration.statistics",
    "ReportError": "burnqed.iteration.errors",
    "RunReport": "burnqed.iteration.report",
    "StatementSetMismatch": "burnqed.iteration.errors",
    "compare_paired": "burnqed.iteration.statistics",
    "mcnemar_exact": "burnqed.iteration.statistics",
    "paired_bootstrap": "burnqed.iteration.statistics",
    "run_report": "burnqed.iteration.report",
    "write_chart": "burnqed.iteration.report",
    "IterationConfig": "burnqed.iteration.config",
    "IterationRunConfig": "burnqed.iteration.config",
    "IterationDataError": "burnqed.iteration.errors",
    "IterationError": "burnqed.iteration.errors",
    "IterationReport": "burnqed.iteration.runner",
    "IterationRunner": "burnqed.iteration.runner",
    "RunLayout": "burnqed.iteration.layout",
    "StepHook": "burnqed.iteration.runner",
    "StepInterrupted": "burnqed.iteration.errors",
    "apply_plan": "burnqed.iteration.runner",
    "plan_of": "burnqed.iteration.runner",
}

__all__ = [
    "STEPS",
    "EvalReportMissing",
    "PairedComparison",
    "ReportError",
    "RunReport",
    "StatementSetMismatch",
    "compare_paired",
    "mcnemar_exact",
    "paired_bootstrap",
    "run_report",
    "write_chart",
    "IterationConfig",
    "IterationRunConfig",
    "IterationDataError",
    "IterationError",
    "IterationReport",
    "IterationRunner",
    "RunLayout",
    "StepHook",
    "StepInterrupted",
    "apply_plan",
    "plan_of",
]


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
