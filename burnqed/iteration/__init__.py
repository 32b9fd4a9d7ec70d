"""burnqed.iteration: expert iteration — fine-tune, train the energy head, search, evaluate; resumable.

Names are imported lazily (on first access): ``burnqed.config`` reads
``burnqed.iteration.config``, which must not pull in the runner and its models.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.iteration.config": ("IterationConfig", "IterationRunConfig"),
    "burnqed.iteration.errors": (
        "EvalReportMissing", "IterationDataError", "IterationError", "ReportError",
        "StepInterrupted",
    ),
    "burnqed.iteration.layout": ("RunLayout", "STEPS"),
    "burnqed.iteration.report": ("RunReport", "run_report"),
    "burnqed.iteration.report_view": ("write_chart",),
    "burnqed.iteration.runner": ("IterationReport", "IterationRunner", "StepHook", "apply_plan", "plan_of"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
