"""``burnqed bench lean``: pool throughput and the pool's own overhead per request.

The child is a trivial answering process (a few lines of Python below, stdlib only) so
that what is measured is the pool: requests/s through proof handles with 1, 2 and 4
workers, and per-request latency of ``ProofHandle.run_tactic`` next to the same request
sent by a bare pipe client to the same kind of child. The overhead is reported two
ways, both from one run: per request, the time ``run_tactic`` took minus the worker's
own write→answer exchange (the pool's bookkeeping, encoding and decoding); and the
difference of the medians of ``run_tactic`` and the bare client.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from burnqed.lean.config import LeanConfig
from burnqed.lean.pool import LeanPool
from burnqed.lean.target import ProofTarget

__all__ = ["TRIVIAL_CHILD", "bench", "trivial_child_command"]

# Answers every command of the protocol with a fixed, valid answer: the cheapest child.
TRIVIAL_CHILD = r"""
import sys
goal = ('{"fragment":"tactic","name":"_uniq.2","target":{"pp":"n + 0 = n"},'
        '"vars":[{"isInaccessible":false,"name":"_uniq.1","type":{"pp":"Nat"},"userName":"n"}]}')
answers = {
    "goal.start": '{"root":"_uniq.0","stateId":0}',
    "goal.print": '{"goals":[' + goal + '],"rootHasMVar":true,"rootHasSorry":false,"rootHasUnsafe":false}',
    "goal.tactic": '{"goals":[' + goal + '],"hasSorry":false,"hasUnsafe":false,"messages":[],"nextStateId":1}',
}
out = sys.stdout
out.write("ready.\n"); out.flush()
for line in sys.stdin:
    if line == "\n":
        break
    start = line.find('"cmd":"') + 7
    out.write(answers.get(line[start:line.find('"', start)], "{}") + "\n"); out.flush()
"""


def trivial_child_command() -> list[str]:
    """Argv of the trivial answering child."""
    return [sys.executable, "-S", "-c", TRIVIAL_CHILD]


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50_us": 0.0, "p99_us": 0.0}
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"p50_us": round(statistics.median(ordered) * 1e6, 1), "p99_us": round(p99 * 1e6, 1)}


async def _raw_client(n: int) -> list[float]:
    """Round trips of a bare pipe client (no pool) sending goal.tactic to the child."""
    line = b'{"cmd":"goal.tactic","payload":{"stateId":0,"tactic":"skip"}}\n'
    times: list[float] = []
    async with await anyio.open_process(trivial_child_command(), stderr=subprocess.DEVNULL) as proc:
        if proc.stdin is None or proc.stdout is None:
            return times
        reader = BufferedByteReceiveStream(proc.stdout)
        await reader.receive_until(b"\n", 1 << 20)  # ready.
        for _ in range(n):
            t0 = time.perf_counter()
            await proc.stdin.send(line)
            await reader.receive_until(b"\n", 1 << 20)
            times.append(time.perf_counter() - t0)
        await proc.stdin.send(b"\n")
    return times


def _config(base: LeanConfig, workers: int) -> LeanConfig:
    return base.model_copy(
        update={
            "backend": "command",
            "command": trivial_child_command(),
            "num_workers": workers,
            "max_requests_per_worker": 10**9,
            "startup_timeout_s": 60.0,
        }
    )


async def _latency(base: LeanConfig, n: int) -> tuple[list[float], list[float]]:
    """Per-request run_tactic time and the pool's own part of it, one worker, sequential."""
    totals: list[float] = []
    overheads: list[float] = []
    async with LeanPool(_config(base, 1)) as pool, pool.start_proof(ProofTarget.of("∀ (n : Nat), n + 0 = n")) as proof:
        worker = proof._worker
        for _ in range(n):
            t0 = time.perf_counter()
            await proof.run_tactic(proof.state_id, "skip")
            total = time.perf_counter() - t0
            totals.append(total)
            if worker is not None:
                overheads.append(total - worker.last_exchange_s)
    return totals, overheads


async def _throughput(base: LeanConfig, workers: int, per_client: int) -> dict[str, Any]:
    """Requests/s with 2 concurrent proofs per worker, each sending ``per_client`` tactics."""
    async with LeanPool(_config(base, workers)) as pool:

        async def client() -> None:
            async with pool.start_proof(ProofTarget.of("∀ (n : Nat), n + 0 = n")) as proof:
                for _ in range(per_client):
                    await proof.run_tactic(proof.state_id, "skip")

        before = pool.status().requests
        t0 = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(2 * workers):
                tg.start_soon(client)
        elapsed = time.perf_counter() - t0
        done = pool.status().requests - before
    return {"workers": workers, "requests": done, "seconds": round(elapsed, 3), "requests_per_s": round(done / elapsed)}


async def _startup(base: LeanConfig) -> float:
    t0 = time.perf_counter()
    async with LeanPool(_config(base, 1)):
        return time.perf_counter() - t0


async def bench(config: Any, quick: bool) -> dict[str, Any]:
    """Throughput with 1, 2, 4 workers and overhead p50/p99 vs the child's own round trip."""
    base: LeanConfig = config.lean
    n = 300 if quick else 3000
    raw = await _raw_client(n)
    totals, overheads = await _latency(base, n)
    throughput = [await _throughput(base, w, n // 4 if quick else n // 2) for w in (1, 2, 4)]
    pool_p = _percentiles(totals)
    raw_p = _percentiles(raw)
    own = _percentiles(overheads)
    return {
        "child": "trivial answering child (python -S), goal.tactic per request",
        "requests_per_latency_sample": n,
        "throughput": throughput,
        "child_round_trip_us": raw_p,
        "pool_run_tactic_us": pool_p,
        "pool_overhead_us": own,
        "pool_minus_bare_client_p50_us": round(pool_p["p50_us"] - raw_p["p50_us"], 1),
        "target_overhead_p50_us": 200,
        "overhead_p50_within_target": own["p50_us"] < 200,
        "pool_start_1_worker_s": round(await _startup(base), 3),
    }
