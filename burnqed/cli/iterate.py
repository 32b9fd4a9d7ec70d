"""Sub-commands of burnqed.iteration: ``burnqed iterate --run-dir R --iterations N``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from burnqed.config import BurnqedConfig
from burnqed.interrupt import INTERRUPTED_EXIT, cancel_on_signal

__all__ = ["register"]


async def _iterate(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Table

    from burnqed.blueprint import BlueprintError
    from burnqed.iteration.errors import IterationError
    from burnqed.iteration.runner import IterationRunner
    from burnqed.lean.pool import LeanPool

    run_dir = Path(args.run_dir) if args.run_dir else config.paths.run_dir
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    reports = []
    try:
        async with cancel_on_signal() as interrupt, LeanPool(config.lean) as pool:
            with Progress(*columns, console=console, transient=False, disable=args.quiet) as progress:
                runner = IterationRunner(config, run_dir, pool, progress=progress)
                reports = await (runner.run_pending() if args.pending else runner.run(args.iterations))
    except (IterationError, BlueprintError) as exc:
        print(f"burnqed iterate: {exc}", file=sys.stderr)
        return 1
    if interrupt.signal is not None:
        # the runner marked the entry partial and the writers flushed: a rerun resumes
        name = signal.Signals(interrupt.signal).name
        print(f"burnqed iterate: stopped by {name}; finished work is kept, run the same command to resume",
              file=sys.stderr)
        return INTERRUPTED_EXIT
    if args.json:
        print(json.dumps([{"iteration": r.index, **r.results()} for r in reports], indent=2))
        return 0
    table = Table(title=f"expert iteration in {run_dir} (held-out solve rate)")
    for column in ("iteration", "with EBM", "without EBM", "train proved", "SFT pairs", "steps run"):
        table.add_column(column)
    for r in reports:
        res = r.results()
        table.add_row(
            str(r.index),
            _pct(res["solve_rate"]),
            _pct(res["solve_rate_no_ebm"]),
            f"{res['train_proved']}/{res['train_total']}",
            str(res["sft_pairs"]),
            ", ".join(r.executed) or "-",
        )
    Console().print(table)
    return 0


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``burnqed iterate``."""
    p = sub.add_parser(
        "iterate",
        parents=[parent],
        help="run expert iterations (fine-tune, energy head, search, held-out eval); resumable",
    )
    p.add_argument("--run-dir", help="run directory (default: paths.run_dir)")
    p.add_argument("--iterations", type=int, help="run iterations 0 … N-1 (default: iteration.iterations)")
    p.add_argument("--pending", action="store_true", help="run the pending iteration entries of the run's BLUEPRINT.md")
    p.add_argument("--train-size", type=int, help="training theorems searched per iteration")
    p.add_argument("--eval-size", type=int, help="held-out theorems evaluated (0 = all 300)")
    p.add_argument("--max-nodes", type=int, help="node budget per theorem")
    p.add_argument("--json", action="store_true", help="print the per-iteration results as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(
        handler=_iterate,
        config_overrides=lambda a: {
            "iteration.iterations": a.iterations,
            "iteration.train_size": a.train_size,
            "iteration.eval_size": a.eval_size,
            "iteration.max_nodes": a.max_nodes,
        },
    )
