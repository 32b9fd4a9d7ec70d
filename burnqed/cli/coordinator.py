"""Sub-commands: ``burnqed coordinator start|stop|status|logs|run-once|run|resume`` and ``burnqed demo``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig
from burnqed.paths import DEMO_RUN_DIR

__all__ = ["register"]


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "coordinator.brain": getattr(args, "brain", None),
        "coordinator.max_sessions": getattr(args, "sessions", None),
        "coordinator.model": getattr(args, "model", None),
        "coordinator.base_url": getattr(args, "base_url", None),
        # absolute: the detached daemon reads them from its config snapshot
        "iteration.theorems": _absolute(getattr(args, "theorems", None)),
        "iteration.held_out": _absolute(getattr(args, "held_out", None)),
    }


def _absolute(path: str | None) -> str | None:
    return str(Path(path).resolve()) if path else None


def _paths(args: argparse.Namespace, config: BurnqedConfig) -> Any:
    from burnqed.coordination.control import DaemonPaths

    return DaemonPaths(run_dir=Path(args.run_dir or config.paths.run_dir).resolve())


def _start(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.coordination.control import ControlError, lock_holder, read_pid, start_detached
    from burnqed.coordination.daemon import prepare_run_config, write_config_snapshot

    paths = _paths(args, config)
    running = read_pid(paths)
    if running is not None:  # refused before anything is written (the config snapshot stays)
        print(f"burnqed: a coordinator is already running for {paths.run_dir} (pid {running})", file=sys.stderr)
        return 2
    current = lock_holder(paths)
    if current is not None:  # a foreground run-once or an iterate: its config.toml stays too
        print(f"burnqed: run directory {paths.run_dir} is in use by {current.describe()}", file=sys.stderr)
        return 2
    snapshot = write_config_snapshot(prepare_run_config(config, paths.run_dir), paths.config_file)
    try:
        pid = start_detached(paths, ["--config", str(snapshot), "coordinator", "run", "--run-dir", str(paths.run_dir)])
    except ControlError as exc:
        print(f"burnqed: {exc}", file=sys.stderr)
        return 1
    print(f"coordinator started (pid {pid}); logs: {paths.log_file}")
    return 0


def _stop(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.coordination.control import stop_daemon

    result = stop_daemon(_paths(args, config), wait_s=args.wait)
    print(json.dumps(result))
    return 0 if result["stopped"] or result.get("reason") == "not running" else 1


def _status(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    from burnqed.coordination.control import ControlError, describe

    try:
        info = describe(_paths(args, config))
    except ControlError as exc:
        print(f"burnqed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    table = Table(title="burnqed coordinator", show_header=False)
    best = info.get("best_held_out")
    rows = {
        "running": (f"yes: {info['holder']} (pid {info['pid']})" if info.get("holder") else f"yes (pid {info['pid']})")
        if info["running"] else "no",
        "status": info["status"],
        "current session": str(info["session"]),
        "sessions done": str(info["sessions_done"]),
        "last iteration": info.get("last_iteration") or "-",
        "best held-out solve rate": "-" if best is None else f"{100 * best:.1f}% ({info.get('best_held_out_iteration')})",
        "last error": info.get("last_error") or "-",
    }
    for key, value in rows.items():
        table.add_row(key, value)
    Console().print(table)
    return 0


def _logs(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.coordination.log import read_jsonl

    paths = _paths(args, config)
    if args.session is not None:
        records = read_jsonl(paths.turns_file(args.session))
    else:
        records = read_jsonl(paths.sessions_file)
    for record in records[-args.lines :]:
        print(json.dumps(record, ensure_ascii=False, default=str))
    return 0


async def _run(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.coordination.control import ControlError
    from burnqed.coordination.daemon import Daemon

    try:
        return await Daemon(config, _paths(args, config).run_dir).run()
    except ControlError as exc:  # refused: held run directory, damaged state (exit-code scheme: README)
        print(f"burnqed: {exc}", file=sys.stderr)
        return 2


async def _run_once(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.blueprint import BlueprintError
    from burnqed.coordination.control import ControlError, run_lock
    from burnqed.coordination.daemon import Daemon

    paths = _paths(args, config)
    try:
        with run_lock(paths, "burnqed coordinator run-once"):
            daemon = Daemon(config, paths.run_dir)
            record = await daemon.run_session()
    except (ControlError, BlueprintError) as exc:  # refused, as every command's refusals: exit 2
        print(f"burnqed: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(record.model_dump(exclude={"handover"}), indent=2, default=str))
    print(record.handover)
    return 0


def _resume(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.blueprint import BlueprintError, BlueprintStore
    from burnqed.iteration.layout import RunLayout

    run_dir = _paths(args, config).run_dir
    path = RunLayout(run_dir).blueprint
    if not path.is_file():
        print(f"burnqed: no blueprint at {path} (give the run directory with --run-dir)", file=sys.stderr)
        return 2
    store = BlueprintStore(path, config.blueprint)
    try:
        entries = store.list_entries()
        wanted = set(args.label or ())
        unknown = wanted - {e.label for e in entries}
        if unknown:
            print(f"burnqed: {path} has no entry {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        stuck = [
            e for e in entries
            if (e.label in wanted if wanted else e.kind == "iteration" and e.status in {"failed", "exhausted"})
        ]
        if not stuck:
            print(f"{path}: nothing to resume (no failed or exhausted iteration; name targets with --label)")
            return 0
        for entry in stuck:
            new = store.reopen(entry.label, args.extra_attempts, note=args.note)
            print(f"{entry.label}: {entry.status} → {new.status}, attempts {new.meta.get('attempts')}")
    except BlueprintError as exc:
        print(f"burnqed: {exc}", file=sys.stderr)
        return 1
    return 0


async def _demo(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.coordination.demo import run_demo

    from burnqed.coordination.demo import demo_config

    config = demo_config(config, args.mode, list(getattr(args, "overrides", [])))
    return await run_demo(config, Path(args.run_dir), sessions=args.sessions, fresh=args.fresh)


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``coordinator`` and ``demo``."""
    coord = sub.add_parser("coordinator", parents=[parent], help="the autonomous coordinator daemon")
    csub = coord.add_subparsers(dest="coordinator_command", metavar="ACTION", required=True)

    def action(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p = csub.add_parser(name, parents=[parent], help=help_text)
        p.add_argument("--run-dir", help="the run directory (default: paths.run_dir)")
        p.set_defaults(handler=handler, config_overrides=_flags)
        return p

    for name, handler, text in (
        ("start", _start, "start the daemon detached"),
        ("run", _run, "run the daemon in the foreground"),
        ("run-once", _run_once, "one session and its iterations, in the foreground"),
    ):
        p = action(name, handler, text)
        p.add_argument("--brain", choices=["scripted", "anthropic"], help="coordinator.brain")
        p.add_argument("--sessions", type=int, help="coordinator.max_sessions")
        p.add_argument("--model", help="coordinator.model (anthropic brain)")
        p.add_argument("--base-url", help="coordinator.base_url (anthropic brain)")
        p.add_argument("--theorems", metavar="FILE",
                       help="your own statements (no proofs needed): registered as the targets, searched and iterated on")
        p.add_argument("--held-out", metavar="FILE", help="with --theorems: the held-out statements (default: a hash rule)")
    action("stop", _stop, "stop the daemon (SIGTERM)").add_argument("--wait", type=float, default=120.0)
    action("status", _status, "current session, last iteration, best held-out rate").add_argument(
        "--json", action="store_true"
    )
    resume = action("resume", _resume, "reopen failed or exhausted iterations (or --label entries) with more attempts")
    resume.add_argument("--extra-attempts", type=int, default=1, help="attempts added to each budget (default 1)")
    resume.add_argument("--label", action="append", help="an entry to reopen (repeatable; default: stuck iterations)")
    resume.add_argument("--note", help="why (kept in the entries' notes)")
    logs = action("logs", _logs, "session records, or one session's turns")
    logs.add_argument("--session", type=int, help="show this session's turn log")
    logs.add_argument("-n", "--lines", type=int, default=20)

    demo = sub.add_parser("demo", parents=[parent], help="the main job: a few expert iterations on the embedded checker, with baselines")
    demo.add_argument("--run-dir", default=str(DEMO_RUN_DIR))
    demo.add_argument("--sessions", type=int, default=3, help="coordinator sessions (one iteration each)")
    demo.add_argument("--fresh", action="store_true", help="start over instead of resuming the run dir")
    demo.add_argument(
        "--mode", choices=["expert", "reference"], default="expert",
        help="expert (default): expert iteration in the depth world from a small seed, the energy head, the "
             "baselines (about 9-10 minutes on 2 cores; docs/iteration.md); reference: the benchmark with 150 "
             "reference proofs (about 5.5 minutes, no baselines)",
    )
    demo.add_argument(
        "--eval-size", type=int, default=150,
        help="held-out theorems evaluated per iteration (0 = all 300; fewer is faster but noisier)",
    )
    demo.set_defaults(handler=_demo, config_overrides=lambda a: {"iteration.eval_size": a.eval_size})
