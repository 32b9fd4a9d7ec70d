"""burnqed.audit: statement locks, the proof replay gate over results, tool-call statistics."""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.audit.audit": ("AuditReport", "LockedStatement", "Violation", "locked_statements", "run_audit"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
