"""The scorer: batched energies equal one-at-a-time energies; checkpoints must fit the encoder."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
import torch

from burnqed.ebm import (
    EBMCheckpointError,
    EBMConfig,
    EBMScorer,
    EmbeddingCache,
    EnergyHead,
    HashingEncoder,
    HeadCheckpointMeta,
    save_head,
)
from burnqed.search.protocols import StateScorer

pytestmark = pytest.mark.usefixtures("torch_single_thread")

STATES = [f"x : ℕ\n⊢ x + {i} = {i} + x" for i in range(7)] + ["⊢ False", "no goals", "⊢ 1 < 0"]


def _head(dim: int = 24) -> EnergyHead:
    torch.manual_seed(0)
    head = EnergyHead(dim, hidden=(16, 8), dropout=0.5)  # dropout must be off when scoring
    head.train()
    for _ in range(5):  # move the spectral-norm vectors off their initial values
        head(torch.randn(4, dim))
    return head


@pytest.mark.anyio
async def test_batched_scores_equal_one_by_one_scores() -> None:
    encoder = HashingEncoder(dim=24)
    batched = EBMScorer(_head(), encoder, batch_size=4)
    with anyio.fail_after(10):
        together = await batched.score(STATES)
        batched.batch_size = 1
        alone = [(await batched.score([s]))[0] for s in STATES]
    assert len(together) == len(STATES)
    assert together == pytest.approx(alone, abs=1e-6)
    assert isinstance(batched, StateScorer)


@pytest.mark.anyio
async def test_loaded_scorer_reproduces_the_saved_head(tmp_path: Path) -> None:
    encoder = HashingEncoder(dim=24)
    head = _head()
    save_head(head, tmp_path, HeadCheckpointMeta(head=head.config, encoder_fingerprint=encoder.fingerprint))
    cache = EmbeddingCache(tmp_path / "emb", encoder.fingerprint)
    with anyio.fail_after(10):
        loaded = await EBMScorer.load(tmp_path, encoder, batch_size=3, cache=cache, device="cpu").score(STATES)
        original = await EBMScorer(head, encoder).score(STATES)
    assert loaded == pytest.approx(original, abs=1e-6)  # batch 3 vs 64: only float rounding differs
    assert len(cache) == len(STATES)
    configured = EBMScorer.from_config(tmp_path, encoder, EBMConfig(score_batch_size=5, device="cpu"))
    assert configured.batch_size == 5


def test_checkpoint_for_another_encoder_is_refused(tmp_path: Path) -> None:
    head = _head()
    save_head(head, tmp_path, HeadCheckpointMeta(head=head.config, encoder_fingerprint="some-policy@abc"))
    with pytest.raises(EBMCheckpointError, match="some-policy@abc"):
        EBMScorer.load(tmp_path, HashingEncoder(dim=24), device="cpu")
    with pytest.raises(EBMCheckpointError, match="24-dim"):
        EBMScorer.load(tmp_path, HashingEncoder(dim=12), device="cpu", strict_fingerprint=False)


def test_missing_checkpoint_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(EBMCheckpointError, match="train-ebm"):
        EBMScorer.load(tmp_path / "nothing", HashingEncoder(dim=8), device="cpu")


def test_corrupt_weights_are_a_checkpoint_error(tmp_path: Path) -> None:
    head = _head()
    save_head(head, tmp_path, HeadCheckpointMeta(head=head.config, encoder_fingerprint="fp"))
    (tmp_path / "head.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(EBMCheckpointError, match="do not fit|does not match its hash"):
        EBMScorer.load(tmp_path, HashingEncoder(dim=24), device="cpu", strict_fingerprint=False)
