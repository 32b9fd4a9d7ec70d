"""``burnqed report RUN [--seeds RUN2 ...] [--chart PATH] [--json]``: held-out results with statistics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from burnqed.cli.compare import add_bootstrap_flags
from burnqed.config import BurnqedConfig

__all__ = ["register"]


def _report(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console

    from burnqed.iteration.errors import ReportError
    from burnqed.iteration.layout import RunLayout
    from burnqed.iteration.report import run_report
    from burnqed.iteration.report_view import render_tables, write_chart

    runs = [args.run, *(args.seeds or [])]
    try:
        report = run_report(runs, resamples=args.resamples, seed=args.bootstrap_seed)
    except ReportError as exc:
        print(f"burnqed report: {exc}", file=sys.stderr)
        return 2
    target = Path(args.chart) if args.chart else RunLayout(args.run).report_chart
    chart: Path | None
    try:
        chart = write_chart(report, target)
    except OSError as exc:
        # a read-only run directory still gets its report: the chart is the only thing lost
        chart = None
        print(f"burnqed report: chart not written: {target}: {exc.strerror or exc} (give --chart PATH elsewhere)",
              file=sys.stderr)
    report = report.model_copy(update={"chart": str(chart) if chart is not None else None})
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    console = Console()
    if not console.is_terminal:
        console = Console(width=220)  # piped: keep each row on one line
    for table in render_tables(report):
        console.print(table)
    if chart is not None:
        console.print(f"chart: {chart}")
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``burnqed report``."""
    p = sub.add_parser(
        "report",
        parents=[parent],
        help="held-out solve rate per iteration of runs, with paired bootstrap intervals and McNemar p-values",
    )
    p.add_argument("run", help="run directory (eval_results/iter_N[_no_ebm].json inside)")
    p.add_argument("--seeds", nargs="+", metavar="RUN", help="more run directories of the same experiment (other seeds)")
    p.add_argument("--chart", metavar="PATH", help="where to write the PNG chart (default: RUN/report.png)")
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    add_bootstrap_flags(p)
    p.set_defaults(handler=_report)
