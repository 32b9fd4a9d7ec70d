"""Sub-commands of burnqed.lean: ``burnqed lean check``.

``burnqed lean check [--theorems FILE|SET] [--backend B] [--workers N]`` replays every
reference proof of a theorem set through the pool's replay gate (``verify_proof``) and
prints a table and a summary; exit status 1 when any proof is rejected.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig

__all__ = ["register"]


def _load_set(spec: str | None, config: BurnqedConfig) -> list[Any]:
    """Theorems from a JSONL file, or a built-in set by name (default: core)."""
    from burnqed.data.theorems import load_theorems

    if spec is not None and Path(spec).is_file():
        return load_theorems(Path(spec))
    name = spec or "core"
    try:
        from burnqed.data.sets import builtin_sets, load_builtin
    except ImportError:  # the data package without named sets: the shipped core file
        return load_theorems(Path(__file__).resolve().parent.parent / "data" / "core.jsonl")
    if name not in builtin_sets():
        return load_theorems(Path(name))  # raises TheoremSetError naming the missing file
    return load_builtin(name, home=config.paths.home)


async def _check(args: argparse.Namespace, config: BurnqedConfig) -> int:
    import anyio
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from burnqed.data.theorems import TheoremSetError
    from burnqed.lean import LeanError, LeanPool, ProofVerdict

    err = Console(stderr=True)
    try:
        theorems = _load_set(args.theorems, config)
    except TheoremSetError as exc:
        err.print(f"[red]burnqed lean check: {exc}[/red]")
        return 2
    with_proof = [t for t in theorems if t.proof is not None]
    checked = with_proof[: args.limit or None]
    results: dict[str, tuple[ProofVerdict, float]] = {}
    started = time.perf_counter()
    try:
        async with LeanPool(config.lean) as pool:

            # one proof per worker at a time, so each row's time is its own replay, not queueing
            limiter = anyio.CapacityLimiter(config.lean.num_workers)

            async def one(theorem: Any) -> None:
                async with limiter:
                    t0 = time.perf_counter()
                    verdict = await pool.verify_proof(theorem.statement, theorem.proof)
                results[theorem.name] = (verdict, time.perf_counter() - t0)
                progress.advance(task)

            with Progress(console=err, transient=True) as progress:
                task = progress.add_task(f"replaying on {pool.backend}", total=len(checked))
                async with anyio.create_task_group() as tg:
                    for theorem in checked:
                        tg.start_soon(one, theorem)
            status = pool.status()
    except LeanError as exc:
        err.print(f"[red]burnqed lean check: {type(exc).__name__}: {exc}[/red]")
        return 2
    elapsed = time.perf_counter() - started
    passed = sum(1 for v, _ in results.values() if v.ok)
    if args.json:
        rows = [
            {
                "name": t.name,
                "ok": results[t.name][0].ok,
                "reason": results[t.name][0].reason,
                "seconds": round(results[t.name][1], 4),
            }
            for t in checked
        ]
        print(json.dumps({"backend": config.lean.backend, "passed": passed, "total": len(checked), "results": rows}))
        return 0 if passed == len(checked) else 1
    table = Table(title=f"reference proofs replayed through the pool ({config.lean.backend})")
    table.add_column("theorem")
    table.add_column("ok", justify="center")
    table.add_column("steps", justify="right")
    table.add_column("ms", justify="right")
    table.add_column("reason")
    for theorem in checked:
        verdict, seconds = results[theorem.name]
        table.add_row(
            theorem.name,
            "[green]✓[/green]" if verdict.ok else "[red]✗[/red]",
            str(verdict.steps),
            f"{seconds * 1000:.1f}",
            verdict.reason,
        )
    out = Console()
    out.print(table)
    note = " (embedded checker, not real Lean)" if config.lean.backend == "embedded" else ""
    out.print(
        f"{passed}/{len(checked)} reference proofs verified in {elapsed:.2f}s on "
        f"{config.lean.num_workers} {config.lean.backend} worker(s){note}; "
        f"{len(theorems) - len(with_proof)} theorem(s) without a reference proof skipped; "
        f"{status.requests} requests, {status.restarts} worker restarts"
    )
    return 0 if passed == len(checked) else 1


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    lean = sub.add_parser("lean", parents=[parent], help="the Lean worker pool")
    lsub = lean.add_subparsers(dest="lean_command", metavar="COMMAND")
    check = lsub.add_parser(
        "check", parents=[parent], help="replay a theorem set's reference proofs through the pool's replay gate"
    )
    check.add_argument("--theorems", metavar="FILE", help="JSONL theorem set or built-in set name (default: core)")
    check.add_argument("--backend", choices=["embedded", "pantograph", "command"], help="sets lean.backend")
    check.add_argument("--workers", type=int, metavar="N", help="sets lean.num_workers")
    check.add_argument("--limit", type=int, metavar="N", help="check only the first N proofs")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    check.set_defaults(
        handler=_check,
        config_overrides=lambda a: {"lean.backend": a.backend, "lean.num_workers": a.workers},
    )

    def _help(args: argparse.Namespace, config: BurnqedConfig) -> int:
        lean.print_help()
        return 2

    lean.set_defaults(handler=_help)
