"""``burnqed bench chaos``: a run directory driven by the daemon while it is hit at random.

Two run directories get the same small config (scripted brain, tiny model, embedded Lean).
The first is run undisturbed (``coordinator run``). The second is run while, for a bounded
time and from a seeded generator, the daemon is SIGKILLed or SIGTERMed (and restarted), and a
competing ``iterate --pending`` and competing ``search`` runs (into the run's own trajectory
file and beside it) are started against it. Afterwards the daemon finishes undisturbed and
the two runs are compared: every iteration's held-out reports (per theorem: proved, reason,
nodes), its trajectory rows per theorem (nothing lost or duplicated), the blueprint's
iteration entries and the session records; ``burnqed audit`` must say ok. The figures: the
actions taken, how each competitor ended (refused in one line, or ran because the run dir
was free), restarts, wall times, and whether the runs are equal.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from burnqed.config import BurnqedConfig, load_config
from burnqed.env import env

__all__ = ["bench", "compare_runs", "run_chaos", "run_fingerprint"]

_OVERRIDES = [
    "lean.num_workers=2",
    "iteration.train_size=6",
    "iteration.eval_size=4",
    "iteration.max_nodes=6",
    "iteration.first_sft_epochs=1",
    "iteration.sft_epochs=1",
    "coordinator.brain='scripted'",
    "coordinator.probe_limit=2",
    "coordinator.probe_max_nodes=4",
    "coordinator.job_poll_interval_s=0.2",
    "coordinator.pause_between_sessions_s=0",
]


def _cli(config: Path, *argv: str) -> list[str]:
    return [sys.executable, "-m", "burnqed.cli", "--config", str(config), *argv]


def _prepare(work: Path, sessions: int, overrides: list[str]) -> tuple[Path, BurnqedConfig]:
    """The shared config file (home under ``work``, the tiny model built once)."""
    from burnqed.coordination.daemon import write_config_snapshot
    from burnqed.policy.tiny import ensure_tiny_model

    config = load_config(None, [f"paths.home='{work / 'home'}'", *_OVERRIDES,
                                f"coordinator.max_sessions={sessions}", *overrides])
    ensure_tiny_model(config.paths, config.policy.tiny)
    return write_config_snapshot(config, work / "burnqed.toml"), config


def _register(config: BurnqedConfig, run_dir: Path) -> None:
    from burnqed.coordination.daemon import prepare_run_config
    from burnqed.coordination.demo import register_benchmark_targets

    register_benchmark_targets(prepare_run_config(config, run_dir))
    # a run directory is one before its daemon's first start (as `coordinator run` leaves it):
    # a competitor launched while the daemon still imports must already find the run's mark
    from burnqed.coordination.control import COORDINATOR_DIR

    (run_dir / COORDINATOR_DIR).mkdir(parents=True, exist_ok=True)


def _daemon(config: Path, run_dir: Path, log: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(_cli(config, "coordinator", "run", "--run-dir", str(run_dir)),
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)


def _finish(proc: subprocess.Popen[bytes], timeout: float) -> int:
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(timeout=60)


def run_fingerprint(run_dir: Path) -> dict[str, Any]:
    """What must not differ between two runs of one config: per iteration its held-out
    reports (per theorem), its trajectory rows per theorem, its blueprint entry; the sessions."""
    from burnqed.blueprint import BlueprintStore
    from burnqed.coordination.control import DaemonPaths
    from burnqed.coordination.log import read_jsonl
    from burnqed.iteration.layout import RunLayout
    from burnqed.trajectory.reader import read_trajectories, trajectory_files

    layout = RunLayout(run_dir)
    iterations: dict[str, Any] = {}
    for entry in BlueprintStore(layout.blueprint).list_entries(kind="iteration"):
        index = int(entry.label.split("_")[1])
        reports = {}
        for with_ebm in (False, True):
            path = layout.eval_result(index, with_ebm)
            if path.is_file():
                report = json.loads(path.read_text(encoding="utf-8"))
                reports["with_ebm" if with_ebm else "no_ebm"] = {
                    "solved": report["solved"], "total": report["total"],
                    "outcomes": [[o["name"], o["proved"], o["reason"], o["nodes"]] for o in report["outcomes"]],
                }
        rows: dict[str, list[int]] = {}
        if trajectory_files(layout.trajectories(index)):
            table = read_trajectories(layout.trajectories(index), ["theorem", "label"])
            for name, label in zip(table.column("theorem").to_pylist(), table.column("label").to_pylist(), strict=True):
                counts = rows.setdefault(name, [0, 0])
                counts[0] += 1
                counts[1] += int(label)
        results = {k: v for k, v in entry.results.items() if k not in {"sft_final_loss"}}
        iterations[entry.label] = {"status": entry.status, "plan": entry.plan, "results": results,
                                   "reports": reports, "rows": dict(sorted(rows.items()))}
    sessions = [[s.get("session"), [it.get("label") for it in s.get("iterations", [])]]
                for s in read_jsonl(DaemonPaths(run_dir=run_dir).sessions_file)]
    return {"iterations": iterations, "sessions": sessions}


def compare_runs(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The differences between two run fingerprints, one line each (empty: equal)."""
    found: list[str] = []
    if a["sessions"] != b["sessions"]:
        found.append(f"sessions differ: {a['sessions']} vs {b['sessions']}")
    for label in sorted(set(a["iterations"]) | set(b["iterations"])):
        x, y = a["iterations"].get(label), b["iterations"].get(label)
        if x is None or y is None:
            found.append(f"{label}: only in {'the chaos run' if x is None else 'the undisturbed run'}")
            continue
        for key in ("status", "plan", "results", "reports", "rows"):
            if x[key] != y[key]:
                found.append(f"{label}: {key} differs")
    return found


def _sessions_done(run_dir: Path) -> int:
    try:
        return int(json.loads((run_dir / "coordinator" / "state.json").read_text(encoding="utf-8"))["sessions_done"])
    except (OSError, ValueError, KeyError):
        return 0


class _Competitor:
    """A competing command started beside the daemon (not waited for: the chaos goes on)."""

    def __init__(self, what: str, argv: list[str]) -> None:
        self.what = what
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     stdin=subprocess.DEVNULL)

    def result(self, timeout: float) -> dict[str, Any]:
        """How it ended: exit code and its last stderr line (a refusal is one line)."""
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate(timeout=60)
            return {"what": self.what, "rc": None, "line": "timed out", "lines": 0}
        lines = [line for line in err.splitlines() if line.strip()]
        return {"what": self.what, "rc": self.proc.returncode, "line": lines[-1][:200] if lines else "",
                "lines": len(lines)}


def _chaos(
    config: Path, run_dir: Path, log: Any, seconds: float, seed: int, limit_s: float, sessions: int,
    max_actions: int | None,
) -> dict[str, Any]:
    """Drive ``run_dir`` with the daemon while hitting it (for ``seconds`` or ``max_actions``
    hits, whichever ends first); then let it finish."""
    rng = random.Random(seed)
    actions: dict[str, int] = {"sigkill": 0, "sigterm": 0, "iterate": 0, "search_into_run": 0, "search_beside": 0}
    competitors: list[_Competitor] = []
    restarts = 0
    term_exit: list[int] = []
    proc: subprocess.Popen[bytes] | None = None
    finished = False
    started = time.monotonic()
    while time.monotonic() - started < seconds and not finished and (
        max_actions is None or sum(actions.values()) < max_actions
    ):
        if proc is None or proc.poll() is not None:
            # a SIGTERMed daemon exits 0 too: done means the sessions are recorded
            if _sessions_done(run_dir) >= sessions:
                finished = True
                break
            proc = _daemon(config, run_dir, log)
            restarts += 1
        time.sleep(rng.uniform(0.5, 4.0))
        if proc.poll() is not None:
            continue
        action = rng.choice(["sigkill", "sigkill", "sigterm", "iterate", "search_into_run", "search_beside"])
        actions[action] += 1
        if action == "sigkill":
            proc.kill()
            proc.wait(timeout=60)
        elif action == "sigterm":
            proc.send_signal(signal.SIGTERM)
            term_exit.append(_finish(proc, 120))
        elif action == "iterate":
            competitors.append(_Competitor(action, _cli(config, "iterate", "--run-dir", str(run_dir), "--pending",
                                                        "--quiet")))
        else:
            out = run_dir / ("trajectories/iter_0.parquet" if action == "search_into_run" else "extra.parquet")
            competitors.append(_Competitor(action, _cli(config, "search", "--set", "core", "--limit", "2",
                                                        "--policy", "none", "--resume", "--output", str(out))))
    # the undisturbed end: restart until the daemon finishes on its own
    tail_started = time.monotonic()
    while not finished and time.monotonic() - tail_started < limit_s:
        if proc is None or proc.poll() is not None:
            if _sessions_done(run_dir) >= sessions:
                break
            proc = _daemon(config, run_dir, log)
            restarts += 1
        _finish(proc, max(1.0, limit_s - (time.monotonic() - tail_started)))
        finished = _sessions_done(run_dir) >= sessions
    return {"actions": actions, "competitors": [c.result(600) for c in competitors], "daemon_starts": restarts,
            "sigterm_exit_codes": term_exit, "finished": finished,
            "seconds": round(time.monotonic() - started, 1)}


def run_chaos(
    work: Path, *, sessions: int, window: float, seed: int, overrides: list[str] | None = None,
    max_actions: int | None = None,
) -> dict[str, Any]:
    """The undisturbed run and the chaos run under ``work``; the figures and the differences.

    A seed fixes the sequence of hits; ``max_actions`` ends the chaos after that many of them
    (a test draws a seed whose first hits cover every kind), ``window`` after that many seconds.
    """
    config_file, shared = _prepare(work, sessions, overrides or [])
    calm, chaos = work / "calm", work / "chaos"
    for run_dir in (calm, chaos):
        _register(shared, run_dir)
    with (work / "calm.log").open("ab") as log:
        t0 = time.perf_counter()
        rc = _finish(_daemon(config_file, calm, log), 1800)
        calm_s = time.perf_counter() - t0
    if rc != 0 or _sessions_done(calm) < sessions:
        raise RuntimeError(f"the undisturbed run failed ({rc}); see {work / 'calm.log'}")
    with (work / "chaos.log").open("ab") as log:
        report = _chaos(config_file, chaos, log, window, seed, 1800, sessions, max_actions)
    differences = compare_runs(run_fingerprint(calm), run_fingerprint(chaos))
    audit = subprocess.run(_cli(config_file, "audit", "--run-dir", str(chaos), "--json"),
                           capture_output=True, text=True, timeout=600)
    audit_ok = audit.returncode == 0 and json.loads(audit.stdout or "{}").get("violations") == []
    refused = [c for c in report["competitors"] if c["rc"] not in (0, None) and c.get("lines") == 1]
    return {
        "seed": seed,
        "sessions": sessions,
        "chaos_window_s": window,
        "undisturbed_s": round(calm_s, 1),
        **report,
        "competitors_refused_in_one_line": len(refused),
        "competitors_that_ran": sum(c["rc"] == 0 for c in report["competitors"]),
        "equal": not differences,
        "differences": differences,
        "audit_ok": audit_ok,
        "iterations": sorted(run_fingerprint(chaos)["iterations"]),
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Undisturbed run vs a run under random kills and competitors; equal results or the differences."""
    del config  # the bench builds its own small config: the two runs must be comparable
    seed = int(env("BURNQED_CHAOS_SEED", "0") or 0)
    work = Path(tempfile.mkdtemp(prefix="burnqed-chaos-"))
    try:
        return await anyio.to_thread.run_sync(
            lambda: run_chaos(work, sessions=1 if quick else 2, window=40.0 if quick else 240.0, seed=seed)
        )
    finally:
        if env("BURNQED_CHAOS_KEEP") != "1":
            shutil.rmtree(work, ignore_errors=True)
