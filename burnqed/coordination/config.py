"""Configuration of the coordinator daemon and its brains."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CoordinatorConfig"]


class CoordinatorConfig(BaseModel):
    """Brain, budgets and back-off of coordinator sessions."""

    model_config = ConfigDict(extra="forbid")

    brain: Literal["scripted", "anthropic"] = "scripted"
    model: str = "claude-sonnet-4-5"
    base_url: str | None = None
    max_turns: int = Field(default=30, ge=1)
    max_tool_calls: int = Field(default=60, ge=1)
    session_time_limit_s: float = Field(default=900.0, gt=0)
