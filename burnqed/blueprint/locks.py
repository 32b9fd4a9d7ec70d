"""Statement locks: a target's statement hash is fixed when it is registered.

The hash (burnqed.data.theorems.statement_sha) is written into the entry's meta and
appended to a ledger beside the blueprint (``BLUEPRINT.md.locks.jsonl``, append-only), so
an edit that changes both the statement and its recorded hash is still caught by the
audit: ``check_locks(blueprint, ledger)``. The ledger is itself checked
(``check_ledger``): one that is missing while targets carry locks, has a line that is not a
lock (a torn write, an edit), or lacks a locked target's line is a violation, never a
silent loss of protection.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from burnqed.blueprint.model import Blueprint
from burnqed.files import append_line
from burnqed.data.theorems import matches_lock, statement_sha

__all__ = ["LockLedger", "LockViolation", "check_ledger", "check_locks", "ledger_path"]


class LockViolation(BaseModel):
    """A statement that no longer matches its lock."""

    model_config = ConfigDict(frozen=True)

    label: str
    kind: Literal[
        "statement_changed", "sha_missing", "statement_missing", "ledger_mismatch", "entry_removed",
        "ledger_missing", "ledger_damaged", "not_in_ledger",
    ]
    expected_sha: str | None = None
    actual_sha: str | None = None
    message: str


def check_locks(blueprint: Blueprint, ledger: Mapping[str, str] | None = None) -> list[LockViolation]:
    """Every lock violation: statements whose hash differs from the recorded or ledgered one."""
    violations: list[LockViolation] = []
    seen: set[str] = set()
    for entry in blueprint.entries:
        if entry.kind not in {"theorem", "lemma"}:
            continue
        seen.add(entry.label)
        recorded = entry.statement_sha
        actual = statement_sha(entry.statement) if entry.statement is not None else None
        if actual is None:
            if recorded is not None:
                violations.append(LockViolation(label=entry.label, kind="statement_missing", expected_sha=recorded,
                                                message="locked statement was removed"))
            continue
        if recorded is None:
            violations.append(LockViolation(label=entry.label, kind="sha_missing", actual_sha=actual,
                                            message="statement has no recorded statement_sha"))
        elif not matches_lock(entry.statement, recorded):
            violations.append(LockViolation(label=entry.label, kind="statement_changed", expected_sha=recorded,
                                            actual_sha=actual, message="statement text differs from its lock"))
        if ledger is not None and entry.label in ledger and not matches_lock(entry.statement, ledger[entry.label]):
            violations.append(LockViolation(label=entry.label, kind="ledger_mismatch", expected_sha=ledger[entry.label],
                                            actual_sha=actual, message="statement differs from the ledger's hash"))
    for label, sha in (ledger or {}).items():
        if label not in seen:
            violations.append(LockViolation(label=label, kind="entry_removed", expected_sha=sha,
                                            message="locked target is no longer in the blueprint"))
    return violations


def check_ledger(blueprint: Blueprint, ledger: LockLedger) -> list[LockViolation]:
    """The ledger's own damage: missing while targets carry locks, a line that is not a lock,
    a locked target without its line (a deleted or truncated ledger)."""
    locked = [e for e in blueprint.entries if e.kind in {"theorem", "lemma"} and e.statement_sha is not None]
    if not ledger.path.is_file():
        return [
            LockViolation(label=e.label, kind="ledger_missing", expected_sha=e.statement_sha,
                          message=f"the lock ledger {ledger.path.name} is missing")
            for e in locked
        ]
    violations = [
        LockViolation(label=f"{ledger.path.name}:{number}", kind="ledger_damaged",
                      message=f"line {number} of the lock ledger is not a lock record (torn or edited)")
        for number in ledger.bad_lines()
    ]
    recorded = ledger.read()
    violations += [
        LockViolation(label=e.label, kind="not_in_ledger", actual_sha=e.statement_sha,
                      message="locked target has no line in the lock ledger (deleted or truncated)")
        for e in locked if e.label not in recorded
    ]
    return violations


def ledger_path(blueprint_path: str | Path) -> Path:
    """Where the lock ledger of a blueprint file lives."""
    path = Path(blueprint_path)
    return path.with_name(path.name + ".locks.jsonl")


class LockLedger:
    """The append-only JSONL record of registered statement hashes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def read(self) -> dict[str, str]:
        """label → locked sha (the first registration wins; later lines cannot relock)."""
        locks: dict[str, str] = {}
        for _, record in self._records():
            if record is not None:
                locks.setdefault(record[0], record[1])
        return locks

    def bad_lines(self) -> list[int]:
        """Numbers (from 1) of the lines that are not lock records."""
        return [number for number, record in self._records() if record is None]

    def _records(self) -> list[tuple[int, tuple[str, str] | None]]:
        if not self.path.is_file():
            return []
        found: list[tuple[int, tuple[str, str] | None]] = []
        text = self.path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                label, sha = record["label"], record["statement_sha"]
                ok = isinstance(label, str) and isinstance(sha, str) and len(sha) == 64
                found.append((number, (label, sha) if ok else None))
            except (ValueError, KeyError, TypeError):
                found.append((number, None))
        return found

    def record(self, label: str, sha: str) -> None:
        """Append one lock (callers hold the blueprint's file lock)."""
        line = json.dumps({"label": label, "statement_sha": sha, "at": datetime.now(UTC).isoformat()},
                          ensure_ascii=False)
        append_line(self.path, line)
