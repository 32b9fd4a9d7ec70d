"""BLUEPRINT.md status files: entries, parser/writer, rules, statement locks, a locked store."""

from burnqed.blueprint.config import BlueprintConfig
from burnqed.blueprint.errors import (
    BlueprintError,
    BlueprintLockTimeout,
    BlueprintParseError,
    BlueprintValidationError,
    DuplicateLabel,
    InvalidTransition,
    ProofRequired,
    StatementLocked,
    UnknownLabel,
)
from burnqed.blueprint.format import parse_blueprint, render_blueprint, render_entry
from burnqed.blueprint.locks import LockLedger, LockViolation, check_locks, ledger_path
from burnqed.blueprint.model import (
    ENTRY_KINDS,
    MAX_ITERATION_INDEX,
    STATUSES,
    TARGET_KINDS,
    Blueprint,
    Entry,
    EntryKind,
    IterationSpec,
    Section,
    Status,
    iteration_index,
    parse_attempts,
)
from burnqed.blueprint.proofs import ProofLedger, ProofRecord, proof_ledger_path, proof_sha
from burnqed.blueprint.issue import Issue
from burnqed.blueprint.rules import transition, validate
from burnqed.blueprint.store import BlueprintStore

__all__ = [
    "ENTRY_KINDS",
    "STATUSES",
    "TARGET_KINDS",
    "Blueprint",
    "BlueprintConfig",
    "BlueprintError",
    "BlueprintLockTimeout",
    "BlueprintParseError",
    "BlueprintStore",
    "BlueprintValidationError",
    "DuplicateLabel",
    "Entry",
    "EntryKind",
    "InvalidTransition",
    "MAX_ITERATION_INDEX",
    "Issue",
    "IterationSpec",
    "LockLedger",
    "LockViolation",
    "ProofLedger",
    "ProofRecord",
    "ProofRequired",
    "Section",
    "StatementLocked",
    "Status",
    "UnknownLabel",
    "check_locks",
    "iteration_index",
    "ledger_path",
    "parse_attempts",
    "parse_blueprint",
    "proof_ledger_path",
    "proof_sha",
    "render_blueprint",
    "render_entry",
    "transition",
    "validate",
]
