"""Configuration of the MCP tool layer (handle leases, jobs, tactic policy, call log)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ToolsConfig"]


class ToolsConfig(BaseModel):
    """Limits and policies of the tools the MCP servers expose."""

    model_config = ConfigDict(extra="forbid")

    handle_idle_timeout_s: float = Field(default=300.0, gt=0)
    max_live_handles: int = Field(default=32, ge=1)
    show_held_out: bool = False
