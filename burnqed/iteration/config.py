"""Configuration of expert iteration."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["IterationConfig"]


class IterationConfig(BaseModel):
    """Sizes and seeds of an expert-iteration run."""

    model_config = ConfigDict(extra="forbid")

    iterations: int = Field(default=3, ge=1)
    train_size: int = Field(default=120, ge=1)
    seed: int = 0
