"""Sub-commands of burnqed.trajectory: ``burnqed trajectories summary OUT.parquet``."""

from __future__ import annotations

import argparse
import sys

from burnqed.config import BurnqedConfig

__all__ = ["register"]


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    traj = sub.add_parser("trajectories", help="inspect trajectory Parquet files")
    traj_sub = traj.add_subparsers(dest="trajectories_command", metavar="ACTION", required=True)
    summary = traj_sub.add_parser(
        "summary", parents=[parent], help="theorems, proved, states, label counts, depth histogram"
    )
    summary.add_argument("path", metavar="OUT.parquet")
    summary.add_argument("--json", action="store_true", help="print the summary as JSON")
    summary.set_defaults(handler=_summary)


def _summary(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    from burnqed.trajectory.reader import TrajectoryReadError
    from burnqed.trajectory.summary import summarize

    try:
        result = summarize(args.path)
    except TrajectoryReadError as exc:
        print(f"burnqed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(result.model_dump_json(indent=2))
        return 0
    console = Console()
    table = Table(title=f"trajectories: {args.path}", show_header=False)
    table.add_row("theorems", str(result.theorems))
    table.add_row("proved", str(result.proved))
    table.add_row("states", str(result.states))
    table.add_row("labels", f"positive {result.positives} / negative {result.negatives}")
    table.add_row("backends", ", ".join(result.backends))
    table.add_row("iterations", ", ".join(str(i) for i in result.iterations))
    console.print(table)
    hist = Table(title="states per depth")
    hist.add_column("depth", justify="right")
    hist.add_column("states", justify="right")
    hist.add_column("")
    top = max(result.depth_histogram.values(), default=1)
    for depth, count in result.depth_histogram.items():
        hist.add_row(str(depth), str(count), "█" * max(1, round(30 * count / top)))
    console.print(hist)
    return 0
