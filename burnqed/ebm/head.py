"""The energy head: a spectral-normalised MLP from a state embedding to one energy.

Lower energy = more provable. Spectral normalisation bounds each layer's Lipschitz
constant, so energies move smoothly with the embedding and cannot blow up on states far
from the training data; the InfoNCE temperature is learned (as its logarithm) instead.

The head standardises its input with per-dimension statistics of the training states
(``fit_input``, stored with the weights): a policy's mean-pooled hidden states of different
proof states differ by little in norm, and a Lipschitz-1 network over them could not spread
its energies over the range a remaining-depth target or the search's log-probabilities need.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from pydantic import BaseModel, ConfigDict, Field
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm

from burnqed.ebm.losses import depth_regression_loss, info_nce_loss

__all__ = ["EnergyHead", "EnergyHeadConfig", "GroupLoss"]

# numerical floor only; the health check (EBMConfig.min_temperature) acts long before it
_TEMPERATURE_FLOOR = 1e-4
# below this a dimension's spread is rounding noise, not signal
_STD_FLOOR = 1e-6


class EnergyHeadConfig(BaseModel):
    """Everything needed to rebuild an EnergyHead exactly (stored with each checkpoint)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dim: int = Field(ge=1, description="embedding size of the encoder")
    hidden: tuple[int, ...] = (512, 256)
    dropout: float = Field(default=0.1, ge=0, lt=1)
    init_temperature: float = Field(default=0.1, gt=0)


class GroupLoss(NamedTuple):
    """The loss of a batch of contrastive groups and its two parts."""

    total: torch.Tensor
    nce: torch.Tensor
    depth: torch.Tensor


class EnergyHead(nn.Module):
    """Spectral-normalised MLP ``dim -> hidden... -> 1`` with SiLU, dropout, learned temperature."""

    def __init__(
        self,
        dim: int,
        hidden: tuple[int, ...] | list[int] = (512, 256),
        dropout: float = 0.1,
        init_temperature: float = 0.1,
    ) -> None:
        super().__init__()
        self.config = EnergyHeadConfig(
            dim=dim, hidden=tuple(hidden), dropout=dropout, init_temperature=init_temperature
        )
        layers: list[nn.Module] = []
        width = dim
        for size in self.config.hidden:
            layers += [spectral_norm(nn.Linear(width, size)), nn.SiLU(), nn.Dropout(dropout)]
            width = size
        layers.append(spectral_norm(nn.Linear(width, 1)))
        self.mlp = nn.Sequential(*layers)
        # identity until fit_input: (emb - input_mean) / input_std
        self.register_buffer("input_mean", torch.zeros(dim))
        self.register_buffer("input_std", torch.ones(dim))
        self.log_temperature = nn.Parameter(torch.tensor(math.log(init_temperature)))

    @classmethod
    def from_config(cls, config: EnergyHeadConfig) -> EnergyHead:
        """Build a fresh head from its stored arguments."""
        return cls(config.dim, config.hidden, config.dropout, config.init_temperature)

    @property
    def temperature(self) -> torch.Tensor:
        """The InfoNCE temperature (a positive scalar tensor)."""
        return self.log_temperature.exp().clamp(min=_TEMPERATURE_FLOOR)

    @torch.no_grad()
    def fit_input(self, emb: torch.Tensor) -> None:
        """Set the input standardisation from the training states' embeddings (N, d)."""
        if emb.shape[0] < 2:
            return
        self.input_mean.copy_(emb.mean(0))
        # a constant dimension would divide by zero: it carries no information, keep it at 0
        self.input_std.copy_(emb.std(0).clamp(min=_STD_FLOOR))

    def forward(self, emb: torch.Tensor) -> torch.Tensor:
        """Energies of embeddings: (B, d) -> (B,)."""
        return self.mlp((emb - self.input_mean) / self.input_std).squeeze(-1)  # (B, 1) -> (B,)

    def group_loss(
        self,
        groups: torch.Tensor,
        remaining_depth: torch.Tensor,
        *,
        depth_weight: float,
        depth_scale: float,
        nce_weight: float = 1.0,
    ) -> tuple[torch.Tensor, GroupLoss]:
        """Energies and loss of contrastive groups; column 0 of each group is the positive.

        groups: (B, G, d) with G = 1 + K; remaining_depth: (B,) of the positives.
        """
        B, G, d = groups.shape
        energies = self(groups.reshape(B * G, d)).view(B, G)  # (B, G)
        nce = info_nce_loss(energies, self.temperature)
        depth = depth_regression_loss(energies[:, 0], remaining_depth, scale=depth_scale)
        return energies, GroupLoss(nce_weight * nce + depth_weight * depth, nce, depth)
