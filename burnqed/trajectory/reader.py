"""Reading trajectory files (a run's unfinished statements are in its StatementStore, merged on finalize)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from burnqed.trajectory.schema import SCHEMA, TrajectoryRecord

__all__ = ["TrajectoryReadError", "iter_records", "proofs_in", "read_trajectories", "theorems_in", "trajectory_files"]

class TrajectoryReadError(OSError):
    """No trajectory data at the path, or a file that is not trajectory Parquet."""


def trajectory_files(path: str | Path) -> list[Path]:
    """The trajectory file at ``path`` as a list: ``[path]`` when it exists, else empty."""
    path = Path(path)
    return [path] if path.is_file() else []


def read_trajectories(path: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    """All rows at ``path`` (a theorem's first copy wins)."""
    files = trajectory_files(path)
    if not files:
        raise TrajectoryReadError(f"no trajectories at {path}")
    wanted = list(columns) if columns is not None else None
    read_cols = wanted if wanted is None or "theorem" in wanted else [*wanted, "theorem"]
    tables: list[pa.Table] = []
    seen: set[str] = set()
    for file in files:
        try:
            table = pq.read_table(file, columns=read_cols)
        except (OSError, pa.ArrowInvalid) as exc:
            raise TrajectoryReadError(f"{file}: not a readable Parquet file: {exc}") from exc
        if seen:
            table = table.filter(pc.invert(pc.is_in(table.column("theorem"), pa.array(sorted(seen)))))
        seen.update(pc.unique(table.column("theorem")).to_pylist())
        tables.append(table)
    schema = SCHEMA if read_cols is None else pa.schema([SCHEMA.field(c) for c in read_cols])
    result = pa.concat_tables([t.cast(schema) for t in tables])
    return result.select(wanted) if wanted is not None else result


def theorems_in(path: str | Path) -> set[str]:
    """Names of the theorems with rows at ``path``."""
    if not trajectory_files(path):
        return set()
    return set(pc.unique(read_trajectories(path, ["theorem"]).column("theorem")).to_pylist())


def proofs_in(path: str | Path) -> dict[str, list[str]]:
    """Theorem → the tactics of its proof path (the label-1 rows by depth), for the proved theorems at ``path``."""
    if not trajectory_files(path):
        return {}
    table = read_trajectories(path, ["theorem", "label", "depth", "tactic"])
    table = table.filter(pc.equal(table.column("label"), 1)).sort_by([("theorem", "ascending"), ("depth", "ascending")])
    proofs: dict[str, list[str]] = {}
    for name, tactic in zip(table.column("theorem").to_pylist(), table.column("tactic").to_pylist(), strict=True):
        steps = proofs.setdefault(name, [])
        if tactic is not None:
            steps.append(tactic)
    return {name: steps for name, steps in proofs.items() if steps}


def iter_records(path: str | Path) -> Iterator[TrajectoryRecord]:
    """Every row as a TrajectoryRecord (convenient, not fast: use read_trajectories for bulk)."""
    for row in read_trajectories(path).to_pylist():
        yield TrajectoryRecord.model_validate(row)
