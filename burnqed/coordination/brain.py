"""What a brain is: something that runs one coordinator session through the toolbox.

Errors::

    BrainError
     ├── BrainFatalError       stop the daemon (authentication, permission, billing)
     └── BrainTransientError   retry the session after a back-off (rate limit, overload, network)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from burnqed.coordination.log import SessionLog
from burnqed.coordination.toolbox import Toolbox

__all__ = [
    "Brain",
    "BrainError",
    "BrainFatalError",
    "BrainOutcome",
    "BrainTransientError",
    "SessionContext",
    "load_prompt",
]

StopReason = Literal["end_turn", "turn_limit", "tool_budget", "time_limit", "script_done"]

PROMPTS_DIR = Path(__file__).resolve().parents[1] / "prompts"  # package data, also ./prompts in a checkout


class BrainError(RuntimeError):
    """A brain could not run its session."""


class BrainFatalError(BrainError):
    """An error that retrying cannot fix (authentication, permission, billing): stop the daemon."""


class BrainTransientError(BrainError):
    """An error worth retrying after a back-off (rate limit, overload, connection)."""


class SessionContext(BaseModel):
    """What a brain knows when its session starts."""

    model_config = ConfigDict(frozen=True)

    session: int = Field(ge=0)
    handover: str = Field(default="", description="the previous session's summary, written by the daemon")
    next_iteration: int = Field(default=0, ge=0, description="label number of the next iteration to schedule")
    train_set: str = "benchmark-train"
    previous_probe_rate: float | None = Field(
        default=None, description="the probe solve rate the previous session's brain reported, if any"
    )


class BrainOutcome(BaseModel):
    """How a session ended."""

    model_config = ConfigDict(frozen=True)

    stop_reason: StopReason
    turns: int = 0
    summary: str = ""
    usage: dict[str, Any] = Field(default_factory=dict)
    probe_solve_rate: float | None = Field(default=None, description="a probe search's solve rate, if one ran")


class Brain(Protocol):
    """Runs one session: it may only act through the toolbox."""

    name: str

    async def run(self, toolbox: Toolbox, context: SessionContext, log: SessionLog) -> BrainOutcome:
        """Run the session and say how it ended."""
        ...


def load_prompt(prompts_dir: Path | None = None) -> str:
    """The coordinator's system prompt: prompts/coordinator.md followed by prompts/common.md."""
    base = prompts_dir or PROMPTS_DIR
    parts = []
    for name in ("coordinator.md", "common.md"):
        path = base / name
        if not path.is_file():
            raise BrainError(f"system prompt file missing: {path}")
        parts.append(path.read_text(encoding="utf-8").strip())
    return "\n\n".join(parts) + "\n"
