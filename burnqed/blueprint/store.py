"""BlueprintStore: the one safe way to read and change a BLUEPRINT.md.

Every change is a read-modify-write under an exclusive ``fcntl.flock`` on a sidecar
``.BLUEPRINT.md.lock`` file, written to a temporary file and moved into place with
``os.replace``, so concurrent writers (the MCP server and the daemon, in separate
processes) never lose an update and readers never see half a file. A change that would add
validation issues, or alter a locked statement, is refused and nothing is written.
A file edited outside the store (its hash differs from ``.BLUEPRINT.md.written``, the hash
of the store's last write) is kept as ``BLUEPRINT.md.<time>.bak`` before it is replaced.
The methods are synchronous and hold the lock for milliseconds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from burnqed.blueprint.config import BlueprintConfig
from burnqed.blueprint.errors import (
    BlueprintError,
    BlueprintLockTimeout,
    BlueprintValidationError,
    DuplicateLabel,
    InvalidTransition,
    ProofRequired,
    StatementLocked,
    UnknownLabel,
)
from burnqed.blueprint.format import parse_blueprint, render_blueprint
from burnqed.blueprint.proofs import ProofLedger, ProofRecord, proof_ledger_path
from burnqed.blueprint.locks import LockLedger, LockViolation, check_ledger, check_locks, ledger_path
from burnqed.blueprint.model import (
    LABEL_PATTERN,
    TARGET_KINDS,
    Blueprint,
    Entry,
    IterationSpec,
    MAX_ITERATION_INDEX,
    iteration_index,
)
from burnqed.blueprint.issue import Issue
from burnqed.blueprint.rules import transition, validate
from burnqed.data.theorems import matches_lock, statement_sha

__all__ = ["DEFAULT_PREAMBLE", "PENDING_ITERATION_STATUSES", "BlueprintStore"]

log = logging.getLogger(__name__)

DEFAULT_PREAMBLE = (
    "# Blueprint\n\n"
    "Targets and scheduled iterations, maintained by burnqed (format: docs/blueprint.md).\n"
    "Statements are locked when registered; change status through the tools, not by hand.\n\n"
)
# an interrupted (running) iteration is pending too: the runner resumes it
PENDING_ITERATION_STATUSES: frozenset[str] = frozenset({"todo", "running", "partial"})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class BlueprintStore:
    """Locked, atomic access to one blueprint file (created on the first write)."""

    def __init__(self, path: str | Path, config: BlueprintConfig | None = None) -> None:
        self.path = Path(path)
        self.config = config or BlueprintConfig()
        self.lock_path = self.path.with_name(f".{self.path.name}.lock")
        # the hash of the text this store last wrote: a file that differs was edited by hand
        self.written_path = self.path.with_name(f".{self.path.name}.written")
        self.ledger = LockLedger(ledger_path(self.path))
        self.proofs = ProofLedger(proof_ledger_path(self.path))

    # ------------------------------------------------------------ reading

    def read(self) -> Blueprint:
        """The current blueprint (an empty one when the file does not exist)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Blueprint(preamble=DEFAULT_PREAMBLE, source=str(self.path))
        except UnicodeDecodeError as exc:
            raise BlueprintError(f"{self.path} is not UTF-8 text (byte {exc.start}); restore it from a backup") from None
        return parse_blueprint(text, source=str(self.path))

    def get(self, label: str) -> Entry:
        """The entry with that label; raises UnknownLabel."""
        entry = self.read().find(label)
        if entry is None:
            raise UnknownLabel(label)
        return entry

    def list_entries(self, kind: str | None = None, status: str | None = None) -> list[Entry]:
        """Entries in file order, optionally of one kind and/or status."""
        return [
            e for e in self.read().entries
            if (kind is None or e.kind == kind) and (status is None or e.status == status)
        ]

    def list_targets(self, status: str | None = None) -> list[Entry]:
        """Theorems, lemmas and theorem sets, optionally of one status."""
        return [e for e in self.list_entries(status=status) if e.kind in TARGET_KINDS]

    def pending_iterations(self) -> list[Entry]:
        """Iterations still to run (todo, partial, or running after an interruption), in file order."""
        return [e for e in self.list_entries(kind="iteration") if e.status in PENDING_ITERATION_STATUSES]

    def validate(self) -> list[Issue]:
        """Validation issues of the file as it is."""
        return validate(self.read())

    def problems(self) -> list[str]:
        """Every validation issue and hand-edited lock of the file, one line each (unreadable: its error)."""
        try:
            return [str(issue) for issue in self.validate()] + [f"{v.label}: {v.message}" for v in self.audit_locks()]
        except BlueprintError as exc:
            return [str(exc)]

    def audit_locks(self) -> list[LockViolation]:
        """Statement-lock violations, against the entries' hashes and the ledger."""
        blueprint = self.read()
        return check_locks(blueprint, self.ledger.read()) + check_ledger(blueprint, self.ledger)

    # ------------------------------------------------------------ the write path

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + self.config.lock_timeout_s
            delay = 0.002
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise BlueprintLockTimeout(
                            f"{self.path}: lock not obtained within {self.config.lock_timeout_s} s"
                        ) from None
                    # back off while another writer holds the lock (held for milliseconds)
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Blueprint]:
        """Lock, read, let the caller change the blueprint, check it, write it atomically."""
        with self._locked():
            blueprint = self.read()
            self._refuse_emptied(blueprint)
            before_issues = {(i.label, i.message) for i in validate(blueprint)}
            before = {e.label: e for e in blueprint.entries}
            yield blueprint
            _check_statement_locks(before, blueprint)
            new_issues = [i for i in validate(blueprint) if (i.label, i.message) not in before_issues]
            if new_issues:
                raise BlueprintValidationError(new_issues)
            self._write(blueprint)

    def _refuse_emptied(self, blueprint: Blueprint) -> None:
        """A file with no target left while the ledger locked statements for it was emptied
        or truncated by hand: writing would silently replace the operator's file."""
        locked = self.ledger.read()
        if locked and not any(e.kind in TARGET_KINDS for e in blueprint.entries):
            raise BlueprintError(
                f"{self.path} has no targets, but {len(locked)} statements were locked for it "
                f"({self.ledger.path.name}): it was emptied or truncated. Restore it, or start over in "
                "a new run directory; nothing was written."
            )

    def _write(self, blueprint: Blueprint) -> None:
        text = render_blueprint(blueprint)
        try:
            current: str | None = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        except UnicodeDecodeError as exc:
            raise BlueprintError(f"{self.path} is not UTF-8 text (byte {exc.start}); restore it from a backup") from None
        if current == text:
            return
        if current is not None and _digest(current) != self._last_written():
            # someone else wrote this file (an operator's hand edit): keep it before replacing
            backup = self.path.with_name(f"{self.path.name}.{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}.bak")
            backup.write_text(current, encoding="utf-8")
            log.warning("%s was edited outside burnqed; the edited file is kept as %s", self.path, backup.name)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        self.written_path.write_text(_digest(text) + "\n", encoding="utf-8")
        # a write killed before its rename (another pid) left its temp file; writes hold the lock
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            stale.unlink(missing_ok=True)

    def _last_written(self) -> str | None:
        try:
            return self.written_path.read_text(encoding="utf-8").strip() or None
        except FileNotFoundError:
            return None

    def _update(self, label: str, change: Any) -> Entry:
        with self.transaction() as blueprint:
            entry = blueprint.find(label)
            if entry is None:
                raise UnknownLabel(label)
            new = change(entry)
            blueprint.replace(new)
        return new

    # ------------------------------------------------------------ changes

    def register_target(
        self,
        kind: str,
        label: str,
        statement: str | None = None,
        uses: Sequence[str] = (),
        file: str | None = None,
        attempts_budget: int | None = None,
        note: str | None = None,
    ) -> Entry:
        """Add a target with status todo and lock its statement; the same registration again is a no-op.

        Raises StatementLocked when the label exists with another statement, DuplicateLabel
        when it exists as another kind, BlueprintValidationError for unknown ``uses``.
        """
        if kind not in TARGET_KINDS:
            raise BlueprintError(f"kind {kind!r} is not a target kind ({', '.join(TARGET_KINDS)})")
        if not LABEL_PATTERN.match(label):
            raise BlueprintError(f"bad label {label!r}")
        if kind in {"theorem", "lemma"} and not (statement and statement.strip()):
            raise BlueprintError(f"a {kind} needs a statement")
        sha = statement_sha(statement) if statement is not None else None
        budget = attempts_budget or self.config.target_attempts_budget
        with self.transaction() as blueprint:
            existing = blueprint.find(label)
            if existing is not None:
                if existing.kind != kind:
                    raise DuplicateLabel(f"{label!r} is already a {existing.kind}")
                locked = existing.statement_sha or (
                    statement_sha(existing.statement) if existing.statement is not None else None
                )
                if statement is not None and locked is not None and not matches_lock(
                    statement, locked, locked_text=existing.statement
                ):
                    raise StatementLocked(label, locked, sha, old=existing.statement, new=statement)
                ledgered = self.ledger.read().get(label)
                if statement is not None and ledgered is not None and not matches_lock(
                    statement, ledgered, locked_text=existing.statement
                ):
                    raise StatementLocked(label, ledgered, sha, new=statement)
                return existing
            ledgered = self.ledger.read().get(label)
            if statement is not None and ledgered is not None and not matches_lock(statement, ledgered):
                # a removed target cannot come back with another statement under the same label
                raise StatementLocked(label, ledgered, sha, new=statement)
            meta: dict[str, str] = {"label": label, "uses": ", ".join(uses)}
            if file:
                meta["file"] = file
            meta |= {"status": "todo", "attempts": f"0 / {budget}"}
            if sha is not None:
                meta["statement_sha"] = sha
            entry = Entry(kind=kind, label=label, meta=meta, statement=statement.strip() if statement else None)  # type: ignore[arg-type]
            entry = entry.with_note(f"- {_now()} registered" + (f": {note}" if note else ""))
            blueprint.entries.append(entry)
            if sha is not None and ledgered is None:
                self.ledger.record(label, sha)
        return entry

    def update_status(self, label: str, status: str, note: str | None = None, count_attempt: bool = True) -> Entry:
        """Change an entry's status with attempt accounting (exhausted when the budget is spent).

        A target never becomes done here (ProofRequired): only record_proof does that."""

        def change(entry: Entry) -> Entry:
            if status == "done" and entry.kind in TARGET_KINDS:
                raise ProofRequired(
                    f"{label}: a target becomes done only when the server has replayed its proof "
                    "(record_proof with the id of the search job that proved it)"
                )
            new = transition(entry, status, count_attempt=count_attempt)
            if note:
                new = new.with_note(f"- {_now()} {entry.status} → {new.status}: {note}")
            return new

        return self._update(label, change)

    def record_proof(self, record: ProofRecord, note: str | None = None) -> Entry:
        """Mark a theorem or lemma done with a proof the verification gate replayed against its
        locked statement: the record goes to the proof ledger, its hash to the entry."""

        def change(entry: Entry) -> Entry:
            if entry.kind not in {"theorem", "lemma"} or entry.statement is None:
                raise ProofRequired(f"{entry.label}: a {entry.kind} has no single statement to prove")
            locked = self.ledger.read().get(entry.label) or entry.statement_sha or statement_sha(entry.statement)
            # the same statement under the legacy hash and the token hash is the same lock
            if record.statement_sha != locked and not (
                matches_lock(entry.statement, locked) and matches_lock(entry.statement, record.statement_sha)
            ):
                raise ProofRequired(
                    f"{entry.label}: the proof was checked against statement {record.statement_sha[:12]}…, "
                    f"but the locked statement is {locked[:12]}…"
                )
            if entry.status == "done" and entry.proof_sha is not None:
                return entry  # already proved: the first recorded proof stands
            new = transition(entry, "done").with_meta(proof_sha=record.proof_sha)
            text = f"proved ({len(record.tactics)} tactics, replayed on {record.backend}, {record.source})"
            new = new.with_note(f"- {_now()} {entry.status} → done: {text}" + (f"; {note}" if note else ""))
            self.proofs.append(record)
            return new

        return self._update(record.label, change)

    def restart(self, label: str, note: str | None = None) -> Entry:
        """Restart an entry a crash left ``running``: a crash, not a new attempt. Past
        ``max_crash_restarts`` the entry fails (``coordinator resume`` reopens it)."""

        def change(entry: Entry) -> Entry:
            if entry.status != "running":
                return transition(entry, "running").with_note(f"- {_now()} {entry.status} → running")
            crashes = entry.crashes + 1
            if crashes > self.config.max_crash_restarts:
                failed = transition(entry, "failed", count_attempt=False)
                return failed.with_meta(crashes=str(crashes)).with_note(
                    f"- {_now()} running → {failed.status}: crashed {crashes} times "
                    "(burnqed coordinator resume reopens it)"
                )
            text = f"- {_now()} restarted after crash {crashes} of {self.config.max_crash_restarts}"
            return entry.with_meta(crashes=str(crashes)).with_note(text + (f": {note}" if note else ""))

        return self._update(label, change)

    def reopen(self, label: str, extra_attempts: int = 0, note: str | None = None) -> Entry:
        """The operator's resume: add attempts to the budget, forget crashes, and set an
        exhausted or failed entry back to todo (a done entry stays done)."""
        if extra_attempts < 0:
            raise BlueprintError("extra attempts cannot be negative")

        def change(entry: Entry) -> Entry:
            if entry.status == "done":
                raise InvalidTransition(entry.label, "done", "todo", "final status")
            attempts, budget = entry.attempts, entry.budget
            budget = (budget + extra_attempts) if budget is not None else None
            status = entry.status
            if status in {"exhausted", "failed"} and (budget is None or attempts < budget):
                status = "todo"
            counter = f"{attempts} / {budget}" if budget is not None else str(attempts)
            new = entry.with_meta(attempts=counter, status=status, crashes=None)
            return new.with_note(
                f"- {_now()} resumed by the operator: {entry.status} → {status}, budget {counter}"
                + (f": {note}" if note else "")
            )

        return self._update(label, change)

    def set_budget(self, label: str, budget: int) -> Entry:
        """Change the attempts budget; a bigger budget reopens an exhausted entry (status todo)."""
        if budget < 1:
            raise BlueprintError("budget must be at least 1")

        def change(entry: Entry) -> Entry:
            attempts = entry.attempts
            if attempts > budget:
                raise BlueprintError(f"{label}: {attempts} attempts already used, budget {budget} is too small")
            status = entry.status
            if status == "exhausted" and attempts < budget:
                status = "todo"
            elif status in {"todo", "partial", "failed"} and attempts >= budget:
                status = "exhausted"
            return entry.with_meta(attempts=f"{attempts} / {budget}", status=status)

        return self._update(label, change)

    def add_note(self, label: str, note: str) -> Entry:
        """Append a timestamped line to an entry's notes."""
        return self._update(label, lambda e: e.with_note(f"- {_now()} {note}"))

    def record_results(self, label: str, results: Mapping[str, Any]) -> Entry:
        """Store results (a JSON object, merged over earlier results) in the entry's meta."""

        def change(entry: Entry) -> Entry:
            merged = entry.results | dict(results)
            return entry.with_meta(results=json.dumps(merged, ensure_ascii=False, sort_keys=True, default=str))

        return self._update(label, change)

    def schedule_iteration(self, spec: IterationSpec) -> Entry:
        """Add an iteration entry (label iter_N, the next free N unless given) with its plan."""
        with self.transaction() as blueprint:
            label = spec.label
            if label is None:
                label = f"iter_{blueprint.next_iteration_index()}"
            elif iteration_index(label) is None:
                raise BlueprintError(
                    f"iteration label {label!r} is not a canonical iter_N (N from 0 to {MAX_ITERATION_INDEX}, "
                    "no leading zeros)"
                )
            if blueprint.find(label) is not None:
                raise DuplicateLabel(f"{label!r} already exists")
            budget = spec.attempts_budget or self.config.iteration_attempts_budget
            meta = {
                "label": label,
                "uses": ", ".join(spec.uses),
                "status": "todo",
                "attempts": f"0 / {budget}",
                "plan": json.dumps(spec.plan(), ensure_ascii=False, sort_keys=True),
            }
            entry = Entry(kind="iteration", label=label, meta=meta)
            entry = entry.with_note(f"- {_now()} scheduled" + (f": {spec.note}" if spec.note else ""))
            blueprint.entries.append(entry)
        return entry

    def put(self, entry: Entry) -> Entry:
        """Insert or replace a whole entry (statement locks and validation still apply)."""
        with self.transaction() as blueprint:
            blueprint.replace(entry)
        return entry


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_statement_locks(before: Mapping[str, Entry], blueprint: Blueprint) -> None:
    """Refuse any change to the statement or the recorded hash of an existing entry."""
    for entry in blueprint.entries:
        old = before.get(entry.label)
        if old is None:
            if entry.statement is not None and entry.statement_sha is not None:
                actual = statement_sha(entry.statement)
                if not matches_lock(entry.statement, entry.statement_sha):
                    raise StatementLocked(
                        entry.label, entry.statement_sha, actual, field="statement_sha",
                        old=entry.statement_sha, new=actual,
                    )
            continue
        locked = old.statement_sha or (statement_sha(old.statement) if old.statement is not None else None)
        new_sha = statement_sha(entry.statement) if entry.statement is not None else None
        if locked is not None and old.statement is not None and not matches_lock(old.statement, locked):
            # the file on disk already differs from the lock: an edit by hand, not this change
            raise StatementLocked(entry.label, locked, statement_sha(old.statement), field="edited", new=old.statement)
        if locked is not None and (
            entry.statement is None or not matches_lock(entry.statement, locked, locked_text=old.statement)
        ):
            raise StatementLocked(
                entry.label, locked, new_sha or "<removed>", old=old.statement, new=entry.statement or "<removed>"
            )
        if locked is not None and entry.statement_sha != old.statement_sha:
            raise StatementLocked(
                entry.label, locked, entry.statement_sha or "<removed>", field="statement_sha",
                old=old.statement_sha, new=entry.statement_sha or "<removed>",
            )
