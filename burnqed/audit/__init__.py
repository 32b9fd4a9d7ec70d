"""burnqed.audit: statement locks, the proof replay gate over results, tool-call statistics."""

from burnqed.audit.audit import (
    AuditReport,
    LockedStatement,
    Violation,
    locked_statements,
    run_audit,
)

__all__ = ["AuditReport", "LockedStatement", "Violation", "locked_statements", "run_audit"]
