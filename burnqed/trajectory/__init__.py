"""burnqed.trajectory: the Parquet schema of explored proof states, its writer, reader and summary."""

from burnqed.trajectory.reader import iter_records, read_trajectories, theorems_in
from burnqed.trajectory.schema import NEGATIVE, POSITIVE, SCHEMA, TrajectoryRecord
from burnqed.trajectory.summary import TrajectorySummary, summarize
from burnqed.trajectory.writer import TrajectoryWriter, records_to_table

__all__ = [
    "NEGATIVE",
    "POSITIVE",
    "SCHEMA",
    "TrajectoryRecord",
    "TrajectorySummary",
    "TrajectoryWriter",
    "iter_records",
    "read_trajectories",
    "records_to_table",
    "summarize",
    "theorems_in",
]
