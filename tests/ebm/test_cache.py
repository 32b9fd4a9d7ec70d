"""The embedding cache: computed once per (encoder, state), persisted in Parquet, reused."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
import pyarrow.parquet as pq
import pytest
import torch

from burnqed.ebm import EmbeddingCache, EmbeddingCacheError, HashingEncoder


class CountingEncoder(HashingEncoder):
    """The hashing encoder, counting the states it is asked to encode."""

    def __init__(self, dim: int = 32) -> None:
        super().__init__(dim=dim)
        self.calls = 0
        self.encoded: list[str] = []

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        self.calls += 1
        self.encoded += list(states)
        return await super().encode(states)


@pytest.mark.anyio
async def test_second_call_computes_nothing_and_returns_the_same_vectors(tmp_path: Path) -> None:
    enc = CountingEncoder()
    cache = EmbeddingCache(tmp_path, enc.fingerprint, batch_size=2)
    states = ["⊢ a", "⊢ b", "⊢ a", "⊢ c"]
    with anyio.fail_after(10):
        first = await cache.get_or_compute(states, enc)
        assert first.shape == (4, 32)
        assert sorted(enc.encoded) == ["⊢ a", "⊢ b", "⊢ c"]  # duplicates encoded once
        assert enc.calls == 2  # batches of 2
        second = await cache.get_or_compute(list(reversed(states)), enc)
    assert enc.calls == 2
    assert torch.equal(second, first.flip(0))
    assert torch.equal(first[0], enc.encode_sync(["⊢ a"])[0])


@pytest.mark.anyio
async def test_a_new_cache_object_reads_the_parquet_shards(tmp_path: Path) -> None:
    enc = CountingEncoder()
    with anyio.fail_after(10):
        first = await EmbeddingCache(tmp_path, enc.fingerprint).get_or_compute(["x", "y"], enc)
        reopened = EmbeddingCache(tmp_path, enc.fingerprint)
        assert len(reopened) == 2 and "x" in reopened
        again = await reopened.get_or_compute(["y", "x", "z"], enc)
    assert enc.encoded == ["x", "y", "z"]
    assert torch.equal(again[:2], first.flip(0))
    shards = sorted(reopened.dir.glob("part-*.parquet"))
    assert len(shards) == 2
    table = pq.read_table(shards[0])
    assert table.column_names == ["state", "embedding"] and table.num_rows == 2


@pytest.mark.anyio
async def test_encoders_with_other_fingerprints_never_share_vectors(tmp_path: Path) -> None:
    a, b = HashingEncoder(dim=16), HashingEncoder(dim=16, ngram=2)
    cache = EmbeddingCache(tmp_path, a.fingerprint)
    with anyio.fail_after(10):
        await cache.get_or_compute(["s"], a)
        with pytest.raises(EmbeddingCacheError, match="does not match"):
            await cache.get_or_compute(["s"], b)
        other = EmbeddingCache(tmp_path, b.fingerprint)  # same root, its own folder
        assert len(other) == 0 and other.dir != cache.dir


def test_lookup_of_an_uncached_state_is_an_error(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, "fp")
    with pytest.raises(EmbeddingCacheError, match="not cached"):
        cache.lookup(["nope"])
