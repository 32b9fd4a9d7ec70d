"""Configuration of blueprint files."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BlueprintConfig"]


class BlueprintConfig(BaseModel):
    """Where the blueprint lives, default budgets and the file-lock wait."""

    model_config = ConfigDict(extra="forbid")

    path: Path = Field(default=Path("blueprints/BLUEPRINT.md"), description="the blueprint the tools edit")
    target_attempts_budget: int = Field(default=5, ge=1, description="attempts a new target gets")
    iteration_attempts_budget: int = Field(default=3, ge=1, description="runs a scheduled iteration gets")
    lock_timeout_s: float = Field(default=30.0, gt=0, description="longest wait for the file lock")
