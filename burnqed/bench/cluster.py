"""``burnqed bench cluster``: what Ray costs a search, and what it buys.

- overhead per tactic, p50 / p99: a whole statement searched inside a Lean actor (the
  path ``search --cluster`` takes; the Ray round trip spread over the statement's tactics)
  and a single tactic forwarded through ``RemotePool`` (one round trip each), each against
  the local pool;
- throughput with 1, 2 and 4 Lean actors (one worker, one search each) on the embedded
  backend with the rule policy, and whether the proofs equal a local search's;
- the shared policy actor's mean batch (states per model call) with 4 actors searching
  4 statements each with the tiny model.

Ray runs locally (``cluster.address`` is ignored: the figures are about this machine).
With ``lean.simulated_latency_ms`` > 0 (``--simulated-latency-ms``) the benchmark is the
orchestration's scaling sweep instead (``burnqed.bench.cluster_scaling``).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from burnqed.cluster.campaign import Campaign
from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.ray_support import import_ray
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.sets import load_builtin
from burnqed.data.theorems import Theorem
from burnqed.lean.config import LeanConfig
from burnqed.lean.pool import LeanPool
from burnqed.lean.target import ProofTarget
from burnqed.search.config import SearchConfig
from burnqed.search.rules import RuleGenerator
from burnqed.search.runner import search_theorems

if TYPE_CHECKING:
    from burnqed.config import BurnqedConfig

__all__ = ["bench", "percentiles"]

ACTOR_COUNTS = (1, 2, 4)
TARGETS = {"overhead_p50_ms": 1.0, "speedup_2_actors": 1.7, "mean_policy_batch_4_actors": 4.0}
_FORWARD_STATEMENT = "∀ (n : Nat), n + 0 = n"
_FORWARD_TACTIC = "intro n"
_MS = 1000.0
_BATCH_SEARCHES_PER_ACTOR = 4  # 16 searches in flight: the policy actor sees concurrent requests


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50 and p99 of ``values`` (ms when given ms)."""
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p99": 0.0}
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 4), "p99": round(p99, 4)}


def _spec(config: BurnqedConfig, search: SearchConfig, **cluster: Any) -> ClusterSpec:
    return ClusterSpec.of(
        config,
        policy="none",
        search=search,
        cluster=ClusterConfig(**{"workers_per_actor": 1, "searches_per_actor": 1, **cluster}),  # type: ignore[arg-type]
        lean=config.lean.model_copy(update={"backend": "embedded"}),
    )


async def _local(lean: LeanConfig, theorems: Sequence[Theorem], search: SearchConfig, workers: int) -> Any:
    async with LeanPool(lean.model_copy(update={"num_workers": workers})) as pool:
        t0 = time.perf_counter()
        results = await search_theorems(pool, RuleGenerator(), None, theorems, search.model_copy(update={"concurrency": workers}))
        return results, time.perf_counter() - t0


async def _forwarded(campaign: Campaign, lean: LeanConfig, calls: int) -> dict[str, Any]:
    """One tactic at a time: a local handle against a RemotePool session."""
    local: list[float] = []
    async with LeanPool(lean.model_copy(update={"num_workers": 1})) as pool, pool.start_proof(ProofTarget.of(_FORWARD_STATEMENT)) as proof:
        for _ in range(calls):
            t0 = time.perf_counter()
            await proof.run_tactic(proof.state_id, _FORWARD_TACTIC)
            local.append((time.perf_counter() - t0) * _MS)
    remote: list[float] = []
    async with campaign.remote_pool(0).start_proof(ProofTarget.of(_FORWARD_STATEMENT)) as session:
        for _ in range(calls):
            t0 = time.perf_counter()
            await session.run_tactic(session.state_id, _FORWARD_TACTIC)
            remote.append((time.perf_counter() - t0) * _MS)
    lp, rp = percentiles(local), percentiles(remote)
    return {"local_ms": lp, "remote_ms": rp, "overhead_ms": {k: round(rp[k] - lp[k], 4) for k in lp}, "calls": calls}


async def _in_actor(campaign: Campaign, theorems: Sequence[Theorem]) -> dict[str, Any]:
    """Whole statements in the actor: (round trip − the search's own time) / its tactics."""
    per_tactic: list[float] = []
    for theorem in theorems:
        t0 = time.perf_counter()
        outcome = await campaign.lean_actors[0].search.remote(theorem, 0)
        round_trip = time.perf_counter() - t0
        tactics = max(1, outcome.result.stats.tactics_run)
        per_tactic.append((round_trip - outcome.actor_s) * _MS / tactics)
    return {"overhead_ms_per_tactic": percentiles(per_tactic), "statements": len(theorems)}


async def _throughput(config: BurnqedConfig, theorems: Sequence[Theorem], search: SearchConfig) -> dict[str, Any]:
    runs: dict[str, Any] = {}
    local, local_s = await _local(config.lean, theorems, search, 1)
    expected = {r.theorem.name: (r.proved, r.proof) for r in local}
    same = True
    for count in ACTOR_COUNTS:
        async with Campaign(_spec(config, search, lean_actors=count)) as campaign:
            report = await campaign.run(theorems)
        tactics = sum(r.stats.tactics_run for r in report.results)
        runs[str(count)] = {
            "wall_s": round(report.wall_s, 3),
            "statements_per_s": round(len(report.results) / report.wall_s, 2),
            "tactics_per_s": round(tactics / report.wall_s, 1),
        }
        same = same and {r.theorem.name: (r.proved, r.proof) for r in report.results} == expected
    base = runs["1"]["statements_per_s"]
    return {
        "actors": runs,
        "speedup": {k: round(v["statements_per_s"] / base, 3) for k, v in runs.items()},
        "local_1_worker_statements_per_s": round(len(local) / local_s, 2),
        "same_proofs_as_local": same,
        "proved": sum(r.proved for r in local),
        "statements": len(theorems),
    }


async def _batching(config: BurnqedConfig, theorems: Sequence[Theorem], search: SearchConfig) -> dict[str, Any]:
    searches = _BATCH_SEARCHES_PER_ACTOR
    spec = _spec(
        config, search, lean_actors=4, searches_per_actor=searches, workers_per_actor=searches, policy_placement="actor"
    ).model_copy(update={"policy": "model"})
    async with Campaign(spec) as campaign:
        report = await campaign.run(theorems)
        stats = await campaign.batch_stats()
    return {
        "mean_batch": round(stats.mean_batch, 2) if stats else 0.0,
        "largest_batch": stats.largest_batch if stats else 0,
        "batches": stats.batches if stats else 0,
        "statements": len(report.results),
        "proved": sum(r.proved for r in report.results),
        "lean_actors": 4,
        "searches_per_actor": searches,
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """The cluster benchmark as one JSON object."""
    if config.lean.simulated_latency_ms:
        from burnqed.bench import cluster_scaling

        return await cluster_scaling.bench(config, quick)
    ray = import_ray()
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    cores = os.cpu_count() or 1
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=max(cores, 2 * max(ACTOR_COUNTS)), include_dashboard=False, log_to_driver=False)
    search = config.search.model_copy(update={"max_nodes": 12 if quick else 20, "time_limit_s": 30.0})
    statements = load_builtin("benchmark-test")[: 16 if quick else 60]
    try:
        async with Campaign(_spec(config, search, lean_actors=1)) as campaign:
            forwarded = await _forwarded(campaign, config.lean, 100 if quick else 500)
            in_actor = await _in_actor(campaign, statements)
        throughput = await _throughput(config, statements, search)
        batching = await _batching(config, statements[: 24 if quick else 60], search)
    finally:
        if started_here:
            ray.shutdown()
    return {
        "cores": cores,
        "overhead": {"in_actor": in_actor, "forwarded": forwarded},
        "throughput": throughput,
        "policy_batching": batching,
        "targets": TARGETS,
    }
