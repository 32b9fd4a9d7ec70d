"""Statement locks: a target's statement hash is fixed when it is registered.

The hash (burnqed.data.theorems.statement_sha) is written into the entry's meta and
appended to a ledger beside the blueprint (``BLUEPRINT.md.locks.jsonl``, append-only), so
an edit that changes both the statement and its recorded hash is still caught by the
audit: ``check_locks(blueprint, ledger)``.
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
from burnqed.data.theorems import statement_sha

__all__ = ["LockLedger", "LockViolation", "check_locks", "ledger_path"]


class LockViolation(BaseModel):
    """A statement that no longer matches its lock."""

    model_config = ConfigDict(frozen=True)

    label: str
    kind: Literal["statement_changed", "sha_missing", "statement_missing", "ledger_mismatch", "entry_removed"]
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
        elif recorded != actual:
            violations.append(LockViolation(label=entry.label, kind="statement_changed", expected_sha=recorded,
                                            actual_sha=actual, message="statement text differs from its lock"))
        if ledger is not None and entry.label in ledger and ledger[entry.label] != actual:
            violations.append(LockViolation(label=entry.label, kind="ledger_mismatch", expected_sha=ledger[entry.label],
                                            actual_sha=actual, message="statement differs from the ledger's hash"))
    for label, sha in (ledger or {}).items():
        if label not in seen:
            violations.append(LockViolation(label=label, kind="entry_removed", expected_sha=sha,
                                            message="locked target is no longer in the blueprint"))
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
        if not self.path.is_file():
            return locks
        for line in self.path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                locks.setdefault(str(record["label"]), str(record["statement_sha"]))
            except (ValueError, KeyError, TypeError):
                continue
        return locks

    def record(self, label: str, sha: str) -> None:
        """Append one lock (callers hold the blueprint's file lock)."""
        line = json.dumps({"label": label, "statement_sha": sha, "at": datetime.now(UTC).isoformat()},
                          ensure_ascii=False)
        append_line(self.path, line)
