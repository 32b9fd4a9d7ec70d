"""What the energy head reads: an ``Encoder`` turns proof states into fixed-size vectors.

The policy model is the real encoder (mean-pooled hidden states); ``HashingEncoder`` is a
small deterministic one (hashed character n-grams) for tests, benchmarks and demos, and
``PolicyEncoder`` adapts anything with an ``encode`` method (a ``PolicyModel`` or a
``GenerationService``) to the protocol.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import anyio
import torch

__all__ = ["Encoder", "HashingEncoder", "PolicyEncoder"]


@runtime_checkable
class Encoder(Protocol):
    """Embeds proof states; equal fingerprints promise equal vectors for equal states."""

    fingerprint: str
    dim: int

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """A float tensor of shape (len(states), dim)."""
        ...


class HashingEncoder:
    """Bag of hashed character n-grams (signed feature hashing), L2-normalised."""

    def __init__(self, dim: int = 256, ngram: int = 3) -> None:
        if dim < 1 or ngram < 1:
            raise ValueError("dim and ngram must be positive")
        self.dim = dim
        self.ngram = ngram
        self.fingerprint = f"hashing-ngram/v1/n={ngram}/dim={dim}"

    @classmethod
    def from_fingerprint(cls, fingerprint: str) -> HashingEncoder | None:
        """The hashing encoder that has this fingerprint, or None if it names another encoder."""
        parts = dict(p.split("=", 1) for p in fingerprint.split("/")[2:] if "=" in p)
        if not fingerprint.startswith("hashing-ngram/v1/") or set(parts) != {"n", "dim"}:
            return None
        try:
            return cls(dim=int(parts["dim"]), ngram=int(parts["n"]))
        except ValueError:
            return None

    def _vector(self, state: str) -> torch.Tensor:
        vec = torch.zeros(self.dim)
        text = f"\x02{state}\x03"  # boundary marks make short states distinct
        for i in range(max(1, len(text) - self.ngram + 1)):
            digest = hashlib.blake2b(text[i : i + self.ngram].encode(), digest_size=8).digest()
            code = int.from_bytes(digest, "little")
            vec[code % self.dim] += 1.0 if (code >> 63) & 1 else -1.0
        norm = vec.norm()
        return vec / norm if norm > 0 else vec

    def encode_sync(self, states: Sequence[str]) -> torch.Tensor:
        """Embed states without an event loop: (B, dim)."""
        if not states:
            return torch.zeros(0, self.dim)
        return torch.stack([self._vector(s) for s in states])

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """Embed states: (B, dim)."""
        await anyio.lowlevel.checkpoint()
        return self.encode_sync(states)


class PolicyEncoder:
    """Adapts an object with ``encode(states)`` (sync or async) to the Encoder protocol.

    ``fingerprint`` and ``dim`` default to the source's ``fingerprint`` and ``hidden_size``
    attributes (as on ``burnqed.policy.PolicyModel``). A synchronous source runs on the
    calling task: fine for the CLI and training, where nothing else waits on the loop.
    """

    def __init__(self, source: Any, *, fingerprint: str | None = None, dim: int | None = None) -> None:
        fp = fingerprint if fingerprint is not None else getattr(source, "fingerprint", None)
        size = dim if dim is not None else getattr(source, "hidden_size", None)
        if not isinstance(fp, str) or not fp:
            raise ValueError("the encoder source has no fingerprint; pass fingerprint=...")
        if not isinstance(size, int) or size < 1:
            raise ValueError("the encoder source has no hidden_size; pass dim=...")
        self.source = source
        self.fingerprint = fp
        self.dim = size

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """Embed states with the source: (B, dim) float32 on the CPU."""
        result = self.source.encode(list(states))
        if inspect.isawaitable(result):
            result = await result
        else:
            await anyio.lowlevel.checkpoint()
        # clone: a tensor made under inference_mode cannot take part in autograd later
        return torch.as_tensor(result).detach().to("cpu", torch.float32).clone()
