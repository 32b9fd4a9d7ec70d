"""``burnqed bench mcp``: the cost of going through MCP for one run_tactic.

In one run, the same tactic on the same statement is timed three ways: a direct call on a
pool's proof handle, a call through an in-process MCP client (the tool layer without a
transport), and a call through a real ``burnqed serve lean`` subprocess over stdio (the
path Claude Code and the coordinator take). The MCP overhead is the difference of medians
against the direct call. Target: stdio overhead p50 under 3 ms. Latency depends on how
busy the machine is, so the report also gives this process's CPU time per call and the
load average.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from burnqed.config import BurnqedConfig, toml_literal

__all__ = ["bench", "config_flags"]

STATEMENT = "∀ (n : Nat), n + 0 = n"
TACTIC = "intro n"


def config_flags(config: BurnqedConfig, sections: tuple[str, ...] = ("lean", "tools", "paths")) -> list[str]:
    """``--set`` flags that reproduce ``sections`` of ``config`` in a burnqed subprocess."""
    flags: list[str] = []
    for section in sections:
        for key, value in getattr(config, section).model_dump(mode="json", exclude_none=True).items():
            flags += ["--set", f"{section}.{key}={toml_literal(value)}"]
    return flags


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s)
    return {
        "p50_ms": round(statistics.median(ms), 4),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 4),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 4),
        "mean_ms": round(statistics.fmean(ms), 4),
    }


async def _direct(config: BurnqedConfig, n: int, warmup: int, cpu: list[float]) -> list[float]:
    from burnqed.lean import LeanPool, ProofTarget

    samples: list[float] = []
    async with LeanPool(config.lean) as pool, pool.start_proof(ProofTarget.of(STATEMENT)) as proof:
        for i in range(n + warmup):
            if i == warmup:
                cpu_start = time.process_time()
            start = time.perf_counter()
            outcome = await proof.run_tactic(proof.state_id, TACTIC)
            elapsed = time.perf_counter() - start
            if not outcome.ok:
                raise RuntimeError(f"{TACTIC!r} failed on the {pool.backend} backend: {outcome.error_text}")
            if i >= warmup:
                samples.append(elapsed)
        cpu.append((time.process_time() - cpu_start) / n)
    return samples


async def _through(client: Any, n: int, warmup: int, cpu: list[float]) -> list[float]:
    started = await client.call_tool("start_proof", {"statement": STATEMENT})
    if started.is_error:
        raise RuntimeError(started.content[0].text)
    handle, root = started.structured_content["handle"], started.structured_content["state_id"]
    args = {"handle": handle, "state_id": root, "tactic": TACTIC}
    samples: list[float] = []
    for i in range(n + warmup):
        if i == warmup:
            cpu_start = time.process_time()
        start = time.perf_counter()
        result = await client.call_tool("run_tactic", args)
        elapsed = time.perf_counter() - start
        if result.is_error or result.structured_content["status"] != "success":
            raise RuntimeError(f"run_tactic failed: {result.content[0].text}")
        if i >= warmup:
            samples.append(elapsed)
    cpu.append((time.process_time() - cpu_start) / n)
    await client.call_tool("close_proof", {"handle": handle})
    return samples


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Time run_tactic directly, through an in-process MCP client and through stdio."""
    from mcp import Client, StdioServerParameters

    from burnqed.tools.lean.server import build_server
    from burnqed.tools.common.run_files import tool_call_log

    n, warmup = (60, 10) if quick else (400, 30)
    with tempfile.TemporaryDirectory(prefix="burnqed-bench-mcp-") as tmp:
        # the bench's tool calls are logged (that is part of the cost) but not into the real log
        config = config.model_copy(
            update={
                "paths": config.paths.model_copy(update={"logs_dir": Path(tmp) / "logs"}),
                "tools": config.tools.model_copy(update={"call_log": None}),
            }
        )
        cpu_direct: list[float] = []
        cpu_in_process: list[float] = []
        direct = await _direct(config, n, warmup, cpu_direct)
        async with Client(build_server(config)) as client:
            in_process = await _through(client, n, warmup, cpu_in_process)
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "burnqed.cli", "serve", "lean", *config_flags(config)]
        )
        with anyio.fail_after(120):
            async with Client(params) as client:
                stdio = await _through(client, n, warmup, [])
        logged = len(tool_call_log(Path(tmp) / "logs").read_text(encoding="utf-8").splitlines())
    d, m, s = _stats(direct), _stats(in_process), _stats(stdio)
    return {
        "backend": config.lean.backend,
        "tactic": TACTIC,
        "calls_per_path": n,
        "direct": d,
        "mcp_in_process": m,
        "mcp_stdio": s,
        "overhead_in_process_p50_ms": round(m["p50_ms"] - d["p50_ms"], 4),
        "overhead_stdio_p50_ms": round(s["p50_ms"] - d["p50_ms"], 4),
        "overhead_stdio_p99_ms": round(s["p99_ms"] - d["p99_ms"], 4),
        "target_overhead_p50_ms": 3.0,
        "meets_target": s["p50_ms"] - d["p50_ms"] < 3.0,
        "tool_calls_logged": logged,
        # CPU time of this process per call: unlike latency, barely affected by other load
        "cpu_ms_per_call_direct": round(cpu_direct[0] * 1000, 4),
        "cpu_ms_per_call_in_process": round(cpu_in_process[0] * 1000, 4),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
