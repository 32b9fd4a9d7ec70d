"""The trajectory schema: one Parquet row per explored proof state."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["NEGATIVE", "POSITIVE", "SCHEMA", "TrajectoryRecord"]

POSITIVE = 1
NEGATIVE = 0

SCHEMA = pa.schema(
    [
        pa.field("theorem", pa.string(), nullable=False),
        pa.field("statement_sha", pa.string(), nullable=False),
        pa.field("node_id", pa.int32(), nullable=False),  # search-local id, root = 0
        pa.field("parent_id", pa.int32()),  # null for the root
        pa.field("state_id", pa.int32()),  # Lean state id (process-local, informational)
        pa.field("state", pa.string(), nullable=False),  # rendered goals, as Lean prints them
        pa.field("tactic", pa.string()),  # tactic that produced this state; null for the root
        pa.field("depth", pa.int32(), nullable=False),
        pa.field("remaining_depth", pa.int32()),  # steps to the proof's end; only on the proof path
        pa.field("label", pa.int8(), nullable=False),  # 1 positive (proof path), 0 negative
        pa.field("log_prob", pa.float32()),  # policy log-prob of `tactic`
        pa.field("energy", pa.float32()),  # energy-head score when one was used
        pa.field("proof_complete", pa.bool_(), nullable=False),  # no goals left in this state
        pa.field("iteration", pa.int32(), nullable=False),
        pa.field("backend", pa.string(), nullable=False),  # "embedded" | "pantograph" | "command"
        pa.field("timestamp", pa.timestamp("us", tz="UTC"), nullable=False),
    ]
)


class TrajectoryRecord(BaseModel):
    """One explored state, as a row of SCHEMA."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    theorem: str
    statement_sha: str
    node_id: int = Field(ge=0)
    parent_id: int | None = None
    state_id: int | None = None
    state: str
    tactic: str | None = None
    depth: int = Field(ge=0)
    remaining_depth: int | None = None
    label: int = Field(default=NEGATIVE, ge=0, le=1)
    log_prob: float | None = None
    energy: float | None = None
    proof_complete: bool = False
    iteration: int = 0
    backend: str
    timestamp: datetime
