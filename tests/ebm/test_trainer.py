"""Training: learning works, checkpoints round-trip, resume continues, health checks fire."""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
import torch
from rich.progress import Progress, TaskID

from burnqed.ebm import (
    ContrastiveSampler,
    EBMCheckpointError,
    EBMConfig,
    EBMScorer,
    EBMTrainer,
    EnergyHead,
    HashingEncoder,
    NonFiniteLoss,
    TemperatureCollapsed,
    load_head,
    train_energy_head,
)
from burnqed.ebm.synthetic import synthetic_trajectories, write_synthetic_trajectories

pytestmark = pytest.mark.usefixtures("torch_single_thread")


class _InterruptAfter(Progress):
    """A progress bar whose user presses Ctrl-C after ``n`` steps."""

    def __init__(self, n: int) -> None:
        super().__init__(disable=True)
        self.n = n

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        if self.tasks[0].completed >= self.n:
            raise KeyboardInterrupt


@pytest.mark.anyio
async def test_trained_head_ranks_held_out_positives_first(tmp_path: Path) -> None:
    train_file = write_synthetic_trajectories(tmp_path / "train.parquet", 60, seed=1)
    held_out = synthetic_trajectories(20, seed=2, prefix="held")
    config = EBMConfig(epochs=6, batch_size=16, warmup_steps=5, val_fraction=0.0, seed=0)
    encoder = HashingEncoder(dim=256)
    with anyio.fail_after(120):
        report = await train_energy_head([train_file], encoder, tmp_path / "ckpt", config)
        scorer = EBMScorer.load(tmp_path / "ckpt", encoder, device="cpu")
        groups = ContrastiveSampler(held_out, config).groups(0)
        wins = 0
        for g in groups:
            energies = await scorer.score([g.positive, *g.negatives])
            wins += energies[0] < min(energies[1:])
    assert report.steps > 0 and report.final_loss is not None
    assert wins / len(groups) >= 0.9, f"positive ranked first in {wins}/{len(groups)} held-out groups"


@pytest.mark.anyio
async def test_checkpoint_round_trip_gives_the_same_energies(
    tmp_path: Path, synthetic_trajectory_file: Path, ebm_config: EBMConfig
) -> None:
    encoder = HashingEncoder(dim=32)
    with anyio.fail_after(60):
        report = await train_energy_head(synthetic_trajectory_file, encoder, tmp_path / "ckpt", ebm_config)
    head, meta = load_head(tmp_path / "ckpt")
    assert meta.encoder_fingerprint == encoder.fingerprint and meta.step == report.steps
    assert meta.head.hidden == (64, 32) and meta.train_config["num_negatives"] == 4
    # the trainer's final head, evaluated the same way, gives identical energies
    state = torch.load(tmp_path / "ckpt" / "trainer_state.pt", weights_only=True)
    original = EnergyHead(32, hidden=(64, 32), dropout=0.0)
    original.load_state_dict(state["head"])
    original.eval()
    emb = encoder.encode_sync(["⊢ x + 1 = 1 + x", "⊢ False", "no goals"])
    with torch.no_grad():
        assert torch.equal(head(emb), original(emb))
    lines = (tmp_path / "ckpt" / "metrics.jsonl").read_text().splitlines()
    events = [json.loads(line)["event"] for line in lines]
    assert events.count("step") == report.steps and events.count("epoch") == 2


@pytest.mark.anyio
async def test_resume_continues_from_the_saved_step(
    tmp_path: Path, synthetic_trajectory_file: Path, ebm_config: EBMConfig
) -> None:
    encoder = HashingEncoder(dim=32)
    out = tmp_path / "ckpt"
    with anyio.fail_after(60):
        first = await train_energy_head(synthetic_trajectory_file, encoder, out, ebm_config)
        more = ebm_config.model_copy(update={"epochs": 4})
        second = await train_energy_head(synthetic_trajectory_file, encoder, out, more)
    per_epoch = first.steps // 2
    assert first.resumed_from_step == 0
    assert second.resumed_from_step == first.steps
    assert second.steps == 4 * per_epoch and second.epochs == 4
    assert second.states_encoded == 0  # the embedding cache in the output folder was reused
    steps = [
        json.loads(x)["step"]
        for x in (out / "metrics.jsonl").read_text().splitlines()
        if '"step"' in x and '"event": "step"' in x
    ]
    assert steps == list(range(1, 4 * per_epoch + 1))  # no step repeated or skipped


@pytest.mark.anyio
async def test_interrupted_run_resumes_mid_epoch_without_repeating_steps(
    tmp_path: Path, synthetic_trajectory_file: Path, ebm_config: EBMConfig
) -> None:
    encoder = HashingEncoder(dim=32)
    out = tmp_path / "ckpt"
    config = ebm_config.model_copy(update={"checkpoint_every": 1, "batch_size": 4})
    with anyio.fail_after(60):
        with pytest.raises(KeyboardInterrupt):
            await train_energy_head(synthetic_trajectory_file, encoder, out, config, progress=_InterruptAfter(3))
        report = await train_energy_head(synthetic_trajectory_file, encoder, out, config)
    assert report.resumed_from_step == 3
    events = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    steps = [e["step"] for e in events if e["event"] == "step"]
    assert steps == list(range(1, report.steps + 1))
    assert [e["step"] for e in events if e["event"] == "resume"] == [3]


@pytest.mark.anyio
async def test_resume_with_another_encoder_is_refused(
    tmp_path: Path, synthetic_trajectory_file: Path, ebm_config: EBMConfig
) -> None:
    with anyio.fail_after(60):
        await train_energy_head(synthetic_trajectory_file, HashingEncoder(dim=32), tmp_path / "c", ebm_config)
        with pytest.raises(EBMCheckpointError, match="encoder"):
            await train_energy_head(
                synthetic_trajectory_file, HashingEncoder(dim=32, ngram=4), tmp_path / "c", ebm_config
            )


def _trainer(tmp_path: Path, **overrides: object) -> EBMTrainer:
    config = EBMConfig(hidden_dims=[8], dropout=0.0, **overrides)
    head = EnergyHead(4, hidden=(8,), dropout=0.0, init_temperature=config.init_temperature)
    return EBMTrainer(head, config, tmp_path, encoder_fingerprint="fp", total_steps=10)


def test_nan_loss_stops_training_with_a_typed_error(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    before = {k: v.clone() for k, v in trainer.head.state_dict().items()}
    groups = torch.randn(2, 3, 4)
    groups[0, 1, 0] = float("nan")
    with pytest.raises(NonFiniteLoss, match="step 0"):
        trainer.train_step(groups, torch.zeros(2))
    after = trainer.head.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in ("mlp.0.bias", "log_temperature"))
    assert '"non_finite_loss"' in (tmp_path / "metrics.jsonl").read_text()


def test_collapsing_temperature_stops_or_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    stopper = _trainer(tmp_path / "a", init_temperature=0.005)
    with pytest.raises(TemperatureCollapsed):
        stopper.train_step(torch.randn(2, 3, 4), torch.zeros(2))
    warner = _trainer(tmp_path / "b", init_temperature=0.005, on_temperature_collapse="warn")
    with caplog.at_level(logging.WARNING, logger="burnqed.ebm.trainer"):
        warner.train_step(torch.randn(2, 3, 4), torch.zeros(2))
        warner.train_step(torch.randn(2, 3, 4), torch.zeros(2))
    assert sum("temperature collapsed" in r.getMessage() for r in caplog.records) == 1


def test_exploding_gradients_are_clipped_and_counted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    trainer = _trainer(tmp_path, grad_norm_warn=1e-9, max_grad_norm=0.5)
    with caplog.at_level(logging.WARNING, logger="burnqed.ebm.trainer"):
        metrics = trainer.train_step(torch.randn(4, 3, 4) * 10, torch.full((4,), 3.0))
    assert trainer.grad_explosions == 1 and metrics["grad_norm"] > 1e-9
    assert any("gradient norm" in r.getMessage() for r in caplog.records)


def test_learning_rate_warms_up_then_decays(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path, warmup_steps=3, learning_rate=1.0, min_lr_ratio=0.1)
    factors = [trainer._lr_factor(s) for s in range(12)]
    assert factors[0] < factors[1] < factors[2] < factors[3] == pytest.approx(1.0)
    assert all(a >= b for a, b in itertools.pairwise(factors[3:]))
    assert factors[-1] == pytest.approx(0.1)
