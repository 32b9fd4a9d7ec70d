"""``burnqed bench cluster --simulated-latency-ms N``: how far the orchestration itself scales.

On a machine with few cores a Lean actor's work is CPU-bound and every actor, the driver
and Ray share those cores, so more actors only add contention. A real Lean process spends
its tactic time on its own node's CPU; this mode stands in for that: the embedded checker
holds each tactic's answer until N ms after the request (``lean.simulated_latency_ms``; it
sleeps, so the wait costs no CPU here) while the pool, the Lean actors, the policy actor and
the driver run unchanged. The sweep runs 1, 2, 4, 8, 16, 24 and 32 Lean actors (one search
and one checker each, ``lean_actor_cpus = 0`` so they all fit; the shared policy actor serves
the rule policy, so every expansion is a call to it) and reports, for each count:

- tactics/s against the latency bound (``actors × 1000 / N``) and the speed-up over one actor;
- the CPU each part spent, in cores (CPU seconds / wall seconds, from ``/proc``): the driver,
  the policy actor, the Lean actors' search loops, their checker children, Ray's own
  processes, and the machine as a whole (other users of the cores included);
- resident memory of each part;
- the first count whose speed-up falls below 90 % of linear, and what caps it there;
- how many actors the driver, the policy actor and Ray could each serve before one full core,
  from their CPU per tactic (on a cluster the actors and checkers spend theirs elsewhere).

A count whose memory (the previous run's RSS per actor) would exceed 60 % of what the
machine has available is skipped and said so.

Every statement of a run is a copy of one statement of ``benchmark-test`` (the first whose
rule-policy search runs at least ``_TARGET_TACTICS`` tactics), so every search costs the same
number of tactics and no actor idles at the end waiting for a long straggler; each copy's
result is compared with a local search's. Runs are weak-scaled (``statements_per_actor``
statements per actor) and the whole sweep is repeated: ratios are taken within one sweep.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio

from burnqed.bench import procstat
from burnqed.bench.policy_shape import BenchRefused
from burnqed.cluster.campaign import Campaign
from burnqed.cluster.config import ClusterConfig, PolicyPlacement
from burnqed.cluster.ray_support import import_ray
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.sets import load_builtin
from burnqed.data.theorems import Theorem
from burnqed.lean.config import LeanConfig
from burnqed.lean.pool import LeanPool
from burnqed.search.config import SearchConfig
from burnqed.search.engine import BestFirstSearch
from burnqed.search.results import SearchResult
from burnqed.search.rules import RuleGenerator

if TYPE_CHECKING:
    from burnqed.config import BurnqedConfig

__all__ = ["ACTOR_COUNTS", "TARGETS", "bench", "sweep"]

ACTOR_COUNTS = (1, 2, 4, 8, 16, 24, 32)  # 24 and 32: past this machine's cores, to find the cap
TARGETS = {"speedup_2_actors": 1.8, "speedup_8_actors": 6.0}
_TARGET_TACTICS = 16  # a statement of about this many tactics (~0.3 s at 20 ms) is the unit of work
_SCAN = 150  # statements of benchmark-test looked at for one that long
_LINEAR = 0.9  # a speed-up below this fraction of the actor count counts as capped
_SATURATED = 0.9  # a single-threaded process (or the machine) this busy is the cap
_MEMORY_SHARE = 0.6  # a count whose estimated RSS exceeds this share of the memory left is skipped
_PARTS = ("driver", "policy_actor", "lean_actors", "checkers", "ray_system")


async def _unit(lean: LeanConfig, search: SearchConfig) -> SearchResult:
    """The statement every run copies, searched locally without latency (its expected result)."""
    async with LeanPool(lean.model_copy(update={"num_workers": 1, "simulated_latency_ms": 0})) as pool:
        for theorem in load_builtin("benchmark-test")[:_SCAN]:
            result = await BestFirstSearch(pool, RuleGenerator(), None, search).prove(theorem)
            if result.stats.tactics_run >= _TARGET_TACTICS:
                return result
    raise BenchRefused(f"no statement among the first {_SCAN} of benchmark-test runs {_TARGET_TACTICS} tactics")


def _copies(theorem: Theorem, count: int) -> list[Theorem]:
    return [theorem.model_copy(update={"name": f"{theorem.name}__copy{i}"}) for i in range(count)]


def _cores(cpu_s: float | None, wall_s: float) -> float | None:
    return None if cpu_s is None else round(cpu_s / wall_s, 3)


async def _warm(campaign: Campaign, theorem: Theorem) -> None:
    """One search on every actor before the clock starts: a checker's first tactics import its tactic modules."""

    async def one(actor: Any) -> None:
        await actor.search.remote(theorem.model_copy(update={"name": f"{theorem.name}__warm"}), 0)

    async with anyio.create_task_group() as tg:
        for actor in campaign.lean_actors:
            tg.start_soon(one, actor)


async def _run(spec: ClusterSpec, unit: SearchResult, statements: int) -> dict[str, Any]:
    """One campaign over ``statements`` copies: throughput, CPU per part, memory, same results."""
    theorems = _copies(unit.theorem, statements)
    driver = os.getpid()
    async with Campaign(spec) as campaign:
        actors = {info.pid for info in campaign.actor_infos}
        stats = await campaign.batch_stats()
        policy = {stats.pid} if stats is not None else set()
        await _warm(campaign, unit.theorem)
        before = procstat.take()
        t0 = time.perf_counter()
        report = await campaign.run(theorems)
        wall_s = time.perf_counter() - t0
        after = procstat.take()
        checkers = procstat.descendants(after, actors)
        groups = {"driver": {driver}, "policy_actor": policy, "lean_actors": actors, "checkers": checkers}
        groups["ray_system"] = procstat.descendants(after, [driver]) - set().union(*groups.values())
        cpu = procstat.cpu_between(before, after, groups)
        rss = {name: procstat.rss_mb(pids) for name, pids in groups.items()}
    tactics = sum(r.stats.tactics_run for r in report.results)
    ours = None if any(v is None for v in cpu.values()) else sum(v or 0.0 for v in cpu.values())
    machine = after.machine_busy_s - before.machine_busy_s if after.cpu_s else None
    cores = {name: _cores(value, wall_s) for name, value in cpu.items()}
    cores["ours"] = _cores(ours, wall_s)
    cores["machine_busy"] = _cores(machine, wall_s)
    cores["others"] = _cores(None if machine is None or ours is None else max(0.0, machine - ours), wall_s)
    expected = (unit.proved, unit.proof)
    return {
        "wall_s": round(wall_s, 3),
        "statements": len(report.results),
        "tactics": tactics,
        "tactics_per_s": round(tactics / wall_s, 1),
        "statements_per_s": round(len(report.results) / wall_s, 2),
        "cpu_cores": cores,
        "driver_cpu_ms_per_statement": None if cpu["driver"] is None else round(cpu["driver"] * 1000 / statements, 3),
        "rss_mb": {**rss, "total": None if None in rss.values() else round(sum(v or 0.0 for v in rss.values()), 1)},
        "same_results_as_local": all((r.proved, r.proof) == expected for r in report.results),
        "requeued": report.requeued,
    }


def _cap(count: int, run: dict[str, Any], cores: int) -> str:
    """Why ``run`` fell short of linear scaling: a single-threaded part at a full core, the machine's
    cores, or neither (then Ray's per-call latency)."""
    used = run["cpu_cores"]
    if used["machine_busy"] is None:
        return f"{count} actors: /proc is unreadable here, so there is no CPU breakdown"
    parts = ", ".join(f"{name} {used[name]}" for name in (*_PARTS, "others"))
    for name in ("driver", "policy_actor"):
        if (used[name] or 0.0) >= _SATURATED:
            return f"{count} actors: the {name} (one Python thread) is at {used[name]} of a core ({parts} cores)"
    if used["machine_busy"] >= _SATURATED * cores:
        busiest = max(_PARTS, key=lambda name: used[name] or 0.0)
        return (
            f"{count} actors: the machine's {cores} cores are saturated ({used['machine_busy']} busy: {parts}); "
            f"ours took {used['ours']} cores, most of it {busiest}, the rest went to other processes"
        )
    return (
        f"{count} actors: no part at a full core and the machine not saturated ({used['machine_busy']} of "
        f"{cores} busy: {parts}); the shortfall is Ray's latency per call"
    )


def _projection(run: dict[str, Any], latency_ms: int) -> dict[str, float | None]:
    """Lean actors one driver / policy actor / Ray could serve before a full core, from ``run``'s CPU per
    tactic at the latency-bound rate (1000 / latency tactics/s per actor); on a cluster the actors' own
    CPU is on their nodes. The driver's cost is per statement: longer searches lower it per tactic."""
    per_actor = 1000.0 / latency_ms
    out: dict[str, float | None] = {}
    for name in ("driver", "policy_actor", "ray_system"):
        cores = run["cpu_cores"][name]
        out[name] = round(run["tactics_per_s"] / (per_actor * cores), 1) if cores else None
    return out


def _spec(
    config: BurnqedConfig, lean: LeanConfig, search: SearchConfig, count: int, placement: PolicyPlacement
) -> ClusterSpec:
    cluster = ClusterConfig(
        lean_actors=count,
        workers_per_actor=1,
        searches_per_actor=1,
        lean_actor_cpus=0,
        policy_actor_cpus=0,
        policy_placement=placement,
    )
    return ClusterSpec.of(config, policy="none", search=search, cluster=cluster, lean=lean)


def _too_big(count: int, runs: dict[str, Any]) -> str | None:
    """Why ``count`` actors would not fit in memory (the last run's RSS per actor), else None."""
    if not runs:
        return None
    last_count, last = max(runs.items(), key=lambda kv: int(kv[0]))
    rss = last["rss_mb"]
    if rss["total"] is None:
        return None
    per_actor = ((rss["lean_actors"] or 0.0) + (rss["checkers"] or 0.0)) / int(last_count)
    needed = rss["total"] + per_actor * (count - int(last_count))
    free = procstat.available_mb()
    if free is not None and needed > _MEMORY_SHARE * free:  # the last run's processes have exited
        return f"needs about {needed:.0f} MiB; {free:.0f} MiB available"
    return None


async def sweep(
    config: BurnqedConfig,
    *,
    latency_ms: int,
    counts: Sequence[int] = ACTOR_COUNTS,
    statements_per_actor: int = 8,
    repeats: int = 2,
    placement: PolicyPlacement = "actor",
) -> dict[str, Any]:
    """The scaling sweep as one JSON object (Ray must be up: ``bench`` starts it)."""
    latency_s = latency_ms / 1000
    # budgets stretched by the latency, so a long one is not cut by a time limit or a read time-out
    search = config.search.model_copy(update={"max_nodes": 20, "time_limit_s": 60.0 + 100 * latency_s})
    lean = config.lean.model_copy(
        update={
            "backend": "embedded",
            "simulated_latency_ms": latency_ms,
            "read_timeout_s": config.lean.read_timeout_s + latency_s,
        }
    )
    unit = await _unit(lean, search)
    cores = os.cpu_count() or 1
    sweeps: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for _ in range(repeats):
        runs: dict[str, Any] = {}
        for count in counts:
            reason = _too_big(count, runs)
            if reason is not None:
                skipped[str(count)] = reason
                continue
            run = await _run(_spec(config, lean, search, count, placement), unit, statements_per_actor * count)
            run["latency_bound_tactics_per_s"] = round(count * 1000.0 / latency_ms, 1)
            run["efficiency"] = round(run["tactics_per_s"] / run["latency_bound_tactics_per_s"], 3)
            runs[str(count)] = run
        base = runs[str(counts[0])]["tactics_per_s"]
        sweeps.append({"actors": runs, "speedup": {k: round(v["tactics_per_s"] / base, 3) for k, v in runs.items()}})
    measured = [str(c) for c in counts if all(str(c) in s["actors"] for s in sweeps)]
    speedup = {k: round(statistics.median(s["speedup"][k] for s in sweeps), 3) for k in measured}
    capped = next((int(k) for k, v in speedup.items() if v < _LINEAR * int(k)), None)
    last = sweeps[-1]["actors"]
    table = [
        {
            "actors": int(k),
            "tactics_per_s": [s["actors"][k]["tactics_per_s"] for s in sweeps],
            "speedup": [s["speedup"][k] for s in sweeps],
            "cpu_cores": {name: last[k]["cpu_cores"][name] for name in (*_PARTS, "others", "machine_busy")},
            "rss_mb_total": last[k]["rss_mb"]["total"],
        }
        for k in measured
    ]
    return {
        "mode": "simulated_latency",
        "latency_ms": latency_ms,
        "cores": cores,
        "policy_placement": placement,
        "policy": "none (rule policy; with placement actor every expansion is a call to the policy actor)",
        "unit": {"theorem": unit.theorem.name, "tactics": unit.stats.tactics_run, "proved": unit.proved},
        "statements_per_actor": statements_per_actor,
        "sweeps": sweeps,
        "skipped": skipped,
        "speedup_median": speedup,
        "table": table,
        "overhead_ms_per_tactic_1_actor": round(1000.0 / last[measured[0]]["tactics_per_s"] - latency_ms, 2),
        "first_count_below_90pct_linear": capped,
        "cap": None if capped is None else _cap(capped, last[str(capped)], cores),
        "projected_actors_per_full_core": _projection(last[measured[-1]], latency_ms),
        "same_results_as_local": all(r["same_results_as_local"] for s in sweeps for r in s["actors"].values()),
        "targets": TARGETS,
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """The sweep at ``config.lean.simulated_latency_ms`` on a local Ray (started here unless it is up)."""
    ray = import_ray()
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    started_here = not ray.is_initialized()
    if started_here:
        # the actors reserve no CPU: Ray's CPU count only paces its worker start-up
        ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False)
    try:
        return await sweep(
            config,
            latency_ms=config.lean.simulated_latency_ms,
            counts=(1, 2, 4) if quick else ACTOR_COUNTS,
            statements_per_actor=3 if quick else 8,
            repeats=1 if quick else 2,
        )
    finally:
        if started_here:
            ray.shutdown()
