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
    max_crash_restarts: int = Field(
        default=3, ge=0, description="restarts after a crash (not counted as attempts) before an entry fails"
    )
    lock_timeout_s: float = Field(default=30.0, gt=0, description="longest wait for the file lock")
    agent_train_sets: tuple[str, ...] = Field(
        default=("benchmark-train", "core"),
        description="training sets an agent may name in schedule_iteration (never a held-out set or a path)",
    )
    agent_max_train_size: int = Field(default=2000, ge=1, description="largest train_size an agent may ask for")
    agent_max_nodes: int = Field(default=5000, ge=1, description="largest max_nodes an agent may ask for")
    agent_max_candidates: int = Field(default=64, ge=1, description="largest num_candidates an agent may ask for")
