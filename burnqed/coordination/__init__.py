"""burnqed.coordination: the coordinator daemon, its sessions, brains and allow-listed toolbox."""

from burnqed.coordination.brain import (
    Brain,
    BrainError,
    BrainFatalError,
    BrainOutcome,
    BrainTransientError,
    SessionContext,
)
from burnqed.coordination.config import DEFAULT_ALLOWED_TOOLS, CoordinatorConfig
from burnqed.coordination.toolbox import Toolbox, ToolboxError, ToolResult, ToolSpec

__all__ = [
    "DEFAULT_ALLOWED_TOOLS",
    "Brain",
    "BrainError",
    "BrainFatalError",
    "BrainOutcome",
    "BrainTransientError",
    "CoordinatorConfig",
    "SessionContext",
    "ToolResult",
    "ToolSpec",
    "Toolbox",
    "ToolboxError",
]
