"""Configuration of the energy head and its training."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["EBMConfig"]


class EBMConfig(BaseModel):
    """Energy head architecture and training settings."""

    model_config = ConfigDict(extra="forbid")

    hidden_dims: list[int] = Field(default_factory=lambda: [512, 256])
    dropout: float = Field(default=0.1, ge=0, lt=1)
    num_negatives: int = Field(default=7, ge=1)
    learning_rate: float = Field(default=1e-3, gt=0)
    epochs: int = Field(default=10, ge=1)
    batch_size: int = Field(default=32, ge=1)
    seed: int = 0
