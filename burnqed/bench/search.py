"""``burnqed bench search``: where a search's wall time goes, and how fast trajectories are written.

Search part: the embedded backend, the tiny policy behind the generation service and an
(untrained) energy head over the policy's embeddings, theorems searched one at a time so
that the per-part timings partition the wall time. Writing part: a large synthetic batch
of records through ``TrajectoryWriter`` (conversion, row groups, the atomic rename).
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burnqed.trajectory.schema import NEGATIVE, POSITIVE, TrajectoryRecord
from burnqed.trajectory.writer import TrajectoryWriter, records_to_table

if TYPE_CHECKING:
    from burnqed.config import BurnqedConfig

__all__ = ["bench", "bench_search", "bench_writer", "synthetic_records"]


def synthetic_records(rows: int, *, states_per_theorem: int = 100) -> list[TrajectoryRecord]:
    """``rows`` realistic records (built without validation: this is the search's output)."""
    now = datetime.now(UTC)
    out: list[TrajectoryRecord] = []
    for i in range(rows):
        node = i % states_per_theorem
        out.append(
            TrajectoryRecord.model_construct(
                theorem=f"synthetic_{i // states_per_theorem}",
                statement_sha="0" * 64,
                node_id=node,
                parent_id=None if node == 0 else node - 1,
                state_id=node,
                state=f"a b : ℕ\nh : a ≤ b + {node}\n⊢ a * {node} ≤ (b + {node}) * {node}",
                tactic=None if node == 0 else "nlinarith [h]",
                depth=node % 12,
                remaining_depth=None,
                label=POSITIVE if node % 10 == 0 else NEGATIVE,
                log_prob=-0.5,
                energy=0.25,
                proof_complete=False,
                iteration=0,
                backend="embedded",
                timestamp=now,
            )
        )
    return out


def bench_writer(rows: int, row_group_rows: int) -> dict[str, Any]:
    """Rows/s of converting and writing ``rows`` records (one write per 100-state theorem)."""
    records = synthetic_records(rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.parquet"
        t0 = time.perf_counter()
        table = records_to_table(records)
        convert_s = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        writer = TrajectoryWriter(path, row_group_rows=row_group_rows)
        for start in range(0, rows, 100):
            writer.write(records[start : start + 100])
        writer.finalize()
        total_s = time.perf_counter() - t0
        # CPU time as well: on a shared machine wall time measures the neighbours too
        cpu_s = time.process_time() - c0
        size = path.stat().st_size
    del table
    return {
        "rows": rows,
        "rows_per_s": round(rows / total_s),
        "rows_per_cpu_s": round(rows / cpu_s) if cpu_s > 0 else None,
        "convert_rows_per_s": round(rows / convert_s),
        "seconds": round(total_s, 3),
        "file_mb": round(size / 1e6, 2),
        "target_rows_per_s": 200_000,
    }


async def bench_search(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Search the core set on the embedded backend with the tiny model and an energy head."""
    import torch

    from burnqed.data.sets import load_builtin
    from burnqed.ebm.encoder import PolicyEncoder
    from burnqed.ebm.head import EnergyHead
    from burnqed.ebm.scorer import EBMScorer
    from burnqed.lean import LeanPool
    from burnqed.policy.model import PolicyModel
    from burnqed.policy.service import GenerationService
    from burnqed.policy.tiny import ensure_tiny_model
    from burnqed.search.runner import search_theorems

    theorems = load_builtin("core")[: 6 if quick else 30]
    search_cfg = config.search.model_copy(
        update={"concurrency": 1, "max_nodes": 10 if quick else 50, "time_limit_s": 30.0}
    )
    lean_cfg = config.lean.model_copy(update={"backend": "embedded", "num_workers": 1})
    torch.manual_seed(0)
    model = PolicyModel.load(config.policy.model_dir or ensure_tiny_model(config.paths, config.policy.tiny), config.policy)
    async with LeanPool(lean_cfg) as pool, GenerationService(model, config.policy.service) as service:
        encoder = PolicyEncoder(service, fingerprint=model.fingerprint, dim=model.hidden_size)
        scorer = EBMScorer(EnergyHead(model.hidden_size, tuple(config.ebm.hidden_dims)), encoder)
        t0 = time.perf_counter()
        results = await search_theorems(pool, service, scorer, theorems, search_cfg)
        wall = time.perf_counter() - t0
    nodes = sum(r.stats.nodes_expanded for r in results)
    lean = sum(r.stats.lean_s for r in results)
    gen = sum(r.stats.generation_s for r in results)
    score = sum(r.stats.scoring_s for r in results)
    other = max(0.0, wall - lean - gen - score)
    return {
        "backend": pool.backend,
        "theorems": len(results),
        "proved": sum(r.proved for r in results),
        "nodes": nodes,
        "tactics": sum(r.stats.tactics_run for r in results),
        "wall_s": round(wall, 3),
        "nodes_per_s": round(nodes / wall, 2) if wall else 0.0,
        "share": {
            "lean": round(lean / wall, 4),
            "policy": round(gen / wall, 4),
            "energy_head": round(score / wall, 4),
            "other": round(other / wall, 4),
        },
        "target_other_share": 0.10,
        "max_nodes": search_cfg.max_nodes,
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """The search benchmark and the trajectory-writing benchmark, as one JSON object."""
    return {
        "search": await bench_search(config, quick),
        "trajectory_write": bench_writer(50_000 if quick else 500_000, config.search.row_group_rows),
    }
