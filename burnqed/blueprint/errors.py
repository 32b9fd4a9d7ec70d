"""Errors of the blueprint layer.

BlueprintError
 ├── BlueprintParseError       the file is not a well-formed BLUEPRINT.md (carries the line)
 ├── BlueprintValidationError  the change would leave the blueprint invalid (carries issues)
 ├── UnknownLabel              no entry has that label
 ├── DuplicateLabel            registering a label that exists as something else
 ├── StatementLocked           a locked statement would change
 ├── InvalidTransition         a status change the rules forbid (or a spent budget)
 └── BlueprintLockTimeout      the file lock was not obtained in time
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from burnqed.blueprint.issue import Issue

__all__ = [
    "BlueprintError",
    "BlueprintLockTimeout",
    "BlueprintParseError",
    "BlueprintValidationError",
    "DuplicateLabel",
    "InvalidTransition",
    "StatementLocked",
    "UnknownLabel",
]


class BlueprintError(Exception):
    """Base class of every error raised by burnqed.blueprint."""


class BlueprintParseError(BlueprintError):
    """The text is not a well-formed blueprint; ``line`` is 1-based."""

    def __init__(self, message: str, line: int | None = None, source: str | None = None) -> None:
        where = f"{source or '<blueprint>'}:{line}: " if line is not None else f"{source}: " if source else ""
        super().__init__(f"{where}{message}")
        self.line = line
        self.source = source


class BlueprintValidationError(BlueprintError):
    """A blueprint (or a change to it) breaks the validation rules."""

    def __init__(self, issues: Sequence[Issue]) -> None:
        super().__init__("; ".join(str(i) for i in issues) or "invalid blueprint")
        self.issues = list(issues)


class UnknownLabel(BlueprintError, KeyError):
    """No entry with that label."""

    def __init__(self, label: str) -> None:
        super().__init__(f"no blueprint entry labelled {label!r}")
        self.label = label

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateLabel(BlueprintError):
    """The label is already taken by an entry that does not match the registration."""


class StatementLocked(BlueprintError):
    """The statement of a registered target cannot change (its hash is locked)."""

    def __init__(
        self,
        label: str,
        locked_sha: str,
        new_sha: str,
        *,
        field: str = "statement",
        old: str | None = None,
        new: str | None = None,
    ) -> None:
        # name the field that changed and show both values (texts when known, else hashes)
        before = repr(old) if old is not None else f"sha {locked_sha[:12]}…"
        after = repr(new) if new is not None else f"sha {new_sha[:12]}…"
        if field == "edited":
            text = (f"{label!r}: its statement in the file ({after}) no longer matches its lock ({before}): it was "
                    "edited by hand; restore the registered statement (`burnqed blueprint audit` names it)")
        elif field == "statement_sha":
            text = f"{label!r}: field statement_sha is locked: {before} cannot become {after} (the statement is unchanged)"
        else:
            text = f"{label!r}: field statement is locked: {before} cannot become {after}"
        super().__init__(text)
        self.label = label
        self.locked_sha = locked_sha
        self.new_sha = new_sha
        self.field = field


class InvalidTransition(BlueprintError):
    """The status change is not allowed from the entry's current status."""

    def __init__(self, label: str, old: str, new: str, reason: str = "") -> None:
        super().__init__(f"{label}: cannot go from {old} to {new}" + (f" ({reason})" if reason else ""))
        self.label = label
        self.old = old
        self.new = new


class ProofRequired(BlueprintError):
    """A target becomes done only with a proof the verification gate replayed."""


class BlueprintLockTimeout(BlueprintError):
    """Another writer held the blueprint's file lock for too long."""
