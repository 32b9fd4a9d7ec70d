"""Summaries of trajectory files: theorems, proved, states, label counts, depth histogram."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field

from burnqed.trajectory.reader import read_trajectories
from burnqed.trajectory.schema import NEGATIVE, POSITIVE

__all__ = ["TrajectorySummary", "solved_by_theorem", "summarize"]


class TrajectorySummary(BaseModel):
    """Counts over one trajectory file."""

    model_config = ConfigDict(frozen=True)

    path: str
    theorems: int
    proved: int
    states: int
    positives: int
    negatives: int
    depth_histogram: dict[int, int] = Field(description="explored states per depth")
    proof_lengths: dict[int, int] = Field(description="proved theorems per proof length")
    backends: list[str]
    iterations: list[int]

    @property
    def label_counts(self) -> dict[str, int]:
        """Rows per label name."""
        return {"positive": self.positives, "negative": self.negatives}


def _solved(table: pa.Table) -> pa.Table:
    """The rows that close a proof: a theorem with one is proved."""
    return table.filter(pc.and_(pc.equal(table.column("label"), POSITIVE), table.column("proof_complete")))


def solved_by_theorem(path: str | Path) -> dict[str, bool]:
    """Theorem → proved, for every theorem with rows at ``path`` (the same "proved" as ``summarize``)."""
    table = read_trajectories(path, ["theorem", "label", "proof_complete"])
    proved = set(pc.unique(_solved(table).column("theorem")).to_pylist())
    return {name: name in proved for name in pc.unique(table.column("theorem")).to_pylist()}


def summarize(path: str | Path) -> TrajectorySummary:
    """Summarise the trajectories at ``path`` (final file plus unmerged parts)."""
    table = read_trajectories(path, ["theorem", "depth", "label", "proof_complete", "backend", "iteration"])
    labels = table.column("label")
    positives = int(pc.sum(pc.equal(labels, POSITIVE)).as_py() or 0)
    negatives = int(pc.sum(pc.equal(labels, NEGATIVE)).as_py() or 0)
    depths = pc.value_counts(table.column("depth")).to_pylist()
    solved = _solved(table)
    lengths: dict[int, int] = {}
    for depth in solved.column("depth").to_pylist():
        lengths[depth] = lengths.get(depth, 0) + 1
    return TrajectorySummary(
        path=str(path),
        theorems=len(pc.unique(table.column("theorem"))),
        proved=len(pc.unique(solved.column("theorem"))),
        states=table.num_rows,
        positives=positives,
        negatives=negatives,
        depth_histogram={int(d["values"]): int(d["counts"]) for d in sorted(depths, key=lambda d: d["values"])},
        proof_lengths=dict(sorted(lengths.items())),
        backends=sorted(pc.unique(table.column("backend")).to_pylist()),
        iterations=sorted(pc.unique(table.column("iteration")).to_pylist()),
    )
