"""Sub-commands of burnqed.blueprint: ``burnqed blueprint show|validate [PATH]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from burnqed.config import BurnqedConfig

if TYPE_CHECKING:
    from burnqed.blueprint.model import Entry

__all__ = ["register"]


def _path(args: argparse.Namespace, config: BurnqedConfig) -> Path:
    return Path(args.path) if args.path else config.blueprint.path


def _show(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    from burnqed.blueprint import BlueprintError, BlueprintStore

    path = _path(args, config)
    try:
        entries = BlueprintStore(path, config.blueprint).list_entries(kind=args.kind, status=args.status)
    except BlueprintError as exc:
        print(f"burnqed blueprint: {exc}")
        return 1
    table = Table(title=str(path))
    for column in ("kind", "label", "status", "attempts", "uses", "plan / results"):
        table.add_column(column)
    for e in entries:
        table.add_row(e.kind, e.label, e.status, e.meta.get("attempts", ""), ", ".join(e.uses), _brief(e))
    Console().print(table)
    return 0


def _brief(entry: Entry) -> str:
    """``key=value`` of the results (else the plan), floats to 3 places, at most 120 characters."""
    fields = entry.results or entry.plan
    parts = [f"{k}={round(v, 3) if isinstance(v, float) else v}" for k, v in fields.items()]
    text = " ".join(parts)
    return text if len(text) <= 120 else text[:119] + "…"


def _validate(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.blueprint import BlueprintError, BlueprintStore

    path = _path(args, config)
    if not path.is_file():
        print(f"burnqed: no blueprint at {path} (give the path of a BLUEPRINT.md)", file=sys.stderr)
        return 2
    store = BlueprintStore(path, config.blueprint)
    try:
        issues = store.validate()
        violations = store.audit_locks()
    except BlueprintError as exc:
        print(f"{path}: {exc}")
        return 1
    for issue in issues:
        print(f"{path}: {issue}")
    for violation in violations:
        print(f"{path}: lock: {violation.label}: {violation.message}")
    if not issues and not violations:
        print(f"{path}: ok ({len(store.read())} entries)")
    return 1 if issues or violations else 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``blueprint show`` and ``blueprint validate``."""
    bp = sub.add_parser("blueprint", parents=[parent], help="inspect BLUEPRINT.md status files")
    bsub = bp.add_subparsers(dest="blueprint_command", metavar="ACTION", required=True)
    show = bsub.add_parser("show", parents=[parent], help="list entries with status and attempts")
    show.add_argument("path", nargs="?", help="blueprint file (default: blueprint.path)")
    show.add_argument("--kind", choices=["theorem", "lemma", "theorem_set", "iteration"])
    show.add_argument("--status", choices=["todo", "running", "partial", "done", "failed", "exhausted"])
    show.set_defaults(handler=_show)
    val = bsub.add_parser("validate", parents=[parent], help="check statuses, uses, cycles, budgets and locks")
    val.add_argument("path", nargs="?", help="blueprint file (default: blueprint.path)")
    val.set_defaults(handler=_validate)
