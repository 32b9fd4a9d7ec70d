"""burnqed.trajectory: the Parquet schema of explored proof states, its writer, reader and summary."""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.trajectory.reader": ("iter_records", "read_trajectories", "theorems_in"),
    "burnqed.trajectory.schema": ("NEGATIVE", "POSITIVE", "SCHEMA", "TrajectoryRecord"),
    "burnqed.trajectory.summary": ("TrajectorySummary", "summarize"),
    "burnqed.trajectory.writer": ("TrajectoryWriter", "records_to_table"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
