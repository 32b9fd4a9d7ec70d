"""``burnqed bench embedded``: per-tactic latency (structural vs z3/sympy-backed), start-up
time and idle memory of the embedded checker, measured through the real child process."""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

import anyio
from anyio.abc import Process

from burnqed.config import BurnqedConfig

__all__ = ["AUTOMATED", "STRUCTURAL", "bench"]

# (kind, tactic, statement, set-up tactics): each timed tactic runs from the same prepared state
STRUCTURAL: list[tuple[str, str, list[str]]] = [
    ("intro", "∀ (a b : Nat), a < b → a + 1 ≤ b", []),
    ("exact", "∀ (p q : Prop), p ∧ q → q ∧ p", ["intro p q h"]),
    ("constructor", "∀ (p q : Prop), p → q → p ∧ q", ["intro p q hp hq"]),
    ("cases", "∀ (p q : Prop), p ∨ q → q ∨ p", ["intro p q h"]),
    ("rcases", "∀ (x : Nat), (∃ y, x = 2 * y) → x % 2 = 0", ["intro x h"]),
    ("apply", "∀ (p q : Prop), p → (p → q) → q", ["intro p q hp hpq"]),
    ("use", "∃ (n : Nat), n * n = 49", []),
    ("rw", "∀ (a b c : Nat), a = b → b = c → a = c", ["intro a b c h₁ h₂"]),
    ("induction", "∀ (n : Nat), 2 * n = n + n", ["intro n"]),
]
_TACTIC = {
    "intro": "intro a b h",
    "exact": "exact ⟨h.2, h.1⟩",
    "constructor": "constructor",
    "cases": "rcases h with hp | hq",
    "rcases": "obtain ⟨y, hy⟩ := h",
    "apply": "apply hpq",
    "use": "use 7",
    "rw": "rw [h₁]",
    "induction": "induction n",
    "omega": "omega",
    "linarith": "linarith",
    "nlinarith": "nlinarith",
    "positivity": "positivity",
    "decide": "decide",
    "simp": "simp",
    "norm_num": "norm_num",
    "ring": "ring",
}
AUTOMATED: list[tuple[str, str, list[str]]] = [
    # "{k}" varies per repetition, so sympy's and z3's caches cannot answer from memory
    ("omega", "∀ (x y : Nat), x < y → x + {k} ≤ y + {k} ∧ y - x > 0", ["intro x y h"]),
    (
        "linarith",
        "∀ (x y z : Int), x < y → y < z → x + 2 ≤ z + {k}",
        ["intro x y z h1 h2"],
    ),
    ("nlinarith", "∀ (x : Int), x ^ 2 - 2 * {k} * x + {k} * {k} ≥ 0", ["intro x"]),
    ("positivity", "∀ (x : Int), x ^ 2 + {k} > 0", ["intro x"]),
    ("decide", "2 ^ {k} % 7 < 7 ∧ 17 ∣ 289", []),
    ("simp", "∀ (n : Nat), 0 + n * 1 + {k} = n + {k}", ["intro n"]),
    ("norm_num", "∀ (x : Nat), x + {k} + 1 > x + {k}", ["intro x"]),
    (
        "ring",
        "∀ (a b : Int), (a + {k} * b) ^ 3 = a ^ 3 + 3 * {k} * a ^ 2 * b + 3 * {k} ^ 2 * a * b ^ 2 + {k} ^ 3 * b ^ 3",
        ["intro a b"],
    ),
]


class _Repl:
    def __init__(self, proc: Process) -> None:
        self.proc = proc
        self.buf = b""

    async def line(self) -> str:
        assert self.proc.stdout is not None
        with anyio.fail_after(60):
            while b"\n" not in self.buf:
                self.buf += await self.proc.stdout.receive()
        raw, _, self.buf = self.buf.partition(b"\n")
        return raw.decode("utf-8")

    async def send(self, cmd: str, **payload: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        text = json.dumps({"cmd": cmd, "payload": payload}, ensure_ascii=False) + "\n"
        await self.proc.stdin.send(text.encode("utf-8"))
        return json.loads(await self.line())

    async def close(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.send(b"\n")
        with anyio.fail_after(10):
            await self.proc.wait()
        await self.proc.aclose()


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def _spawn() -> tuple[_Repl, float]:
    t0 = time.perf_counter()
    proc = await anyio.open_process(
        [sys.executable, "-m", "burnqed.embedded", "Init"]
    )
    repl = _Repl(proc)
    line = await repl.line()
    if line != "ready.":
        raise RuntimeError(f"embedded checker did not start: {line!r}")
    return repl, time.perf_counter() - t0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _latencies(
    repl: _Repl, table: list[tuple[str, str, list[str]]], reps: int
) -> tuple[dict[str, Any], list[float], dict[str, float]]:
    per: dict[str, Any] = {}
    all_ms: list[float] = []
    cold: dict[str, float] = {}
    for kind, statement, setup in table:
        samples: list[float] = []
        sid = -1
        for i in range(reps + 1):
            if i == 0 or "{k}" in statement:
                if sid >= 0:
                    await repl.send("goal.delete", stateIds=[sid])
                sid = (
                    await repl.send(
                        "goal.start", expr=statement.replace("{k}", str(i + 2))
                    )
                )["stateId"]
                for tac in setup:
                    sid = (await repl.send("goal.tactic", stateId=sid, tactic=tac))[
                        "nextStateId"
                    ]
            t0 = time.perf_counter()
            ans = await repl.send("goal.tactic", stateId=sid, tactic=_TACTIC[kind])
            ms = (time.perf_counter() - t0) * 1000
            if "nextStateId" not in ans:
                raise RuntimeError(f"bench tactic {kind} failed: {ans}")
            await repl.send("goal.delete", stateIds=[ans["nextStateId"]])
            if i == 0:
                cold[kind] = round(
                    ms, 2
                )  # first call (lazy import of z3 / sympy lands here)
            else:
                samples.append(ms)
        per[kind] = {
            "p50_ms": round(statistics.median(samples), 3),
            "p99_ms": round(_pct(samples, 0.99), 3),
        }
        all_ms.extend(samples)
    return per, all_ms, cold


def kernel_overhead(quick: bool) -> dict[str, Any]:
    """``check_proof`` of the built-in reference proofs with the kernel off and enforced,
    interleaved proof by proof in one process: p50 of each, their ratio, and how many
    proofs each mode accepts (a proof accepted only without the kernel is a completeness loss)."""
    from burnqed.data.sets import load_builtin
    from burnqed.embedded.repl.checker import Checker
    from burnqed.embedded.config import EmbeddedConfig

    theorems = load_builtin("core") + load_builtin("benchmark-test")
    if quick:
        theorems = theorems[::6]
    modes = {m: Checker(EmbeddedConfig(kernel=m)) for m in ("off", "enforce")}
    times: dict[str, list[float]] = {m: [] for m in modes}
    accepted = {m: 0 for m in modes}
    lost: list[str] = []
    for th in theorems:
        ok = {}
        for m, checker in modes.items():
            t0 = time.perf_counter()
            ok[m] = checker.check_proof(th.statement, th.proof).ok
            times[m].append((time.perf_counter() - t0) * 1000)
            accepted[m] += ok[m]
        if ok["off"] and not ok["enforce"]:
            lost.append(th.statement)
    p50 = {m: statistics.median(v) for m, v in times.items()}
    ratio = p50["enforce"] / p50["off"]
    stats = modes["enforce"].kernel_stats
    return {
        "proofs": len(theorems),
        "accepted_kernel_off": accepted["off"],
        "accepted_kernel_enforced": accepted["enforce"],
        "completeness_lost": lost[:20],
        "verify_p50_ms_kernel_off": round(p50["off"], 3),
        "verify_p50_ms_kernel_enforced": round(p50["enforce"], 3),
        "verify_p50_ratio": round(ratio, 3),
        "kernel_seconds_share": round(stats.seconds / (sum(times["enforce"]) / 1000), 4),
        "kernel_steps_checked": stats.checks,
        "kernel_rejected": stats.rejected,
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Latency by tactic kind, start-up time and idle memory, all from one run."""
    starts = 2 if quick else 5
    reps = 5 if quick else 50
    startup_s: list[float] = []
    idle_mb: list[float] = []
    for _ in range(starts):
        repl, took = await _spawn()
        startup_s.append(took)
        idle_mb.append(_rss_mb(repl.proc.pid))
        await repl.close()
    repl, _took = await _spawn()
    try:
        structural, s_ms, _cold_s = await _latencies(repl, STRUCTURAL, reps)
        automated, a_ms, cold_a = await _latencies(repl, AUTOMATED, reps)
        warm_mb = _rss_mb(repl.proc.pid)
    finally:
        await repl.close()
    kernel = kernel_overhead(quick)
    s50, a50 = statistics.median(s_ms), statistics.median(a_ms)
    startup = statistics.median(startup_s)
    idle = statistics.median(idle_mb)
    return {
        "backend": "embedded",
        "quick": quick,
        "repetitions_per_tactic": reps,
        "structural": {
            "p50_ms": round(s50, 3),
            "p99_ms": round(_pct(s_ms, 0.99), 3),
            "by_tactic": structural,
        },
        "automated": {
            "p50_ms": round(a50, 3),
            "p99_ms": round(_pct(a_ms, 0.99), 3),
            "by_tactic": automated,
        },
        "automated_first_call_ms": cold_a,
        "startup_s": round(startup, 3),
        "idle_rss_mb": round(idle, 1),
        "rss_after_bench_mb": round(warm_mb, 1),
        "kernel": kernel,
        "targets": {
            "kernel_verify_p50_ratio<=1.2": kernel["verify_p50_ratio"] <= 1.2,
            "kernel_completeness_lost==0": not kernel["completeness_lost"],
            "structural_p50_ms<=2": s50 <= 2.0,
            "automated_p50_ms<=50": a50 <= 50.0,
            "startup_s<=1.5": startup <= 1.5,
            "idle_rss_mb<=150": idle <= 150.0,
        },
        "note": "latencies are request round trips through the child process's pipes; first calls load z3/sympy lazily",
    }
