"""Errors of the energy head.

EBMError
 ├── EBMDataError            the trajectories cannot form a single contrastive group
 ├── EBMCheckpointError      a checkpoint is missing, unreadable or does not fit the encoder
 ├── EmbeddingCacheError     a cache belongs to another encoder or is unreadable
 └── EBMTrainingError        training stopped on a failed health check
      ├── NonFiniteLoss      the loss became NaN or infinite
      └── TemperatureCollapsed  the learned temperature fell below its floor (policy "stop")

Exploding gradients are not an error: they are clipped, logged and counted in the metrics.
"""

from __future__ import annotations

__all__ = [
    "EBMCheckpointError",
    "EBMDataError",
    "EBMError",
    "EBMTrainingError",
    "EmbeddingCacheError",
    "NonFiniteLoss",
    "TemperatureCollapsed",
]


class EBMError(Exception):
    """Base class of every error raised by burnqed.ebm."""


class EBMDataError(EBMError):
    """The trajectories hold no usable positive/negative pairs."""


class EBMCheckpointError(EBMError):
    """A checkpoint is missing, unreadable, or built for another encoder."""


class EmbeddingCacheError(EBMError):
    """An embedding cache is unreadable or was filled by a different encoder."""


class EBMTrainingError(EBMError):
    """Training stopped because a health check failed."""

    def __init__(self, message: str, *, step: int) -> None:
        super().__init__(f"step {step}: {message}")
        self.step = step


class NonFiniteLoss(EBMTrainingError):
    """The loss is NaN or infinite; no weights were saved from this step."""


class TemperatureCollapsed(EBMTrainingError):
    """The learned InfoNCE temperature fell below ``EBMConfig.min_temperature``."""
