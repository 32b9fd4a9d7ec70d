"""Proof records: the evidence behind every ``done`` target.

A target becomes ``done`` only through ``BlueprintStore.record_proof`` with a ProofRecord
that a verification gate produced after replaying the proof against the target's locked
statement. The record is appended to a ledger beside the blueprint
(``BLUEPRINT.md.proofs.jsonl``, append-only) and its hash is written into the entry's meta
(``proof_sha``), so an audit can find, for each done target, the proof to replay; a
``done`` typed into the file by hand has no record and is reported.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.files import append_line

__all__ = ["ProofLedger", "ProofRecord", "proof_ledger_path", "proof_sha"]


def proof_sha(tactics: Sequence[str]) -> str:
    """The hash of a tactic list (its JSON form, so boundaries between tactics count)."""
    return hashlib.sha256(json.dumps(list(tactics), ensure_ascii=False).encode("utf-8")).hexdigest()


class ProofRecord(BaseModel):
    """A proof that replayed through the verification gate against a locked statement."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    statement_sha: str = Field(description="the locked statement the proof was replayed against")
    tactics: tuple[str, ...]
    proof_sha: str
    backend: str = Field(description="what replayed it: 'embedded' (kernel enforced) or 'pantograph'")
    source: str = Field(description="where the proof came from, e.g. 'job j-…'")
    verified_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def of(cls, label: str, statement_sha: str, tactics: Sequence[str], backend: str, source: str) -> ProofRecord:
        """A record with its proof hash computed."""
        return cls(
            label=label,
            statement_sha=statement_sha,
            tactics=tuple(tactics),
            proof_sha=proof_sha(tactics),
            backend=backend,
            source=source,
        )


def proof_ledger_path(blueprint_path: str | Path) -> Path:
    """Where the proof ledger of a blueprint file lives."""
    path = Path(blueprint_path)
    return path.with_name(path.name + ".proofs.jsonl")


class ProofLedger:
    """The append-only JSONL record of verified proofs."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def read(self) -> list[ProofRecord]:
        """Every well-formed record, in order (a line that does not parse is skipped)."""
        records: list[ProofRecord] = []
        if not self.path.is_file():
            return records
        for line in self.path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                record = ProofRecord.model_validate_json(line)
            except ValidationError:
                continue
            if record.proof_sha == proof_sha(record.tactics):
                records.append(record)
        return records

    def find(self, label: str, proof_hash: str) -> ProofRecord | None:
        """The record of ``label`` with that proof hash, if any."""
        return next((r for r in self.read() if r.label == label and r.proof_sha == proof_hash), None)

    def append(self, record: ProofRecord) -> None:
        """Append one record (callers hold the blueprint's file lock)."""
        append_line(self.path, record.model_dump_json())
