"""Configuration of the coordinator daemon, its sessions and its brains."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.tools.common.config import ToolsRunConfig

__all__ = ["DEFAULT_ALLOWED_TOOLS", "CoordinationRunConfig", "CoordinatorConfig"]

# The agent orchestrates: it may read scores, launch searches and schedule iterations, but it
# gets no proof-state tools (it must never prove by hand), no file system and no shell.
DEFAULT_ALLOWED_TOOLS: tuple[str, ...] = (
    "list_targets",
    "get_target",
    "update_status",
    "record_proof",
    "schedule_iteration",
    "launch_search",
    "job_status",
    "job_result",
    "cancel_job",
    "list_jobs",
    "trajectory_summary",
    "eval_result",
    "compare_iterations",
    "solve_curve",
)


class CoordinatorConfig(BaseModel):
    """Brain, budgets, allow-list and back-off of coordinator sessions."""

    model_config = ConfigDict(extra="forbid")

    brain: Literal["scripted", "anthropic"] = "scripted"
    model: str = "claude-sonnet-5-5"
    base_url: str | None = Field(default=None, description="Messages API base URL; else $ANTHROPIC_BASE_URL")
    api_key_env: str = Field(default="ANTHROPIC_API_KEY", description="env var holding the API key")
    max_tokens: int = Field(default=2048, ge=64)
    servers: list[Literal["lean", "search", "stats", "blueprint"]] = Field(
        default_factory=lambda: ["search", "stats", "blueprint"]
    )
    allowed_tools: list[str] = Field(default_factory=lambda: list(DEFAULT_ALLOWED_TOOLS))
    max_turns: int = Field(default=30, ge=1, description="assistant replies per session")
    max_tool_calls: int = Field(default=60, ge=1, description="tool calls per session")
    per_tool_limits: dict[str, int] = Field(
        default_factory=lambda: {"launch_search": 4, "schedule_iteration": 1, "job_status": 40}
    )
    duplicate_window: int = Field(default=8, ge=1, description="recent calls checked for near-duplicates")
    session_time_limit_s: float = Field(default=900.0, gt=0)
    max_sessions: int | None = Field(default=None, ge=1, description="stop after this many sessions (None: run on)")
    pause_between_sessions_s: float = Field(default=1.0, ge=0)
    backoff_initial_s: float = Field(default=2.0, gt=0)
    backoff_max_s: float = Field(default=300.0, gt=0)
    max_consecutive_failures: int = Field(default=5, ge=1)
    job_poll_interval_s: float = Field(default=1.0, gt=0, description="scripted brain: wait between job polls")
    probe_set: str = Field(default="core", description="scripted brain: theorem set searched as a probe")
    probe_max_nodes: int = Field(default=30, ge=1)
    probe_limit: int = Field(default=8, ge=1, description="scripted brain: theorems of the probe set searched")
    handover_chars: int = Field(default=1500, ge=100, description="longest summary carried to the next session")


class CoordinationRunConfig(ToolsRunConfig):
    """What the coordinator daemon and the demo read: the coordinator section on top of the
    servers' configuration (the daemon starts the servers and runs iterations)."""

    coordinator: CoordinatorConfig = Field(default_factory=CoordinatorConfig)
