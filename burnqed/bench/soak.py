"""``burnqed bench soak``: one shared pool under a hostile client, over HTTP on loopback.

A ``burnqed serve lean`` and a ``burnqed serve stats`` subprocess serve 127.0.0.1 behind two
bearer tokens, ``good`` and ``hostile``, over one run directory that holds a held-out
evaluation and an operator's held-out search job. Five HTTP clients share them:

- ``good/verify``: ``verify_proof`` in a loop — alone first (the idle latency), then under load;
- ``good/prover``: start_proof → run_tactic → close_proof cycles, and statistics calls;
- ``hostile/deep``: fills its handle cap, grows chains of ``have hI : True := trivial`` as deep as
  the server allows and alternates tactics on the deepest states (cold calls replay the chain),
  and tries the other token's handles;
- ``hostile/flood``: FLOOD_CALLS verify_proof calls in flight at once, all the time;
- ``hostile/garbage``: opens sessions without ever closing them, calls with unknown and huge
  arguments, asks for the held-out evaluation and the held-out job.

Reported: verify_proof p50/p99 idle and under load (the target: the loaded p99 stays under 10x
the idle p99), whether anything of the good token was lost (a failed call, a handle gone),
the hostile token's refusals by rule, the sessions refused, and how many held-out names or
statements appeared in anything either token read (must be 0). Bounded: ``--quick`` loads for
15 s (with the depth cap lowered to 40 so that cold replays happen in time), the full run for 120 s.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from burnqed.bench.mcp import config_flags
from burnqed.config import BurnqedConfig
from burnqed.env import environment

__all__ = ["bench"]

VERIFY_STATEMENT = "∀ (n : Nat), n + 0 = n"
VERIFY_TACTICS = ["intro n", "rfl"]
DEEP_TACTIC = "have hI : True := trivial"


def _percentiles(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s) or [0.0]
    return {
        "calls": len(samples_s),
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 3),
        "max_ms": round(ms[-1], 3),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _plant_held_out(run_dir: Path, count: int) -> tuple[list[str], str]:
    """A held-out evaluation and an operator's held-out job in ``run_dir``; returns what must never leak."""
    from burnqed.data.sets import load_builtin
    from burnqed.search.config import SearchConfig
    from burnqed.search.evaluation import EvalReport, TheoremOutcome
    from burnqed.search.results import SearchStats

    held = load_builtin("benchmark-test")[:count]
    outcomes = [
        TheoremOutcome(name=t.name, statement_sha=t.sha, proved=True, nodes=1, wall_s=0.1, reason="proved",
                       proof=list(t.proof or ["norm_num"]))
        for t in held
    ]
    report = EvalReport(
        label="with_ebm", backend="embedded", iteration=0, theorem_set="benchmark-test", total=len(held),
        solved=len(held), solve_rate=1.0, outcomes=outcomes, budget=SearchStats(nodes_expanded=len(held)),
        search=SearchConfig(), policy="tiny",
    )
    (run_dir / "eval_results").mkdir(parents=True, exist_ok=True)
    (run_dir / "eval_results" / "iter_0.json").write_text(report.model_dump_json(), encoding="utf-8")
    job_id = f"j-{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"
    jobs = run_dir / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    record = {"job_id": job_id, "kind": "search", "status": "succeeded", "created": datetime.now(UTC).isoformat(),
              "spec": {"theorem_set": "benchmark-test"}, "has_full_result": True,
              "summary": {"theorem_set": "benchmark-test", "solved": len(held), "total": len(held)}}
    (jobs / f"{job_id}.json").write_text(json.dumps(record), encoding="utf-8")
    (jobs / f"{job_id}.result.json").write_text(report.model_dump_json(), encoding="utf-8")
    return [t.name for t in held] + [t.statement for t in held if len(t.statement) > 12], job_id


class _Server:
    """A ``burnqed serve NAME`` over HTTP on loopback, as a subprocess."""

    def __init__(self, name: str, flags: list[str], token_file: Path, log: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.argv = [sys.executable, "-m", "burnqed.cli", "serve", name, "--transport", "streamable-http",
                     "--host", "127.0.0.1", "--port", str(self.port), "--token-file", str(token_file), *flags]
        self.log = log
        self.process: Any = None

    async def __aenter__(self) -> _Server:
        env = {k: v for k, v in environment().items() if k != "BURNQED_MCP_TOKEN"}
        self._err = self.log.open("w", encoding="utf-8")
        self.process = await anyio.open_process(self.argv, env=env, stdout=self._err, stderr=self._err)
        with anyio.fail_after(120):
            while True:
                if self.process.returncode is not None:
                    raise RuntimeError(f"server exited: {self.log.read_text(encoding='utf-8')[-2000:]}")
                if "serving http" in self.log.read_text(encoding="utf-8"):
                    return self
                await anyio.sleep(0.1)

    async def __aexit__(self, *exc: object) -> None:
        self.process.terminate()
        with anyio.move_on_after(20):
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        self._err.close()


@asynccontextmanager
async def _client(url: str, token: str) -> AsyncIterator[Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http, Client(
        streamable_http_client(url, http_client=http)
    ) as client:
        yield client


class _Seen:
    """Everything the clients read, checked for held-out text; the good token's failures."""

    def __init__(self, secrets_: list[str]) -> None:
        self.secrets = secrets_
        self.leaks: Counter[str] = Counter()
        self.good_failures: list[str] = []
        self.refusals: Counter[str] = Counter()
        self.protocol_errors: list[str] = []
        self.calls = 0

    async def call(self, who: str, client: Any, tool: str, args: dict[str, Any]) -> Any:
        """Call ``tool`` and read its result; a protocol error (a body too large, say) is counted."""
        from mcp.shared.exceptions import MCPError

        try:
            return self.read(who, await client.call_tool(tool, args))
        except MCPError as exc:
            self.calls += 1
            if who.startswith("good"):
                self.good_failures.append(f"{tool}: protocol error {exc}"[:200])
            else:
                self.refusals["protocol_error"] += 1
                if len(self.protocol_errors) < 5:
                    self.protocol_errors.append(f"{tool}: {exc} {getattr(exc, 'code', '')} {getattr(exc, 'data', '')}"[:300])
            return None

    def read(self, who: str, result: Any) -> Any:
        self.calls += 1
        text = " ".join(getattr(c, "text", "") for c in result.content)
        blob = text + json.dumps(result.structured_content or {}, ensure_ascii=False)
        for secret in self.secrets:
            if secret in blob:
                self.leaks[who] += 1
        if result.is_error:
            if who.startswith("good"):
                self.good_failures.append(text[:200])
            elif "refused [" in text:
                self.refusals[text.split("refused [", 1)[1].split("]", 1)[0]] += 1
            elif "rule: " in text:
                self.refusals["policy"] += 1
            else:
                self.refusals["other_error"] += 1
        return result


async def _verify_loop(client: Any, seen: _Seen, until: float, samples: list[float], limit: int | None = None) -> None:
    while time.monotonic() < until and (limit is None or len(samples) < limit):
        start = time.perf_counter()
        result = await seen.call("good/verify", client, "verify_proof", {"statement": VERIFY_STATEMENT, "tactics": VERIFY_TACTICS})
        samples.append(time.perf_counter() - start)
        if result is not None and not result.is_error and not (result.structured_content or {}).get("ok"):
            seen.good_failures.append("verify_proof rejected a valid proof")


async def _prover(lean: Any, stats: Any, seen: _Seen, until: float) -> int:
    cycles = 0
    while time.monotonic() < until:
        started = await seen.call("good/prover", lean, "start_proof", {"statement": "∀ (a b : Nat), a + b = b + a"})
        if started is None or started.is_error:
            continue
        handle = started.structured_content["handle"]
        step = await seen.call("good/prover", lean, "run_tactic", {"handle": handle, "state_id": 0, "tactic": "intro a b"})
        if step is not None and not step.is_error:
            await seen.call("good/prover", lean, "run_tactic", {"handle": handle, "state_id": step.structured_content["next_state_id"],
                               "tactic": "omega"})
        await seen.call("good/prover", lean, "close_proof", {"handle": handle})
        await seen.call("good/prover", stats, "solve_curve", {})
        cycles += 1
    return cycles


FLOOD_CALLS = 32  # concurrent calls the flooding token keeps in flight (issue 41's figure)


async def _hostile_flood(lean: Any, seen: _Seen, until: float) -> dict[str, int]:
    """FLOOD_CALLS verify_proof calls of the hostile token in flight at once, until ``until``."""
    done = [0]

    async def one() -> None:
        while time.monotonic() < until:
            await seen.call("hostile/flood", lean, "verify_proof", {"statement": VERIFY_STATEMENT, "tactics": VERIFY_TACTICS})
            done[0] += 1

    async with anyio.create_task_group() as tg:
        for _ in range(FLOOD_CALLS):
            tg.start_soon(one)
    return {"concurrent": FLOOD_CALLS, "calls": done[0]}


async def _hostile_deep(lean: Any, seen: _Seen, until: float, victim: list[str]) -> dict[str, int]:
    handles: list[str] = []
    while time.monotonic() < until:
        opened = await seen.call("hostile/deep", lean, "start_proof", {"statement": "True"})
        if opened is None or opened.is_error:
            break
        handles.append(opened.structured_content["handle"])
    deepest: dict[str, int] = {}
    depth = 0
    for handle in handles[:2]:
        state = 0
        while time.monotonic() < until:
            step = await seen.call("hostile/deep", lean, "run_tactic", {"handle": handle, "state_id": state, "tactic": DEEP_TACTIC})
            if step is None or step.is_error or step.structured_content.get("next_state_id") is None:
                break
            state = step.structured_content["next_state_id"]
        # one step short of the cap: a tactic there is allowed, and a cold call replays the whole chain
        deepest[handle] = max(0, state - 1)
        depth = max(depth, state)
    cold = 0
    while time.monotonic() < until and deepest:
        for handle, state in deepest.items():  # alternating handles: each call finds its worker cold
            await seen.call("hostile/deep", lean, "run_tactic", {"handle": handle, "state_id": state, "tactic": "trivial"})
            cold += 1
        for target in victim[:1]:
            await seen.call("hostile/deep", lean, "run_tactic", {"handle": target, "state_id": 0, "tactic": "trivial"})
    return {"handles": len(handles), "deepest_state": depth, "cold_calls": cold}


async def _hostile_garbage(lean: Any, stats: Any, seen: _Seen, until: float, url: str, token: str,
                           job: str) -> dict[str, int]:
    import httpx2

    sessions = Counter[int]()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "0"}}}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    async with httpx2.AsyncClient(timeout=30) as http:
        for _ in range(40):  # sessions opened and never ended
            sessions[(await http.post(url, json=initialize, headers=headers)).status_code] += 1
    rounds = 0
    while time.monotonic() < until:
        for tool, args in (
            ("pool_status", {"pad": "x" * 1_000_000}),
            ("start_proof", {"statement": "∀ (n : Nat), n = n\x00\x1b[2J"}),
            ("start_proof", {"statement": "(" * 5000}),
            ("run_tactic", {"handle": "h-000000000000", "state_id": 0, "tactic": "exact sorryAx _ false"}),
            ("verify_proof", {"statement": "True", "tactics": ["#eval 1"] * 600}),
            ("close_proof", {"handle": "../../etc/passwd"}),
        ):
            await seen.call("hostile/garbage", lean, tool, args)
        for tool, args in (
            ("eval_result", {"iteration": 0, "detail": "full"}),
            ("solve_curve", {}),
            ("compare_iterations", {"a": 0, "b": 0}),
            ("trajectory_summary", {"job_id": job}),
            ("trajectory_summary", {"iteration": 0, "job_id": job}),
        ):
            await seen.call("hostile/garbage", stats, tool, args)
        rounds += 1
    return {"rounds": rounds, **{f"initialize_http_{code}": n for code, n in sorted(sessions.items())}}


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Run the soak and report latencies, losses, refusals and held-out leaks."""
    from burnqed.tools.common.run_files import tool_call_log

    load_s = 15.0 if quick else 120.0
    idle_calls = 30 if quick else 200
    workers = max(2, config.lean.num_workers)
    with tempfile.TemporaryDirectory(prefix="burnqed-soak-") as tmp:
        root = Path(tmp)
        run_dir = root / "run"
        secrets_, job = _plant_held_out(run_dir, 5)
        good, hostile = f"good-{secrets.token_hex(12)}", f"hostile-{secrets.token_hex(12)}"
        tokens = root / "tokens"
        tokens.write_text(f"good {good}\nhostile {hostile}\n", encoding="utf-8")
        tuned = config.model_copy(update={
            "lean": config.lean.model_copy(update={"num_workers": workers}),
            "paths": config.paths.model_copy(update={"run_dir": run_dir, "logs_dir": root / "logs",
                                                     "home": config.paths.home}),
            # --quick: a shallower depth cap, so that the hostile client reaches its cold replays in time
            "tools": config.tools.model_copy(update={"show_held_out": False, **(
                {"max_handle_depth": min(config.tools.max_handle_depth, 40)} if quick else {})}),
        })
        flags = config_flags(tuned)
        seen = _Seen(secrets_)
        async with _Server("lean", flags, tokens, root / "lean.log") as lean_srv, \
                _Server("stats", flags, tokens, root / "stats.log") as stats_srv:
            async with _client(lean_srv.url, good) as g1, _client(lean_srv.url, good) as g2, \
                    _client(stats_srv.url, good) as g_stats, _client(lean_srv.url, hostile) as h1, \
                    _client(lean_srv.url, hostile) as h2, _client(stats_srv.url, hostile) as h_stats, \
                    _client(lean_srv.url, hostile) as h_flood:
                await _verify_loop(g1, seen, time.monotonic() + 120, [], limit=3)  # workers up, caches warm
                idle: list[float] = []
                await _verify_loop(g1, seen, time.monotonic() + 120, idle, limit=idle_calls)
                probe = await seen.call("good/prover", g2, "start_proof", {"statement": "True"})
                victim = [probe.structured_content["handle"]] if probe is not None and not probe.is_error else []
                loaded: list[float] = []
                until = time.monotonic() + load_s
                results: dict[str, Any] = {}

                async def run(name: str, coro: Any) -> None:
                    results[name] = await coro

                async with anyio.create_task_group() as tg:
                    tg.start_soon(run, "verify", _verify_loop(g1, seen, until, loaded))
                    tg.start_soon(run, "prover", _prover(g2, g_stats, seen, until))
                    tg.start_soon(run, "deep", _hostile_deep(h1, seen, until, victim))
                    tg.start_soon(run, "garbage", _hostile_garbage(h2, h_stats, seen, until, lean_srv.url, hostile, job))
                    tg.start_soon(run, "flood", _hostile_flood(h_flood, seen, until))
                # the good token's handle outlived the hostile client's attempts on it
                kept = await seen.call("good/prover", g2, "run_tactic", {"handle": victim[0], "state_id": 0, "tactic": "trivial"}) if victim else None
                status = (await g1.call_tool("pool_status", {})).structured_content
        calls = [json.loads(line) for line in tool_call_log(root / "logs").read_text(encoding="utf-8").splitlines()]
        idle_stats, load_stats = _percentiles(idle), _percentiles(loaded)
        ratio = load_stats["p99_ms"] / idle_stats["p99_ms"] if idle_stats["p99_ms"] else None
        return {
            "backend": config.lean.backend,
            "workers": workers,
            "max_handle_depth": tuned.tools.max_handle_depth,
            "load_seconds": load_s,
            "verify_idle": idle_stats,
            "verify_loaded": load_stats,
            "p99_ratio": round(ratio, 2) if ratio is not None else None,
            "meets_target": ratio is not None and ratio < 10,
            "good_failures": seen.good_failures[:10],
            "nothing_lost": not seen.good_failures and kept is not None and not kept.is_error,
            "good_prover_cycles": results.get("prover"),
            "hostile_deep": results.get("deep"),
            "hostile_garbage": results.get("garbage"),
            "hostile_flood": results.get("flood"),
            "hostile_refusals": dict(seen.refusals),
            "hostile_protocol_errors": seen.protocol_errors,
            "held_out_leaks": sum(seen.leaks.values()),
            "calls_read": seen.calls,
            "calls_logged": len(calls),
            "calls_logged_with_refusal": sum(1 for c in calls if c.get("refusal")),
            "tokens_in_log": sum(1 for c in calls if good in json.dumps(c) or hostile in json.dumps(c)),
            "pool_after": {k: status["pool"].get(k) for k in ("workers", "restarts", "requests")} if status else None,
            "load_average": list(os.getloadavg()),
        }
