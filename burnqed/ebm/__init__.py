"""burnqed.ebm: the energy head that ranks proof states (lower energy = more provable).

Pieces: ``Encoder`` (states → embeddings; the policy model or ``HashingEncoder``),
``EmbeddingCache`` (Parquet, per encoder fingerprint), ``ContrastiveSampler`` (groups of
one proof-path state against hard/medium/easy dead ends), ``EnergyHead`` with
``info_nce_loss`` + ``depth_regression_loss``, ``EBMTrainer`` / ``train_energy_head``, and
``EBMScorer`` (the search's StateScorer).

Names are imported lazily (on first access) so that ``import burnqed.config``, which
reads ``burnqed.ebm.config``, does not pull in torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from burnqed.lazy import lazy_exports

if TYPE_CHECKING:
    from burnqed.ebm.cache import EmbeddingCache
    from burnqed.ebm.checkpoint import HeadCheckpointMeta, load_head, save_head
    from burnqed.ebm.config import EBMConfig
    from burnqed.ebm.encoder import Encoder, HashingEncoder, PolicyEncoder
    from burnqed.ebm.errors import (
        EBMCheckpointError,
        EBMDataError,
        EBMError,
        EBMTrainingError,
        EmbeddingCacheError,
        NonFiniteLoss,
        TemperatureCollapsed,
    )
    from burnqed.ebm.head import EnergyHead, EnergyHeadConfig, GroupLoss
    from burnqed.ebm.losses import depth_regression_loss, info_nce_loss
    from burnqed.ebm.sampler import (
        ContrastiveGroup,
        ContrastiveSampler,
        NegativeKind,
        SamplerStats,
    )
    from burnqed.ebm.scorer import EBMScorer
    from burnqed.ebm.trainer import EBMTrainer, TrainReport, train_energy_head

_WHERE: dict[str, str] = {
    "ContrastiveGroup": "burnqed.ebm.sampler",
    "ContrastiveSampler": "burnqed.ebm.sampler",
    "EBMCheckpointError": "burnqed.ebm.errors",
    "EBMConfig": "burnqed.ebm.config",
    "EBMDataError": "burnqed.ebm.errors",
    "EBMError": "burnqed.ebm.errors",
    "EBMScorer": "burnqed.ebm.scorer",
    "EBMTrainer": "burnqed.ebm.trainer",
    "EBMTrainingError": "burnqed.ebm.errors",
    "EmbeddingCache": "burnqed.ebm.cache",
    "EmbeddingCacheError": "burnqed.ebm.errors",
    "Encoder": "burnqed.ebm.encoder",
    "EnergyHead": "burnqed.ebm.head",
    "EnergyHeadConfig": "burnqed.ebm.head",
    "GroupLoss": "burnqed.ebm.head",
    "HashingEncoder": "burnqed.ebm.encoder",
    "HeadCheckpointMeta": "burnqed.ebm.checkpoint",
    "NegativeKind": "burnqed.ebm.sampler",
    "NonFiniteLoss": "burnqed.ebm.errors",
    "PolicyEncoder": "burnqed.ebm.encoder",
    "SamplerStats": "burnqed.ebm.sampler",
    "TemperatureCollapsed": "burnqed.ebm.errors",
    "TrainReport": "burnqed.ebm.trainer",
    "depth_regression_loss": "burnqed.ebm.losses",
    "info_nce_loss": "burnqed.ebm.losses",
    "load_head": "burnqed.ebm.checkpoint",
    "save_head": "burnqed.ebm.checkpoint",
    "train_energy_head": "burnqed.ebm.trainer",
}

__all__ = [
    "ContrastiveGroup",
    "ContrastiveSampler",
    "EBMCheckpointError",
    "EBMConfig",
    "EBMDataError",
    "EBMError",
    "EBMScorer",
    "EBMTrainer",
    "EBMTrainingError",
    "EmbeddingCache",
    "EmbeddingCacheError",
    "Encoder",
    "EnergyHead",
    "EnergyHeadConfig",
    "GroupLoss",
    "HashingEncoder",
    "HeadCheckpointMeta",
    "NegativeKind",
    "NonFiniteLoss",
    "PolicyEncoder",
    "SamplerStats",
    "TemperatureCollapsed",
    "TrainReport",
    "depth_regression_loss",
    "info_nce_loss",
    "load_head",
    "save_head",
    "train_energy_head",
]


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
