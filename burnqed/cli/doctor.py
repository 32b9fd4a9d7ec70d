"""``burnqed doctor``: the real set-up as a table, a fix per row, exit 1 on a blocker."""

from __future__ import annotations

import argparse
import json
import sys

from burnqed.config import BurnqedConfig

__all__ = ["register"]


async def _doctor(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.doctor import run_doctor

    report = await run_doctor(config.lean, config.policy, cluster=config.cluster if args.cluster else None)
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), indent=2))
        return 1 if report.blocked else 0
    width = max(len(r.check) for r in report.rows)
    for row in report.rows:
        print(f"{row.check:<{width}}  {row.status.value:<7}  {row.found}")
        if row.fix and row.status.value in ("warn", "blocker"):
            print(f"{'':<{width}}  {'':<7}  fix: {row.fix}")
    print(f"\nnext step: {report.next_step}")
    if report.blocked:
        print("burnqed doctor: a blocker stops the configured run (see above)", file=sys.stderr)
    return 1 if report.blocked else 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add ``doctor`` to the burnqed parser."""
    doctor = sub.add_parser(
        "doctor",
        parents=[parent],
        help="check the real set-up (Lean, project, Mathlib, model, torch, server, Ray): a table with a fix per row",
        description="Check what a real run needs, here and as configured: the Pantograph repl and its Lean, the "
        "project's lean-toolchain and Mathlib build, LEAN_PATH, the policy model directory, torch and CUDA, the "
        "policy server, and Ray with --cluster. Exits 1 when a row blocks the configured run.",
    )
    doctor.add_argument("--cluster", action="store_true", help="check Ray and cluster.address too")
    doctor.add_argument("--json", action="store_true", help="the report as JSON")
    doctor.set_defaults(handler=_doctor)
