"""burnqed.coordination: the coordinator daemon, its sessions, brains and allow-listed toolbox."""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.coordination.brain": (
        "Brain", "BrainError", "BrainFatalError", "BrainOutcome", "BrainTransientError",
        "SessionContext",
    ),
    "burnqed.coordination.config": ("DEFAULT_ALLOWED_TOOLS", "CoordinatorConfig"),
    "burnqed.coordination.toolbox": ("Toolbox", "ToolboxError", "ToolResult", "ToolSpec"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
