"""Encoders: the hashing encoder and the adapter over the policy model."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest
import torch

from burnqed.ebm import Encoder, HashingEncoder, PolicyEncoder

pytestmark = pytest.mark.usefixtures("torch_single_thread")


@pytest.mark.anyio
async def test_hashing_encoder_is_deterministic_and_normalised() -> None:
    enc = HashingEncoder(dim=64)
    with anyio.fail_after(10):
        a = await enc.encode(["⊢ a + b = b + a", "⊢ False"])
        b = await enc.encode(["⊢ False"])
    assert a.shape == (2, 64) and torch.equal(a[1], b[0])
    assert torch.allclose(a.norm(dim=1), torch.ones(2))
    assert not torch.equal(a[0], a[1])
    assert isinstance(enc, Encoder)
    assert enc.fingerprint != HashingEncoder(dim=32).fingerprint


def test_hashing_encoder_is_rebuilt_from_its_fingerprint() -> None:
    enc = HashingEncoder.from_fingerprint(HashingEncoder(dim=48, ngram=4).fingerprint)
    assert enc is not None and (enc.dim, enc.ngram) == (48, 4)
    assert HashingEncoder.from_fingerprint("tiny-llama@1234") is None


class _AsyncSource:
    fingerprint = "svc"
    hidden_size = 3

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        return torch.ones(len(states), 3, dtype=torch.float64)


@pytest.mark.anyio
async def test_policy_encoder_accepts_async_sources_and_returns_float32() -> None:
    enc = PolicyEncoder(_AsyncSource())
    with anyio.fail_after(10):
        out = await enc.encode(["a", "b"])
    assert (enc.fingerprint, enc.dim) == ("svc", 3)
    assert out.dtype == torch.float32 and out.shape == (2, 3)


def test_policy_encoder_needs_a_fingerprint() -> None:
    with pytest.raises(ValueError, match="fingerprint"):
        PolicyEncoder(object(), dim=4)


@pytest.mark.anyio
async def test_head_trains_on_the_real_tiny_policy_embeddings(tmp_path, tiny_policy) -> None:  # type: ignore[no-untyped-def]
    from burnqed.ebm import EBMConfig, EBMScorer, train_energy_head
    from burnqed.ebm.synthetic import synthetic_trajectories

    encoder = PolicyEncoder(tiny_policy)
    assert encoder.dim == tiny_policy.hidden_size
    config = EBMConfig(hidden_dims=[32], epochs=1, batch_size=8, num_negatives=3, val_fraction=0.0)
    with anyio.fail_after(120):
        report = await train_energy_head(synthetic_trajectories(4, seed=0), encoder, tmp_path / "ckpt", config)
        scorer = EBMScorer.load(tmp_path / "ckpt", encoder, batch_size=2, device="cpu")
        states = ["x : ℕ\n⊢ x + 1 = 1 + x", "⊢ False", "no goals"]
        batched = await scorer.score(states)
        single = [(await scorer.score([s]))[0] for s in states]
    assert report.states_encoded == report.states
    assert batched == pytest.approx(single, abs=1e-4)
