"""Configuration of best-first proof search."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SearchConfig"]


class SearchConfig(BaseModel):
    """Budgets and scoring of the best-first search."""

    model_config = ConfigDict(extra="forbid")

    num_candidates: int = Field(default=4, ge=1)
    max_nodes: int = Field(default=100, ge=1)
    max_depth: int = Field(default=12, ge=1)
    time_limit_s: float = Field(default=60.0, gt=0)
    energy_weight: float = Field(default=1.0, ge=0, description="λ in priority = logprob + λ·(−energy)")
    automation_tactics: list[str] = Field(
        default_factory=lambda: ["omega", "simp", "norm_num", "decide", "rfl", "linarith"]
    )
    concurrency: int = Field(default=4, ge=1)
