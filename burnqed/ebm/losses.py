"""Losses of the energy head: InfoNCE over contrastive groups and remaining-depth regression."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["depth_regression_loss", "info_nce_loss"]


def info_nce_loss(energies: torch.Tensor, temperature: torch.Tensor | float) -> torch.Tensor:
    """Mean InfoNCE loss of groups whose column 0 is the positive.

    energies: (B, 1 + K); logits are ``-energy / temperature`` (lower energy = more likely).
    """
    logits = -energies / temperature  # (B, 1 + K)
    target = torch.zeros(energies.shape[0], dtype=torch.long, device=energies.device)  # (B,)
    return F.cross_entropy(logits, target)


def depth_regression_loss(energies: torch.Tensor, remaining_depth: torch.Tensor, *, scale: float = 0.1) -> torch.Tensor:
    """Mean squared error between positives' energies and ``scale * remaining_depth``.

    InfoNCE only fixes energy differences inside a group; this anchors the absolute level so
    that a state two steps from the end scores lower than one ten steps away.
    energies, remaining_depth: (B,).
    """
    target = scale * remaining_depth.to(energies.dtype)  # (B,)
    return F.mse_loss(energies, target)
