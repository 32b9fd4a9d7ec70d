"""Configuration of best-first proof search (and of the trajectory files it writes)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SearchConfig"]


class SearchConfig(BaseModel):
    """Budgets and scoring of the best-first search."""

    model_config = ConfigDict(extra="forbid")

    num_candidates: int = Field(default=4, ge=1, description="policy candidates per expanded state")
    max_nodes: int = Field(default=100, ge=1, description="expanded states per theorem")
    max_depth: int = Field(default=12, ge=1, description="longest tactic sequence explored")
    time_limit_s: float = Field(default=60.0, gt=0, description="wall-clock budget per theorem")
    energy_weight: float = Field(default=1.0, ge=0, description="λ in priority = logprob + λ·(−energy)")
    automation_tactics: list[str] = Field(
        default_factory=lambda: ["omega", "simp", "norm_num", "decide", "rfl", "linarith"],
        description="tried on every expanded state besides the policy's candidates",
    )
    automation_log_prob: float = Field(
        default=-2.0, le=0, description="log-prob credited to an automation tactic (its priority cost)"
    )
    concurrency: int = Field(default=4, ge=1, description="theorems searched at once")
    lost_retries: int = Field(default=1, ge=0, description="re-searches of a theorem whose worker died")
    row_group_rows: int = Field(default=65536, ge=1, description="trajectory rows per committed Parquet part")
    flush_interval_s: float = Field(default=30.0, gt=0, description="commit buffered trajectories at least this often")
