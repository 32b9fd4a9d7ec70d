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

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.ebm.cache": ("EmbeddingCache",),
    "burnqed.ebm.checkpoint": ("HeadCheckpointMeta", "load_head", "save_head"),
    "burnqed.ebm.config": ("EBMConfig",),
    "burnqed.ebm.encoder": ("Encoder", "HashingEncoder", "PolicyEncoder"),
    "burnqed.ebm.errors": (
        "EBMCheckpointError",
        "EBMDataError",
        "EBMError",
        "EBMTrainingError",
        "EmbeddingCacheError",
        "NonFiniteLoss",
        "TemperatureCollapsed",
    ),
    "burnqed.ebm.head": ("EnergyHead", "EnergyHeadConfig", "GroupLoss"),
    "burnqed.ebm.losses": ("depth_regression_loss", "info_nce_loss"),
    "burnqed.ebm.sampler": ("ContrastiveGroup", "ContrastiveSampler", "NegativeKind", "SamplerStats"),
    "burnqed.ebm.scorer": ("EBMScorer",),
    "burnqed.ebm.trainer": ("EBMTrainer", "TrainReport", "train_energy_head"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
