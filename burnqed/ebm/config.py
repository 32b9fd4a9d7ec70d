"""Configuration of the energy head, its sampler, training and scoring."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["EBMConfig"]


class EBMConfig(BaseModel):
    """Energy head architecture, contrastive sampling, training and scoring settings."""

    model_config = ConfigDict(extra="forbid")

    # architecture
    hidden_dims: list[int] = Field(default_factory=lambda: [512, 256])
    dropout: float = Field(default=0.1, ge=0, lt=1)
    init_temperature: float = Field(default=0.1, gt=0, description="initial InfoNCE temperature (learned)")
    # sampling: each group is 1 positive + num_negatives negatives
    num_negatives: int = Field(default=7, ge=1)
    hard_ratio: float = Field(default=0.5, ge=0, description="share of dead-end siblings of the positive")
    medium_ratio: float = Field(default=0.3, ge=0, description="share of other dead ends of the same theorem")
    easy_ratio: float = Field(default=0.2, ge=0, description="share of dead ends of other theorems")
    include_terminal: bool = Field(default=False, description="also use 'no goals' states as positives")
    # loss: nce_weight * InfoNCE + depth_weight * remaining-depth regression
    nce_weight: float = Field(
        default=1.0,
        ge=0,
        description="weight of the contrastive loss; 0 with depth_weight 1 makes the head a remaining-depth "
        "regressor whose energy is depth_scale nats per remaining step (the depth world's working head)",
    )
    depth_weight: float = Field(default=0.1, ge=0, description="weight of the remaining-depth regression")
    depth_scale: float = Field(default=0.1, gt=0, description="target energy per remaining proof step")
    # optimisation
    learning_rate: float = Field(default=1e-3, gt=0)
    weight_decay: float = Field(default=0.01, ge=0)
    warmup_steps: int = Field(default=20, ge=0)
    min_lr_ratio: float = Field(default=0.1, ge=0, le=1, description="cosine floor as a share of the peak lr")
    max_grad_norm: float = Field(default=1.0, gt=0)
    epochs: int = Field(default=10, ge=1)
    batch_size: int = Field(default=32, ge=1, description="contrastive groups per step")
    seed: int = 0
    val_fraction: float = Field(default=0.1, ge=0, lt=1, description="theorems held out to measure ranking")
    checkpoint_every: int = Field(default=0, ge=0, description="also checkpoint every N steps (0: per epoch)")
    # health checks
    grad_norm_warn: float = Field(default=100.0, gt=0, description="pre-clip gradient norm that counts as exploding")
    min_temperature: float = Field(default=0.01, gt=0, description="temperature below this has collapsed")
    on_temperature_collapse: Literal["warn", "stop"] = "stop"
    # embeddings and scoring
    device: str = Field(default="auto", description="auto | cpu | cuda | cuda:N")
    encode_batch_size: int = Field(default=64, ge=1, description="states per encoder call when filling the cache")
    score_batch_size: int = Field(default=64, ge=1, description="states per energy-head call when scoring")

    @model_validator(mode="after")
    def _ratios_not_all_zero(self) -> EBMConfig:
        if self.hard_ratio + self.medium_ratio + self.easy_ratio <= 0:
            raise ValueError("hard_ratio + medium_ratio + easy_ratio must be > 0")
        if self.nce_weight + self.depth_weight <= 0:
            raise ValueError("nce_weight + depth_weight must be > 0: the head would learn nothing")
        return self
