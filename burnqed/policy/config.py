"""Configuration of the policy model (generation, encoding, fine-tuning)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["PolicyConfig"]


class PolicyConfig(BaseModel):
    """Which model proposes tactics and how it samples."""

    model_config = ConfigDict(extra="forbid")

    model_dir: Path | None = Field(default=None, description="local HF causal-LM dir; None = the tiny model")
    prompt_format: Literal["plain", "deepseek-v2"] = "plain"
    device: str = Field(default="auto", description="auto | cpu | cuda | cuda:N")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    temperature: float = Field(default=1.0, ge=0)
    top_p: float = Field(default=0.95, gt=0, le=1)
    max_new_tokens: int = Field(default=48, ge=1)
    max_prompt_tokens: int = Field(default=512, ge=16)
