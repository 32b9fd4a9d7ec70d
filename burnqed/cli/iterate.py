"""Sub-commands of burnqed.iteration: ``burnqed iterate --run-dir R --iterations N``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burnqed.config import BurnqedConfig
from burnqed.interrupt import INTERRUPTED_EXIT, cancel_on_signal

if TYPE_CHECKING:
    from burnqed.iteration.runner import IterationReport

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
    from burnqed.data.theorems import TheoremSetError
    from burnqed.iteration.errors import IterationError
    from burnqed.iteration.layout import RunLayout
    from burnqed.iteration.runner import IterationRunner
    from burnqed.lean.pool import LeanPool
    from burnqed.writelock import LockHeld

    run_dir = Path(args.run_dir) if args.run_dir else config.paths.run_dir
    console = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    reports = []
    baselines: dict[str, Any] = {}
    written = None
    try:
        # the signal handlers first, then the run dir's one-writer lock (a daemon, a run-once or
        # another iterate there refuses this one): a SIGTERM from here on stops the run cleanly
        async with cancel_on_signal() as interrupt:
            with RunLayout(run_dir).hold("burnqed iterate"):
                async with LeanPool(config.lean) as pool:
                    with Progress(*columns, console=console, transient=False, disable=args.quiet) as progress:
                        runner = IterationRunner(config, run_dir, pool, progress=progress)
                        reports = await (runner.run_pending() if args.pending else runner.run(args.iterations))
                        if config.iteration.baselines and interrupt.signal is None:
                            from burnqed.iteration.baselines import run_baselines

                            # runner.config: with --theorems, the sets carved from the user's file
                            baselines = await run_baselines(
                                runner.config, run_dir, pool, names=tuple(config.iteration.baselines), progress=progress
                            )
                        if config.iteration.head_controls and interrupt.signal is None:
                            from burnqed.iteration.controls import run_controls

                            # the head's non-learned controls on the last iteration's held-out set
                            await run_controls(runner.config, run_dir, pool, progress=progress)
                        if args.write_proofs is not None and interrupt.signal is None:
                            from burnqed.iteration.targets import write_found_proofs

                            written = await write_found_proofs(run_dir, Path(args.write_proofs), pool)
    except (IterationError, BlueprintError, LockHeld, TheoremSetError) as exc:
        print(f"burnqed iterate: {exc}", file=sys.stderr)
        return 1
    if interrupt.signal is not None:
        # the runner marked the entry partial and the writers flushed: a rerun resumes
        name = signal.Signals(interrupt.signal).name
        print(f"burnqed iterate: stopped by {name}; finished work is kept, run the same command to resume",
              file=sys.stderr)
        return INTERRUPTED_EXIT
    if written is not None:
        print(f"{len(written.proved)} proof(s) written to {written.path} (each passed the whole-file check)"
              + (f"; refused: {', '.join(sorted(written.refused))}" if written.refused else ""), file=sys.stderr)
    if args.json:
        print(json.dumps([{"iteration": r.index, **r.results(), **_curriculum_fields(r)} for r in reports], indent=2))
        return 0
    curriculum = any(r.steps.search is not None and r.steps.search.band is not None for r in reports)
    table = Table(title=f"expert iteration in {run_dir} (held-out solve rate)")
    columns = ["iteration", "with EBM", "without EBM", "train proved", "SFT pairs"]
    if curriculum:
        columns += ["train set", "band untried/sometimes/failing/always/never", "new pairs"]
    for column in (*columns, "steps run"):
        table.add_column(column)
    for r in reports:
        res = r.results()
        row = [
            str(r.index),
            _pct(res["solve_rate"]),
            _pct(res["solve_rate_no_ebm"]),
            f"{res['train_proved']}/{res['train_total']}",
            str(res["sft_pairs"]),
        ]
        if curriculum:
            extra = _curriculum_fields(r)
            band = extra.get("band") or {}
            row += [
                str(extra.get("train_set") or "-"),
                "/".join(str(band.get(b, "-")) for b in ("untried", "sometimes", "failing", "always", "never")),
                str(extra.get("new_pairs") if extra.get("new_pairs") is not None else "-"),
            ]
        table.add_row(*row, ", ".join(r.executed) or "-")
    Console().print(table)
    for r in reports:
        if r.steps.search is not None and r.steps.search.invalid_statements:
            Console().print(f"iteration {r.index}: the backend cannot elaborate (skipped): "
                            f"{', '.join(r.steps.search.invalid_statements)}")
    for name, summary in baselines.items():
        Console().print(f"baseline {name}: {_pct(summary.solve_rate)} held-out ({summary.report}); "
                        f"`burnqed report {run_dir}` pairs the last iteration with it")
    return 0


def _curriculum_fields(report: IterationReport) -> dict[str, object]:
    """The training set searched and, with the curriculum, its band counts and new pairs."""
    search = report.steps.search
    if search is None:
        return {}
    fields: dict[str, object] = {"train_set": search.train_set, "invalid_statements": search.invalid_statements}
    if search.band is not None:
        fields |= {"frontier": search.frontier, "band": search.band, "picked": search.picked, "new_pairs": search.new_pairs}
    return fields


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
    p.add_argument(
        "--cluster", action="store_true",
        help="search and evaluate on Ray Lean actors (iteration.cluster; [cluster], extra 'cluster')",
    )  # fmt: skip
    p.add_argument(
        "--baselines", action="store_true",
        help="then evaluate the baselines (rule policy alone; a policy fine-tuned on every reference proof, at the "
        "held-out budget and at the iterations' total budget; the supervised bound trained at every depth)",
    )  # fmt: skip
    p.add_argument(
        "--theorems", metavar="FILE",
        help="your own statements (.lean ending in sorry/by, miniF2F-style or plain JSONL), no proofs needed: "
        "iteration 0 searches with the base model, later ones train on the proofs found (iteration.theorems)",
    )  # fmt: skip
    p.add_argument("--held-out", metavar="FILE", help="with --theorems: the held-out statements (default: a hash rule)")
    p.add_argument(
        "--write-proofs", metavar="OUT.lean",
        help="write the proofs found (each checked) as one Lean file, header and names as in --theorems",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the per-iteration results as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(
        handler=_iterate,
        config_overrides=lambda a: {
            "iteration.iterations": a.iterations,
            "iteration.train_size": a.train_size,
            "iteration.eval_size": a.eval_size,
            "iteration.max_nodes": a.max_nodes,
            "iteration.cluster": True if a.cluster else None,
            "iteration.baselines": ["rules", "reference", "reference_matched", "supervised"] if a.baselines else None,
            # absolute: the run records where its statements came from
            "iteration.theorems": str(Path(a.theorems).resolve()) if a.theorems else None,
            "iteration.held_out": str(Path(a.held_out).resolve()) if a.held_out else None,
        },
    )
