"""BLUEPRINT.md status files: entries, parser/writer, rules, statement locks, a locked store."""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.blueprint.config": ("BlueprintConfig",),
    "burnqed.blueprint.errors": (
        "BlueprintError", "BlueprintLockTimeout", "BlueprintParseError", "BlueprintValidationError",
        "DuplicateLabel", "InvalidTransition", "ProofRequired", "StatementLocked", "UnknownLabel",
    ),
    "burnqed.blueprint.format": ("parse_blueprint", "render_blueprint", "render_entry"),
    "burnqed.blueprint.issue": ("Issue",),
    "burnqed.blueprint.locks": ("LockLedger", "LockViolation", "check_locks", "ledger_path"),
    "burnqed.blueprint.model": (
        "ENTRY_KINDS", "MAX_ITERATION_INDEX", "STATUSES", "TARGET_KINDS", "Blueprint", "Entry",
        "EntryKind", "IterationSpec", "Section", "Status", "iteration_index", "parse_attempts",
    ),
    "burnqed.blueprint.proofs": ("ProofLedger", "ProofRecord", "proof_ledger_path", "proof_sha"),
    "burnqed.blueprint.rules": ("transition", "validate"),
    "burnqed.blueprint.store": ("BlueprintStore",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
