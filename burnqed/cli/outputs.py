"""What the search commands write, guarded: argument counts, output checks before any work,
resume matching by statement, a finished evaluation kept on --resume, a full disk named, and the proof files (beside ``search`` / ``eval`` outputs)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from burnqed.data.theorems import Theorem

if TYPE_CHECKING:
    from burnqed.search.results import SearchResult

__all__ = ["check_output", "count", "disk_error", "finished_report", "guard_output", "resume_conflicts", "write_proofs"]


def count(text: str) -> int:
    """A non-negative integer argument (``--limit -1`` would silently drop the last theorem)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def check_output(path: Path) -> None:
    """Refuse an output that is a directory, or whose directory cannot be written, before any work."""
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, not an output file", str(path))
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(13, "cannot write the output here", str(folder))


def resume_conflicts(output: Path, theorems: list[Theorem]) -> tuple[set[str], list[str]]:
    """The theorems ``output`` already holds with the same statement, and the names it holds
    with another statement (a resume matches by statement hash, never by name alone)."""
    from burnqed.trajectory.writer import written_statements

    held = written_statements(output)
    done = {t.name for t in theorems if t.sha in held.get(t.name, set())}
    changed = sorted(t.name for t in theorems if t.name in held and t.sha not in held[t.name])
    return done, changed


def write_proofs(output: Path, results: list[SearchResult], resumed: list[Theorem] | None = None) -> None:
    """One checked Lean file per proved theorem, beside the run's output; with ``resumed``,
    also the proofs an interrupted run found (read back from its trajectory rows)."""
    from burnqed.search.proof_files import proofs_dir, write_proof_file, write_proof_files
    from burnqed.trajectory.reader import proofs_in

    written = write_proof_files(proofs_dir(output), results)
    if resumed:
        found = proofs_in(output)
        written += [write_proof_file(proofs_dir(output), t, found[t.name]) for t in resumed if t.name in found]
    if written:
        print(f"{len(written)} proof file(s) in {proofs_dir(output)}")


@contextmanager
def guard_output(paths: list[Path], role: str) -> Iterator[None]:
    """Be the one writer of ``paths`` for the block: each output's own lock (``OUT.lock``) and,
    for an output inside a run directory, the run's lock too (a daemon or iterate there
    refuses the command, and the command refuses them while it runs). A file the run's
    iterations own (trajectories/, eval_results/, checkpoints/, …) is refused outright:
    rows written there by another command would become an iteration's results."""
    from burnqed.coordination.control import COORDINATOR_DIR
    from burnqed.iteration.layout import RunOutputError, enclosing_run
    from burnqed.writelock import hold, lock_file_for

    with ExitStack() as stack:
        runs = {}
        for path in paths:
            run = enclosing_run(path, (COORDINATOR_DIR,))
            if run is None:
                continue
            if run.owned_by_iterations(path):
                raise RunOutputError(f"{path} belongs to the iterations of run directory {run.root} (written only by "
                                     "burnqed iterate and the coordinator); give an output outside it")
            runs[str(run.root.resolve())] = run
        for run in runs.values():
            stack.enter_context(run.hold(role))
        for path in paths:
            stack.enter_context(hold(lock_file_for(path), role, what=str(path), reentrant=True))
        yield


def disk_error(exc: BaseException) -> OSError | None:
    """A full disk, a quota or a read-only filesystem in ``exc`` (or its exception group)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = disk_error(inner)
            if found is not None:
                return found
    return None


def finished_report(report_path: Path, theorems: list[Theorem]) -> int:
    """``eval --resume`` of a finished evaluation (its report written, its store gone): the
    report stands untouched. 0 when it covers every statement given; else a refusal (2)."""
    from pydantic import ValidationError

    from burnqed.search.evaluation import EvalReport

    try:
        report = EvalReport.model_validate_json(report_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValidationError):
        print(f"burnqed: {report_path} is not a readable evaluation report and nothing is left to resume; "
              "--force searches every statement again into it", file=sys.stderr)
        return 2
    covered = {(o.name, o.statement_sha) for o in report.outcomes}
    missing = [t.name for t in theorems if (t.name, t.sha) not in covered]
    if missing:
        print(f"burnqed: {report_path} is a finished evaluation of {report.total} statement(s); "
              f"{len(missing)} of the statements given are not in it (first: {missing[0]}); it is left as it is: "
              "write to another --output, or --force to search them all again", file=sys.stderr)
        return 2
    print(f"{report.label}: solved {report.solved}/{report.total} ({report.solve_rate:.1%}) on {report.backend}; "
          f"finished already, nothing to resume; report {report_path} unchanged")
    return 0
