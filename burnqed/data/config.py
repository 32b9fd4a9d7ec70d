"""Configuration of the built-in theorem sets and the benchmark generator."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DataConfig"]


class DataConfig(BaseModel):
    """Sizes, seeds and checks of the generated benchmark sets."""

    model_config = ConfigDict(extra="forbid")

    train_size: int = Field(default=600, ge=1, description="size of the built-in 'benchmark-train' set")
    train_seed: int = Field(default=1, description="seed of the built-in 'benchmark-train' set")
    verify_timeout_s: float = Field(
        default=10.0, gt=0, description="checker time-out per tactic when verifying a reference proof"
    )
    max_attempts: int = Field(
        default=20, ge=1, description="candidates tried per benchmark slot before the slot is given up"
    )
    automation_tactics: list[str] = Field(
        default_factory=lambda: ["omega", "simp", "norm_num", "decide", "linarith"],
        description="tactics measured alone by `burnqed data automation-share`",
    )
    world_tune_share: float = Field(
        default=0.4, gt=0.0, lt=1.0,
        description="`burnqed data world`: share of the in-fragment valid split carved off as the tuning split",
    )
    world_tune_seed: int = Field(default=0, description="`burnqed data world`: seed of the tuning split's hash rule")
