"""Sub-commands of burnqed.lean: ``burnqed lean check`` and ``burnqed verify-file``.

``burnqed lean check [--theorems FILE|SET] [--backend B] [--workers N]`` replays every
reference proof of a theorem set through the pool's replay gate (``verify_proof``) and
prints a table and a summary; exit status 1 when any proof is rejected.

``burnqed verify-file FILE.lean [--theorems SET [--name N]]`` gives one proof file the final
check (sorry, extra declarations and a changed statement refused on sight; then Lean's
compile and axiom audit, or the embedded kernel's replay); exit status 1 when refused. A
file of several proved theorems under one header (``burnqed iterate --write-proofs``) is
checked theorem by theorem, each as its own file under that header; one refusal refuses it.
Several files (``burnqed verify-file proofs/*.lean``) are checked one after another on one Lean
worker, one verdict line each; the exit status is the worst of them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import AsyncExitStack
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
                    verdict = await pool.verify_proof(theorem.target, theorem.proof)
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


class _SharedPool:
    """One Lean worker for every file of a ``verify-file`` call, started on the first file that
    reaches Lean (a file refused by its text never starts one)."""

    def __init__(self, config: BurnqedConfig, stack: AsyncExitStack) -> None:
        self._config = config
        self._stack = stack
        self._pool: Any = None

    async def get(self) -> Any:
        """The started pool."""
        from burnqed.lean import LeanPool

        if self._pool is None:
            self._pool = await self._stack.enter_async_context(
                LeanPool(self._config.lean.model_copy(update={"num_workers": 1}))
            )
        return self._pool


async def _verify_files(args: argparse.Namespace, config: BurnqedConfig) -> int:
    """``verify-file FILE...``: each file's verdict, one line (or JSON object) each; the worst exit code."""
    from burnqed.lean import LeanError

    files: list[Path] = list(args.file)
    if args.name is not None and len(files) > 1:
        print("burnqed verify-file: --name names the theorem of one file; give one FILE with it", file=sys.stderr)
        return 2
    codes = []
    try:
        async with AsyncExitStack() as stack:
            pool = _SharedPool(config, stack)
            for file in files:
                codes.append(await _verify_file(argparse.Namespace(**{**vars(args), "file": file}), config, pool))
    except LeanError as exc:  # the worker failed to stop cleanly after the verdicts were given
        print(f"burnqed verify-file: Lean failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return max(codes)


async def _verify_file(args: argparse.Namespace, config: BurnqedConfig, pool_of: _SharedPool) -> int:
    from burnqed.data.theorems import TheoremSetError
    from burnqed.lean import LeanError, ProofTarget
    from burnqed.lean.final_check import FileRefused, refuse_file
    from burnqed.lean.statement import StatementError, parse_header, statement_decl

    def report(ok: bool, reason: str, **extra: Any) -> int:
        if args.json:
            print(json.dumps({"file": str(args.file), "ok": ok, "reason": reason, **extra}, ensure_ascii=False))
        else:
            print(f"{args.file}: {'ok' if ok else 'refused'}" + (f": {reason}" if reason else "") + (
                f" (checked by {extra['checked_by']})" if extra.get("checked_by") else ""
            ))  # fmt: skip
        return 0 if ok else 1

    text = getattr(args, "theorem_text", None)
    if text is None:
        try:
            text = args.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"burnqed verify-file: cannot read {args.file}: {exc}", file=sys.stderr)
            return 2
        parts = _theorem_files(text)
        if len(parts) > 1 and args.name is None:
            # a file of several proved theorems (`burnqed iterate --write-proofs`): each one, under the
            # file's header, gets the whole-file check as its own file; any refusal refuses the file
            codes = []
            for name, part in parts:
                one = argparse.Namespace(**{**vars(args), "file": f"{args.file}:{name}", "theorem_text": part})
                codes.append(await _verify_file(one, config, pool_of))
            return max(codes)
    lock_decl, lock_header = None, None
    if args.theorems is not None:
        try:
            theorems = {t.name: t for t in _load_set(args.theorems, config)}
            first = refuse_file(text)  # the file's own theorem names its lock when --name is absent
        except TheoremSetError as exc:
            print(f"burnqed verify-file: {exc}", file=sys.stderr)
            return 2
        except FileRefused as exc:
            return report(False, str(exc), checked_by="text")
        name = args.name or first.decl.name
        if name not in theorems:
            print(f"burnqed verify-file: no theorem {name!r} in {args.theorems} (give --name)", file=sys.stderr)
            return 2
        locked = theorems[name]
        try:
            lock_decl = statement_decl(locked.statement)
            lock_header = parse_header(locked.header)
        except StatementError as exc:
            print(f"burnqed verify-file: the locked statement of {name} is unreadable: {exc}", file=sys.stderr)
            return 2
    try:
        parsed = refuse_file(text, statement=lock_decl, header=lock_header)
    except FileRefused as exc:
        return report(False, str(exc), checked_by="text")
    try:
        pool = await pool_of.get()
        target = ProofTarget.of(parsed.decl.render(), parsed.header.render() or None)
        verdict = await pool.verify_proof(target, list(parsed.tactics), file_text=text)
    except LeanError as exc:
        print(f"burnqed verify-file: Lean failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return report(verdict.ok, verdict.reason, checked_by=verdict.checked_by, axioms=verdict.axioms)


def _pantograph_release(args: argparse.Namespace, config: BurnqedConfig) -> int:
    """Print ``TAG COMMIT LEAN`` of the Pantograph release for the project's lean-toolchain (what
    scripts/build_pantograph.sh PROJECT builds), or exit 2 saying that none is built for it."""
    from burnqed.lean.place import PANTOGRAPH_RELEASES, find_project, project_toolchain, release_for_lean

    project = find_project(args.project)
    lean = project_toolchain(project) if project is not None else None
    if project is None or lean is None:
        print(f"burnqed lean pantograph-release: no lean-toolchain in {args.project} or above", file=sys.stderr)
        return 2
    match = release_for_lean(lean)
    if match is None:
        known = ", ".join(f"{r.tag} for {r.lean}" for r in PANTOGRAPH_RELEASES)
        print(f"burnqed lean pantograph-release: no Pantograph release is built for {lean} (the project {project}); "
              f"releases: {known}", file=sys.stderr)  # fmt: skip
        return 2
    print(f"{match.tag} {match.commit} {match.lean}")
    return 0


def _theorem_files(text: str) -> list[tuple[str, str]]:
    """A file's theorems, each as a one-theorem file under the file's header (one entry when it holds one,
    or when it cannot be split: the check then refuses it as it is)."""
    from burnqed.data.statements import read_lean_theorems
    from burnqed.data.theorems import TheoremSetError
    from burnqed.lean.statement import StatementError

    skipped: list[tuple[int, str]] = []
    try:
        theorems = read_lean_theorems(text, skipped=skipped)
    except (TheoremSetError, StatementError):  # a lexer refusal too: the whole-file check refuses it as it is
        return [("", text)]
    if len(theorems) < 2 or skipped or not all(t.proof for t in theorems):
        return [("", text)]
    return [(t.name, t.lean_file(list(t.proof or []))) for t in theorems]


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

    release = lsub.add_parser(
        "pantograph-release", parents=[parent],
        help="the Pantograph release built for a project's Lean (TAG COMMIT LEAN), or why there is none",
    )  # fmt: skip
    release.add_argument("project", nargs="?", type=Path, default=Path("."), help="a Lean project (default: here)")
    release.set_defaults(handler=_pantograph_release)

    def _help(args: argparse.Namespace, config: BurnqedConfig) -> int:
        lean.print_help()
        return 2

    lean.set_defaults(handler=_help)

    vf = sub.add_parser(
        "verify-file", parents=[parent], help="the whole-file final check of proof files (FILE.lean ...), one worker for all"
    )
    vf.add_argument("file", type=Path, nargs="+", metavar="FILE.lean", help="one or more proof files")
    vf.add_argument("--theorems", metavar="SET", help="theorem set holding the locked statement (JSONL or built-in)")
    vf.add_argument("--name", help="the theorem's name in --theorems (default: the file's theorem name)")
    vf.add_argument("--backend", choices=["embedded", "pantograph", "command"], help="sets lean.backend")
    vf.add_argument("--json", action="store_true", help="print one JSON object")
    vf.set_defaults(handler=_verify_files, config_overrides=lambda a: {"lean.backend": a.backend})
