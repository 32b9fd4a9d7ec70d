"""The whole-file final check: a proof counts once the complete Lean file it makes is checked.

Every published prover checks last what a reader would check: the file with the header,
the theorem as stated and the tactic block, compiled by Lean, with its axioms audited.
This module does the file's side:

- ``refuse_file`` reads a file as text and refuses what no checker should be asked about:
  ``sorry`` / ``admit``, a second declaration or an ``axiom`` (parse_file allows one theorem
  only), a header with anything but imports and scope commands, and a statement that differs
  from the one expected (the lock).
- ``compile_file`` runs ``lean`` on the file in a subprocess with time and memory limits and
  ``#print axioms`` appended; the proof counts only with no error and no axiom beyond
  propext, Classical.choice and Quot.sound (sorryAx, ofReduceBool and any user axiom are
  refused), as lean-lsp-mcp's ``lean_verify`` audits them.

On the embedded backend the kernel plays Lean's part: the pool's replay gate runs the
tactics through the checker, whose independent kernel re-checks the proof term, and then
``process_file`` hands the whole file text to the checker's ``frontend.process``, which
elaborates it as Lean would (header, theorem, tactic block as indented) with every step
kernel-checked: the file must come out without an error or a ``sorry`` warning.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import anyio
from pydantic import BaseModel, ConfigDict, Field

from burnqed.env import environment
from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import LeanError
from burnqed.lean.limits import limited_argv
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult
from burnqed.lean.results import ProofVerdict
from burnqed.lean.statement import (
    SNIPPET_NAME,
    LeanFile,
    LeanHeader,
    StatementError,
    TheoremDecl,
    assemble_file,
    has_sorry,
    parse_file,
    parse_header,
    statement_decl,
)

__all__ = [
    "ALLOWED_AXIOMS",
    "FileRefused",
    "FileVerdict",
    "LOCK_WITNESS",
    "check_replayed",
    "compile_file",
    "final_check_argv",
    "lock_witness",
    "process_file",
    "refuse_file",
]

log = logging.getLogger(__name__)

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
"""Lean's standard axioms: a proof may depend on these and on nothing else."""

_AXIOMS = re.compile(r"'([^']+)' depends on axioms: \[([^\]]*)\]")
_NO_AXIOMS = re.compile(r"'([^']+)' does not depend on any axioms")
_ERROR = re.compile(r"(^|:\d+:\d+: )error\b", re.MULTILINE)


class FileRefused(StatementError):
    """A proof file refused on sight: sorry, extra declarations, a changed statement."""


class FileVerdict(BaseModel):
    """The final check's verdict on one file."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    reason: str = Field(default="", description="why not; empty when ok")
    checked_by: str = Field(description="lean (compiled) or kernel (embedded replay) or text (refused on sight)")
    axioms: list[str] | None = Field(default=None, description="axioms the theorem depends on, when compiled")
    elapsed_s: float = 0.0


def refuse_file(
    text: str, *, statement: TheoremDecl | None = None, header: LeanHeader | None = None
) -> LeanFile:
    """The file's header, theorem and tactics, or FileRefused; ``statement``/``header`` are the lock."""
    try:
        if has_sorry(text):  # read by the one lexer (burnqed.lean.lexical): uncertain text is refused
            raise FileRefused("the file uses sorry (or admit)")
        parsed = parse_file(text)
    except FileRefused:
        raise
    except StatementError as exc:
        raise FileRefused(str(exc)) from exc
    if statement is not None and parsed.decl.normalized() != statement.normalized():
        raise FileRefused(
            f"the statement changed: the file proves `{parsed.decl.normalized()[:200]}`, "
            f"the lock says `{statement.normalized()[:200]}`"
        )
    if header is not None and (set(parsed.header.imports), parsed.header.commands) != (
        set(header.imports),
        header.commands,
    ):
        raise FileRefused(
            f"the header changed: the file has `{parsed.header.render()[:200]}`, the lock says `{header.render()[:200]}`"
        )
    return parsed


def final_check_argv(config: LeanConfig) -> list[str] | None:
    """The compiler command for the final check, or None where the kernel replay is the check (embedded)."""
    if config.final_check_command:
        return list(config.final_check_command)
    if config.backend == "pantograph":
        return ["lean"]
    return None


def _environment(config: LeanConfig) -> dict[str, str]:
    env = environment()
    if config.lean_path:
        entries = [str(p) for p in config.lean_path]
        if env.get("LEAN_PATH"):
            entries.append(env["LEAN_PATH"])
        env["LEAN_PATH"] = os.pathsep.join(entries)
    return env


def _axioms(output: str, name: str) -> list[str] | None:
    for match in _AXIOMS.finditer(output):
        if match.group(1).split(".")[-1] == name.split(".")[-1]:
            return [a.strip() for a in match.group(2).split(",") if a.strip()]
    for match in _NO_AXIOMS.finditer(output):
        if match.group(1).split(".")[-1] == name.split(".")[-1]:
            return []
    return None


LOCK_WITNESS = "burnqed_lock_witness"
"""The theorem appended to a compiled file: the locked statement, proved by the file's theorem."""


def lock_witness(lock: TheoremDecl, name: str) -> str:
    """Lean text that compiles only if ``name`` (as Lean elaborated it) proves the locked statement.

    ``theorem burnqed_lock_witness : ∀ binders, type := @name``: Lean elaborates the lock
    itself and checks the file's theorem against it, so what counts is Lean's reading of the
    file, not ours; its axioms are the theorem's.
    """
    statement = f"∀ {lock.binders}, {lock.type}" if lock.binders else lock.type
    return f"theorem {LOCK_WITNESS} : {statement} :=\n  @{name}"


async def compile_file(
    text: str, parsed: LeanFile, config: LeanConfig, argv: list[str], *, lock: TheoremDecl | None = None
) -> FileVerdict:
    """Compile ``text`` with ``argv`` (``lean``) plus ``#print axioms``; ok with no error and standard axioms only.

    With ``lock``, the file is followed by ``lock_witness`` and the axioms audited are the
    witness's: the file as given must prove the locked statement as Lean reads both.
    """
    name = parsed.decl.name
    if name is None:
        return FileVerdict(ok=False, reason="the axiom check needs a named theorem, not an example", checked_by="text")
    program = shutil.which(argv[0]) if os.path.sep not in argv[0] else argv[0]
    if program is None or not os.access(program, os.X_OK):
        return FileVerdict(
            ok=False, checked_by="lean",
            reason=f"final check: `{argv[0]}` not found (set lean.final_check_command, e.g. ['lake', 'env', 'lean'])",
        )  # fmt: skip
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="burnqed-final-") as tmp:
        path = Path(tmp) / "Check.lean"
        audited = name
        tail = ""
        if lock is not None:
            audited, tail = LOCK_WITNESS, f"{lock_witness(lock, name)}\n\n"
        # a newline first: a file that ends inside a line comment must not swallow what follows
        path.write_text(f"{text.rstrip()}\n\n{tail}#print axioms {audited}\n", encoding="utf-8")
        command = limited_argv(
            [program, *argv[1:], str(path)], memory_limit_mb=config.final_check_memory_mb, cpu_limit_s=None
        )
        try:
            with anyio.fail_after(config.final_check_timeout_s):
                done = await anyio.run_process(
                    command, check=False, env=_environment(config), cwd=config.project_dir or None
                )
        except TimeoutError:
            return FileVerdict(
                ok=False, checked_by="lean", elapsed_s=time.monotonic() - start,
                reason=f"final check: lean ran past {config.final_check_timeout_s}s",
            )  # fmt: skip
    output = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
    elapsed = time.monotonic() - start
    if done.returncode != 0 or _ERROR.search(output):
        first = next((line for line in output.splitlines() if "error" in line), output.strip()[:300])
        return FileVerdict(
            ok=False, checked_by="lean", elapsed_s=elapsed,
            reason=f"final check: lean exited {done.returncode}: {first[:500]}",
        )  # fmt: skip
    axioms = _axioms(output, LOCK_WITNESS if lock is not None else name)
    if axioms is None:
        return FileVerdict(
            ok=False, checked_by="lean", elapsed_s=elapsed, reason="final check: no `#print axioms` answer from lean"
        )
    extra = sorted(set(axioms) - ALLOWED_AXIOMS)
    if extra:
        return FileVerdict(
            ok=False, checked_by="lean", axioms=axioms, elapsed_s=elapsed,
            reason=f"final check: the proof depends on {', '.join(extra)} (allowed: {', '.join(sorted(ALLOWED_AXIOMS))})",
        )  # fmt: skip
    return FileVerdict(ok=True, checked_by="lean", axioms=axioms, elapsed_s=elapsed)


class _Worker(Protocol):
    async def request(self, request: FrontendProcess, *, timeout: float | None = None) -> Any: ...


async def process_file(worker: _Worker, text: str) -> FileVerdict:
    """The whole file through the embedded checker's frontend.process: ok when no unit has an error or a sorry."""
    start = time.monotonic()
    try:
        result: FrontendProcessResult = await worker.request(FrontendProcess(file=text, read_header=True))
    except LeanError as exc:
        return FileVerdict(ok=False, checked_by="kernel", reason=f"final check: the file could not be processed: {exc}")
    elapsed = time.monotonic() - start
    for unit in result.units:
        for message in unit.messages:
            if message.severity == "error" or "sorry" in message.data:
                return FileVerdict(
                    ok=False, checked_by="kernel", elapsed_s=elapsed,
                    reason=f"final check: {message.severity}: {message.data[:500]}",
                )  # fmt: skip
    return FileVerdict(ok=True, checked_by="kernel", elapsed_s=elapsed)


class WorkerLender(Protocol):
    """What the embedded final check needs of a pool: its config and backend, a worker to borrow."""

    config: LeanConfig

    @property
    def backend(self) -> str:
        """``embedded``, ``pantograph`` or ``command``."""
        ...

    async def _acquire(self, scope: str | None = None) -> Any:
        """A free worker."""
        ...

    def _release(self, worker: Any) -> None:
        """Give it back."""
        ...


async def check_replayed(
    pool: WorkerLender,
    statement: str,
    tactics: Sequence[str],
    header: str | None,
    steps: int,
    *,
    file_text: str | None = None,
) -> ProofVerdict:
    """The whole file a replayed proof makes: refused on sight, else compiled (pantograph) or kernel-checked.

    With ``file_text`` (verify-file) Lean compiles that file as given, followed by the lock
    witness, so the verdict is on the file a person keeps, as Lean reads it.
    """
    parsed_header = parse_header(header) if header else LeanHeader()
    decl = statement_decl(statement)
    text = file_text if file_text is not None else assemble_file(parsed_header, decl, tactics)
    try:
        parsed = refuse_file(text, statement=decl, header=parsed_header)
    except FileRefused as exc:
        return ProofVerdict(ok=False, reason=f"final check: {exc}", steps=steps, file=text, checked_by="text")
    argv = final_check_argv(pool.config)
    if argv is None and pool.backend != "embedded":  # the command backend: its replay is all there is
        return ProofVerdict(ok=True, steps=steps, file=text, checked_by="replay")
    if argv is None:  # the embedded checker elaborates the file itself, every step kernel-checked
        # its library is loaded whatever the header imports, so a theorem named like one of its
        # lemmas (core's `Nat.add_zero`) would clash there though not in Lean: the name is a label
        kernel_text = assemble_file(parsed_header, decl, tactics, name=SNIPPET_NAME)
        worker = await pool._acquire()
        try:
            verdict = await process_file(worker, kernel_text)
        finally:
            pool._release(worker)
        return ProofVerdict(ok=verdict.ok, reason=verdict.reason, steps=steps, file=text, checked_by="kernel")
    compiled = await compile_file(text, parsed, pool.config, argv, lock=decl)
    return ProofVerdict(
        ok=compiled.ok, reason=compiled.reason, steps=steps, file=text, checked_by="lean", axioms=compiled.axioms
    )
