"""Sub-command ``burnqed audit``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from burnqed.config import BurnqedConfig

__all__ = ["register"]


async def _audit(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    from burnqed.audit.audit import run_audit

    run_dir = Path(args.run_dir or config.paths.run_dir)
    if not run_dir.is_dir():
        print(f"burnqed: no run directory at {run_dir} (give --run-dir of a run to audit)", file=sys.stderr)
        return 2
    report = await run_audit(config.audit(), run_dir, replay=args.replay)
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0 if report.ok else 1
    console = Console()
    console.print(f"[bold]audit of {run_dir}[/]: " + ", ".join(f"{k} {v}" for k, v in report.checked.items()))
    if report.violations:
        table = Table(title=f"{len(report.violations)} violation(s)", show_lines=False)
        for column in ("kind", "theorem", "where", "message"):
            table.add_column(column)
        for v in report.violations:
            table.add_row(v.kind, v.theorem or "-", v.where, v.message)
        console.print(table)
    else:
        console.print("[green]no violations[/]")
    for warning in report.warnings:
        console.print(f"[yellow]warning[/]: {warning}")
    if report.tool_usage:
        usage = Table(title=f"tool usage ({report.tool_usage['log']})")
        for column in ("server", "tool", "calls", "errors", "p50 ms", "max ms"):
            usage.add_column(column)
        for row in report.tool_usage["tools"]:
            usage.add_row(row["server"], row["tool"], str(row["calls"]), str(row["errors"]),
                          f"{row['p50_ms']:.1f}", f"{row['max_ms']:.1f}")
        console.print(usage)
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``audit``."""
    p = sub.add_parser("audit", parents=[parent], help="check a run against its locked statements; non-zero on violations")
    p.add_argument("--run-dir", help="the run directory (default: paths.run_dir)")
    p.add_argument("--replay", action="store_true", help="replay every claimed proof through the Lean backend")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=_audit)
