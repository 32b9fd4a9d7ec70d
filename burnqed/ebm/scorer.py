"""Batched energies for proof states: the search's ``StateScorer`` backed by a trained head."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
import torch

from burnqed.ebm.cache import EmbeddingCache
from burnqed.ebm.checkpoint import load_head
from burnqed.ebm.config import EBMConfig
from burnqed.ebm.encoder import Encoder
from burnqed.ebm.errors import EBMCheckpointError
from burnqed.ebm.head import EnergyHead
from burnqed.ebm.trainer import resolve_device

__all__ = ["EBMScorer"]


class EBMScorer:
    """Encodes states and runs the energy head in batches; lower energy = more provable."""

    def __init__(
        self,
        head: EnergyHead,
        encoder: Encoder,
        *,
        batch_size: int = 64,
        cache: EmbeddingCache | None = None,
        device: str | torch.device = "cpu",
    ) -> None:
        if head.config.dim != encoder.dim:
            raise EBMCheckpointError(f"head expects {head.config.dim}-dim embeddings, encoder gives {encoder.dim}")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.device = torch.device(device)
        self.head = head.to(self.device).eval()
        self.encoder = encoder
        self.batch_size = batch_size
        self.cache = cache

    @classmethod
    def load(
        cls,
        ckpt_dir: str | Path,
        encoder: Encoder,
        *,
        batch_size: int = 64,
        cache: EmbeddingCache | None = None,
        device: str = "auto",
        strict_fingerprint: bool = True,
    ) -> EBMScorer:
        """A scorer from a checkpoint folder; the encoder must be the one it was trained on."""
        dev = resolve_device(device)
        head, meta = load_head(ckpt_dir, dev)
        if strict_fingerprint and meta.encoder_fingerprint != encoder.fingerprint:
            raise EBMCheckpointError(
                f"{ckpt_dir} was trained on encoder {meta.encoder_fingerprint!r}, not {encoder.fingerprint!r}: "
                "search with the policy it was trained on (--model, or --policy none for the hashing encoder) "
                "or retrain it with `burnqed train-ebm`"
            )
        return cls(head, encoder, batch_size=batch_size, cache=cache, device=dev)

    @classmethod
    def from_config(
        cls, ckpt_dir: str | Path, encoder: Encoder, config: EBMConfig, *, cache: EmbeddingCache | None = None
    ) -> EBMScorer:
        """``load`` with the batch size and device of ``config`` (``ebm.score_batch_size``, ``ebm.device``)."""
        return cls.load(ckpt_dir, encoder, batch_size=config.score_batch_size, cache=cache, device=config.device)

    @torch.no_grad()
    def score_embeddings(self, emb: torch.Tensor) -> torch.Tensor:
        """Energies (N,) of embeddings (N, d), computed batch_size rows at a time, on the CPU."""
        out = [
            self.head(emb[i : i + self.batch_size].to(self.device, torch.float32)).float().cpu()  # (b,)
            for i in range(0, emb.shape[0], self.batch_size)
        ]
        return torch.cat(out) if out else torch.zeros(0)

    async def score(self, states: Sequence[str]) -> list[float]:
        """One energy per state, in order."""
        energies: list[float] = []
        for i in range(0, len(states), self.batch_size):
            batch = list(states[i : i + self.batch_size])
            if self.cache is not None:
                emb = await self.cache.get_or_compute(batch, self.encoder)
            else:
                emb = await self.encoder.encode(batch)  # (b, d)
            energies += self.score_embeddings(emb).tolist()
            await anyio.lowlevel.checkpoint()
        return energies
