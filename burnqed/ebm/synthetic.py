"""Synthetic trajectories whose proof paths and dead ends differ in goal shape.

Proof-path states carry goals that are true identities (``x + a = a + x``, ``x * 1 = x``);
dead ends carry false ones (``x < 0``, ``x + 1 = x``). Both share the theorem's
hypotheses, so a head has to read the target to rank them. Used by the tests, the
benchmark and demos; the rows follow burnqed.trajectory.schema.SCHEMA exactly.
"""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from burnqed.trajectory.schema import NEGATIVE, POSITIVE, SCHEMA, TrajectoryRecord

__all__ = ["synthetic_trajectories", "write_synthetic_trajectories"]

_GOOD = ("{x} + {a} = {a} + {x}", "{x} * 1 = {x}", "0 + {x} = {x}", "{x} * {a} = {a} * {x}", "{x} ≤ {x} + {a}")
_BAD = ("{x} < 0", "{x} + 1 = {x}", "{a} + {x} < {x}", "{x} * 0 = {a} + 1", "False")
_VARS = ("x", "y", "z", "n", "m", "k")


def _goal(template: str, x: str, a: int, hyps: list[str]) -> str:
    return "\n".join([*hyps, "⊢ " + template.format(x=x, a=a)])


class _Adder:
    """Appends one search's records; node ids are positions in the list."""

    def __init__(self, records: list[TrajectoryRecord], base: dict[str, object]) -> None:
        self.records, self.base = records, base

    def __call__(
        self, parent: int | None, level: int, state: str, label: int, remaining: int | None, done: bool = False
    ) -> int:
        node = len(self.records)
        tactic = None if parent is None else f"tac{node}"
        self.records.append(
            TrajectoryRecord.model_validate(
                {**self.base, "node_id": node, "parent_id": parent, "state": state, "tactic": tactic, "depth": level,
                 "remaining_depth": remaining, "label": label, "proof_complete": done}
            )
        )  # fmt: skip
        return node


def synthetic_trajectories(
    n_theorems: int, *, seed: int = 0, prefix: str = "synth", max_siblings: int = 3, iteration: int = 0
) -> pa.Table:
    """Trajectory rows (SCHEMA) for ``n_theorems`` searches, each with a found proof."""
    rng = random.Random(seed)
    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    rows: list[dict[str, object]] = []
    for t in range(n_theorems):
        name = f"{prefix}_{t}"
        x = rng.choice(_VARS)
        hyps = [f"{x} : ℕ", f"h : {x} > {rng.randint(0, 9)}"]
        sha = hashlib.sha256(name.encode()).hexdigest()
        depth = rng.randint(2, 4)
        records: list[TrajectoryRecord] = []
        base = {
            "theorem": name,
            "statement_sha": sha,
            "iteration": iteration,
            "backend": "embedded",
            "timestamp": stamp,
        }
        add = _Adder(records, base)
        parent = add(None, 0, _goal(rng.choice(_GOOD), x, rng.randint(1, 20), hyps), POSITIVE, depth)
        for level in range(1, depth + 1):
            for _ in range(rng.randint(1, max_siblings)):  # dead-end siblings of the next proof step
                dead = add(parent, level, _goal(rng.choice(_BAD), x, rng.randint(1, 20), hyps), NEGATIVE, None)
                if rng.random() < 0.5:  # a dead end below a dead end: a medium negative
                    add(dead, level + 1, _goal(rng.choice(_BAD), x, rng.randint(1, 20), hyps), NEGATIVE, None)
            done = level == depth
            state = "no goals" if done else _goal(rng.choice(_GOOD), x, rng.randint(1, 20), hyps)
            parent = add(parent, level, state, POSITIVE, depth - level, done)
        rows += [r.model_dump() for r in records]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def write_synthetic_trajectories(path: str | Path, n_theorems: int, **kwargs: object) -> Path:
    """Write ``synthetic_trajectories(n_theorems, **kwargs)`` to a Parquet file."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(synthetic_trajectories(n_theorems, **kwargs), out)  # type: ignore[arg-type]
    return out
