"""Embeddings computed once per (encoder fingerprint, state), kept in Parquet.

Layout under the cache root: one folder per encoder (named by a hash of its fingerprint)
with ``meta.json`` (fingerprint, dim) and ``part-*.parquet`` shards (columns ``state``,
``embedding`` as fixed-size float32 lists). Each call that computes something adds one
shard, written to a temporary name and renamed, so a crash never leaves half a file and
the same root serves every epoch and every expert iteration.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from burnqed.ebm.encoder import Encoder
from burnqed.ebm.errors import EmbeddingCacheError

__all__ = ["EmbeddingCache"]

log = logging.getLogger(__name__)


class EmbeddingCache:
    """A Parquet-backed map from state text to embedding for one encoder fingerprint."""

    def __init__(self, path: str | Path, fingerprint: str, *, batch_size: int = 64) -> None:
        if not fingerprint:
            raise EmbeddingCacheError("an embedding cache needs a non-empty encoder fingerprint")
        self.root = Path(path)
        self.fingerprint = fingerprint
        self.batch_size = batch_size
        self.dir = self.root / hashlib.sha256(fingerprint.encode()).hexdigest()[:16]
        self.dim: int | None = None
        self._index: dict[str, int] = {}
        self._matrix = torch.zeros(0, 0)  # (N, d)
        self.computed = 0  # states encoded by this object (for reuse checks and logs)
        self._load()

    def _load(self) -> None:
        meta_path = self.dir / "meta.json"
        if not meta_path.is_file():
            return
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise EmbeddingCacheError(f"unreadable cache metadata {meta_path}: {exc}") from exc
        if meta.get("fingerprint") != self.fingerprint:
            raise EmbeddingCacheError(f"{self.dir} belongs to encoder {meta.get('fingerprint')!r}")
        self.dim = int(meta["dim"])
        chunks: list[torch.Tensor] = []
        states: list[str] = []
        for shard in sorted(self.dir.glob("part-*.parquet")):
            try:
                table = pq.read_table(shard)
            except (OSError, pa.ArrowInvalid) as exc:
                raise EmbeddingCacheError(f"unreadable cache shard {shard}: {exc}") from exc
            flat = table["embedding"].combine_chunks().flatten().to_numpy()
            chunks.append(torch.from_numpy(flat.reshape(-1, self.dim).copy()))
            states += table["state"].to_pylist()
        self._matrix = torch.cat(chunks) if chunks else torch.zeros(0, self.dim)
        for row, state in enumerate(states):
            self._index.setdefault(state, row)

    def __len__(self) -> int:
        """Number of cached states."""
        return len(self._index)

    def __contains__(self, state: object) -> bool:
        """Whether ``state`` has a cached embedding."""
        return state in self._index

    def lookup(self, states: Sequence[str]) -> torch.Tensor:
        """Cached embeddings (len(states), d); a missing state is an EmbeddingCacheError."""
        missing = [s for s in states if s not in self._index]
        if missing:
            raise EmbeddingCacheError(f"{len(missing)} states are not cached, e.g. {missing[0][:80]!r}")
        rows = torch.tensor([self._index[s] for s in states], dtype=torch.long)
        return self._matrix.index_select(0, rows) if len(states) else torch.zeros(0, self.dim or 0)

    async def get_or_compute(self, states: Sequence[str], encoder: Encoder) -> torch.Tensor:
        """Embeddings (len(states), d), encoding (in batches) and persisting only unseen states."""
        if encoder.fingerprint != self.fingerprint:
            raise EmbeddingCacheError(
                f"encoder {encoder.fingerprint!r} does not match cache fingerprint {self.fingerprint!r}"
            )
        if self.dim is not None and encoder.dim != self.dim:
            raise EmbeddingCacheError(f"encoder dim {encoder.dim} != cached dim {self.dim}")
        todo = [s for s in dict.fromkeys(states) if s not in self._index]
        if todo:
            parts = []
            for start in range(0, len(todo), self.batch_size):
                batch = todo[start : start + self.batch_size]
                emb = (await encoder.encode(batch)).detach().to("cpu", torch.float32)  # (b, d)
                if emb.shape != (len(batch), encoder.dim):
                    raise EmbeddingCacheError(f"encoder returned {tuple(emb.shape)} for {len(batch)} states")
                parts.append(emb)
            self._add(todo, torch.cat(parts))
        return self.lookup(states)

    def _add(self, states: list[str], emb: torch.Tensor) -> None:
        dim = emb.shape[1]
        self.dir.mkdir(parents=True, exist_ok=True)
        if self.dim is None:
            self.dim = dim
            _atomic_write_text(self.dir / "meta.json", json.dumps({"fingerprint": self.fingerprint, "dim": dim}))
        values = pa.array(emb.numpy().astype(np.float32).reshape(-1))
        table = pa.table(
            {"state": pa.array(states, pa.string()), "embedding": pa.FixedSizeListArray.from_arrays(values, dim)}
        )
        name = f"part-{time.time_ns():020d}-{os.getpid()}.parquet"
        tmp = self.dir / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.dir / name)
        base = self._matrix.shape[0] if self._matrix.numel() else 0
        self._matrix = torch.cat([self._matrix.reshape(base, dim), emb])
        for offset, state in enumerate(states):
            self._index[state] = base + offset
        self.computed += len(states)
        log.info("embedding cache %s: +%d states (%d total)", self.dir, len(states), len(self._index))


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
