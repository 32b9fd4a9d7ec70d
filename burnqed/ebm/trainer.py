"""Training the energy head on cached embeddings: AdamW, warm-up + cosine, health checks.

``train_energy_head`` is the whole job (sample groups → fill the embedding cache → train
→ checkpoint → report); ``EBMTrainer`` is the step loop it drives, usable on its own with
any tensor of groups. Output folder: the checkpoint files (see checkpoint.py),
``metrics.jsonl`` (one JSON object per step, epoch and warning) and ``report.json``.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pyarrow as pa
import torch
from pydantic import BaseModel, ConfigDict, Field
from rich.progress import Progress

from burnqed.ebm.cache import EmbeddingCache
from burnqed.ebm.checkpoint import (
    HeadCheckpointMeta,
    load_trainer_state,
    save_head,
    save_trainer_state,
)
from burnqed.ebm.config import EBMConfig
from burnqed.ebm.encoder import Encoder
from burnqed.ebm.errors import EBMCheckpointError, NonFiniteLoss, TemperatureCollapsed
from burnqed.ebm.head import EnergyHead, EnergyHeadConfig
from burnqed.ebm.sampler import ContrastiveGroup, ContrastiveSampler

__all__ = ["EBMTrainer", "TrainReport", "resolve_device", "train_energy_head"]

log = logging.getLogger(__name__)

METRICS_FILE = "metrics.jsonl"
REPORT_FILE = "report.json"


def resolve_device(name: str) -> torch.device:
    """``auto`` → the GPU when there is one, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


class TrainReport(BaseModel):
    """What one ``train_energy_head`` run did."""

    model_config = ConfigDict(frozen=True)

    output_dir: Path
    encoder_fingerprint: str
    steps: int
    epochs: int
    resumed_from_step: int
    train_groups: int
    val_groups: int
    states: int
    states_encoded: int
    final_loss: float | None
    train_top1: float
    val_top1: float | None
    temperature: float
    grad_explosions: int
    seconds: float = Field(description="whole run, sampling and encoding included")
    train_seconds: float = Field(description="optimisation steps only (embeddings cached)")
    groups_per_s: float = Field(description="contrastive groups per second of train_seconds")


class EBMTrainer:
    """The optimisation loop of one head: steps, schedule, health checks, checkpoints."""

    def __init__(
        self,
        head: EnergyHead,
        config: EBMConfig,
        output_dir: str | Path,
        *,
        encoder_fingerprint: str,
        total_steps: int,
        device: str | torch.device = "cpu",
    ) -> None:
        self.head = head.to(device)
        self.config = config
        self.output_dir = Path(output_dir)
        self.encoder_fingerprint = encoder_fingerprint
        self.total_steps = max(1, total_steps)
        self.device = torch.device(device)
        # weight decay on matrices only: decaying log_temperature would drag T back to 1
        decay = [p for p in head.parameters() if p.dim() >= 2]
        rest = [p for p in head.parameters() if p.dim() < 2]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": config.weight_decay}, {"params": rest, "weight_decay": 0.0}],
            lr=config.learning_rate,
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_factor)
        self.step = 0
        self.epoch = 0
        self.batch_in_epoch = 0
        self.grad_explosions = 0
        self._collapse_warned = False

    def _lr_factor(self, step: int) -> float:
        warmup, floor = self.config.warmup_steps, self.config.min_lr_ratio
        if step < warmup:
            return (step + 1) / (warmup + 1)
        progress = min(1.0, (step - warmup) / max(1, self.total_steps - warmup))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

    def log_metrics(self, record: dict[str, Any]) -> None:
        """Append one JSON object to metrics.jsonl."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        with (self.output_dir / METRICS_FILE).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"time": time.time(), **record}, allow_nan=True) + "\n")

    def train_step(self, groups: torch.Tensor, remaining_depth: torch.Tensor) -> dict[str, float]:
        """One optimisation step on (B, 1+K, d) groups; returns the step's metrics.

        Raises NonFiniteLoss (weights untouched) or TemperatureCollapsed (policy "stop").
        """
        c = self.config
        self.head.train()
        groups, remaining_depth = groups.to(self.device), remaining_depth.to(self.device)
        energies, loss = self.head.group_loss(
            groups, remaining_depth, depth_weight=c.depth_weight, depth_scale=c.depth_scale, nce_weight=c.nce_weight
        )
        if not torch.isfinite(loss.total):
            self.log_metrics({"event": "error", "step": self.step, "kind": "non_finite_loss"})
            raise NonFiniteLoss(f"loss is {loss.total.detach().item()}", step=self.step)
        self.optimizer.zero_grad(set_to_none=True)
        loss.total.backward()
        grad_norm = float(torch.nn.utils.clip_grad_norm_(self.head.parameters(), c.max_grad_norm))
        if not math.isfinite(grad_norm):
            self.optimizer.zero_grad(set_to_none=True)
            self.log_metrics({"event": "error", "step": self.step, "kind": "non_finite_gradient"})
            raise NonFiniteLoss(f"gradient norm is {grad_norm}", step=self.step)
        if grad_norm > c.grad_norm_warn:
            self.grad_explosions += 1
            log.warning(
                "energy head step %d: gradient norm %.3g (clipped to %g)", self.step, grad_norm, c.max_grad_norm
            )
            self.log_metrics(
                {"event": "warning", "step": self.step, "kind": "exploding_gradient", "grad_norm": grad_norm}
            )
        lr = float(self.scheduler.get_last_lr()[0])
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        temperature = self.head.temperature.detach().item()
        top1 = (energies.detach().argmin(dim=1) == 0).float().mean().item()
        metrics: dict[str, float] = {
            "loss": loss.total.detach().item(),
            "nce": loss.nce.detach().item(),
            "depth": loss.depth.detach().item(),
            "lr": lr,
            "grad_norm": grad_norm,
            "temperature": temperature,
            "top1": top1,
        }
        self.log_metrics({"event": "step", "step": self.step, "epoch": self.epoch, **metrics})
        self._check_temperature(temperature)
        return metrics

    def _check_temperature(self, temperature: float) -> None:
        if temperature >= self.config.min_temperature:
            return
        self.log_metrics(
            {"event": "warning", "step": self.step, "kind": "temperature_collapse", "temperature": temperature}
        )
        if self.config.on_temperature_collapse == "stop":
            raise TemperatureCollapsed(
                f"temperature {temperature:.3g} < min_temperature {self.config.min_temperature}", step=self.step
            )
        if not self._collapse_warned:
            self._collapse_warned = True
            log.warning("energy head temperature collapsed to %.3g at step %d", temperature, self.step)

    @torch.no_grad()
    def top1(self, groups: torch.Tensor) -> float:
        """Share of (B, 1+K, d) groups whose positive (column 0) gets the lowest energy."""
        if groups.shape[0] == 0:
            return float("nan")
        self.head.eval()
        B, G, d = groups.shape
        energies = self.head(groups.to(self.device).reshape(B * G, d)).view(B, G)  # (B, G)
        best_negative = energies[:, 1:].min(dim=1).values  # (B,)
        return float((energies[:, 0] < best_negative).float().mean())

    def state_dict(self) -> dict[str, Any]:
        """Everything a resume needs."""
        return {
            "head_config": self.head.config.model_dump(mode="json"),
            "encoder_fingerprint": self.encoder_fingerprint,
            "head": self.head.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step,
            "epoch": self.epoch,
            "batch_in_epoch": self.batch_in_epoch,
            "grad_explosions": self.grad_explosions,
            "rng": torch.get_rng_state(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state written by ``state_dict``."""
        if state.get("encoder_fingerprint") != self.encoder_fingerprint:
            raise EBMCheckpointError(
                f"checkpoint was trained on encoder {state.get('encoder_fingerprint')!r}, "
                f"not {self.encoder_fingerprint!r}; use a fresh output directory"
            )
        if EnergyHeadConfig.model_validate(state["head_config"]) != self.head.config:
            raise EBMCheckpointError("checkpoint head architecture differs from the configured one")
        self.head.load_state_dict(state["head"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.epoch = int(state["step"]), int(state["epoch"])
        self.batch_in_epoch = int(state["batch_in_epoch"])
        self.grad_explosions = int(state["grad_explosions"])
        torch.set_rng_state(state["rng"])

    def save(self) -> None:
        """Checkpoint the head (for scoring) and the training state (for resuming)."""
        meta = HeadCheckpointMeta(
            head=self.head.config,
            encoder_fingerprint=self.encoder_fingerprint,
            step=self.step,
            epoch=self.epoch,
            train_config=self.config.model_dump(mode="json"),
        )
        save_head(self.head, self.output_dir, meta)
        save_trainer_state(self.output_dir, self.state_dict())


def _gather(
    groups: Sequence[ContrastiveGroup], rows: dict[str, int], emb: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Embeddings (B, 1+K, d) and remaining depths (B,) of a batch of groups."""
    index = torch.tensor([[rows[g.positive], *(rows[n] for n in g.negatives)] for g in groups])  # (B, G)
    depth = torch.tensor([g.remaining_depth for g in groups], dtype=torch.float32)  # (B,)
    return emb[index], depth


async def train_energy_head(
    trajectory_paths: Sequence[str | Path] | str | Path | pa.Table,
    encoder: Encoder,
    output_dir: str | Path,
    config: EBMConfig | None = None,
    *,
    resume: bool = True,
    progress: Progress | None = None,
    cache_dir: str | Path | None = None,
) -> TrainReport:
    """Train (or resume training) an energy head on trajectories; checkpoints go to output_dir.

    Embeddings come from an EmbeddingCache under ``cache_dir`` (default
    ``output_dir/embeddings``), so each state is encoded once across epochs and runs.
    """
    config = config or EBMConfig()
    out = Path(output_dir)
    started = time.perf_counter()
    torch.manual_seed(config.seed)
    sampler = ContrastiveSampler(trajectory_paths, config)
    train, val = sampler.split(config.val_fraction, config.seed)
    cache = EmbeddingCache(cache_dir or out / "embeddings", encoder.fingerprint, batch_size=config.encode_batch_size)
    states = sampler.states()
    device = resolve_device(config.device)
    emb = (await cache.get_or_compute(states, encoder)).to(device)  # (N, d)
    rows = {s: i for i, s in enumerate(states)}

    head = EnergyHead(encoder.dim, config.hidden_dims, config.dropout, config.init_temperature)
    head.fit_input(emb[torch.tensor([rows[s] for s in train.states()], dtype=torch.long)])
    per_epoch = math.ceil(len(train) / config.batch_size)
    trainer = EBMTrainer(
        head, config, out, encoder_fingerprint=encoder.fingerprint, total_steps=per_epoch * config.epochs, device=device
    )
    saved = load_trainer_state(out) if resume else None
    if saved is not None:
        trainer.load_state_dict(saved)
        log.info("resuming energy-head training at step %d (epoch %d)", trainer.step, trainer.epoch)
        trainer.log_metrics({"event": "resume", "step": trainer.step, "epoch": trainer.epoch})
    resumed_from = trainer.step
    val_groups = val.groups(0) if val is not None else []

    def ranked_first(groups: list[ContrastiveGroup]) -> float | None:
        """top1 over many groups, gathered a chunk at a time (embeddings can be large)."""
        if not groups:
            return None
        chunk = 256
        wins = sum(
            trainer.top1(_gather(groups[i : i + chunk], rows, emb)[0]) * len(groups[i : i + chunk])
            for i in range(0, len(groups), chunk)
        )
        return wins / len(groups)

    task = (
        progress.add_task("energy head", total=per_epoch * config.epochs, completed=trainer.step) if progress else None
    )

    metrics: dict[str, float] = {}
    trained, train_s = 0, 0.0
    while trainer.epoch < config.epochs:
        groups = train.groups(trainer.epoch)
        top1_sum, top1_n = 0.0, 0
        for b in range(trainer.batch_in_epoch, per_epoch):
            batch = groups[b * config.batch_size : (b + 1) * config.batch_size]
            step_start = time.perf_counter()
            metrics = trainer.train_step(*_gather(batch, rows, emb))
            train_s += time.perf_counter() - step_start
            top1_sum, top1_n = top1_sum + metrics["top1"] * len(batch), top1_n + len(batch)
            trained += len(batch)
            trainer.batch_in_epoch = b + 1
            if config.checkpoint_every and trainer.step % config.checkpoint_every == 0:
                trainer.save()
            if progress is not None and task is not None:
                progress.update(task, advance=1)
            # a step takes milliseconds: yield after each, so a cancellation (SIGTERM) and the
            # server's other requests get through between steps
            await anyio.sleep(0)
        trainer.epoch += 1
        trainer.batch_in_epoch = 0
        val_top1 = ranked_first(val_groups)
        trainer.log_metrics(
            {
                "event": "epoch",
                "step": trainer.step,
                "epoch": trainer.epoch,
                "train_top1": top1_sum / max(1, top1_n),
                "val_top1": val_top1,
            }
        )
        trainer.save()

    elapsed = time.perf_counter() - started
    report = TrainReport(
        output_dir=out,
        encoder_fingerprint=encoder.fingerprint,
        steps=trainer.step,
        epochs=trainer.epoch,
        resumed_from_step=resumed_from,
        train_groups=len(train),
        val_groups=len(val_groups),
        states=len(states),
        states_encoded=cache.computed,
        final_loss=metrics.get("loss"),
        train_top1=ranked_first(train.groups(0)) or 0.0,
        val_top1=ranked_first(val_groups),
        temperature=trainer.head.temperature.detach().item(),
        grad_explosions=trainer.grad_explosions,
        seconds=elapsed,
        train_seconds=train_s,
        groups_per_s=trained / train_s if train_s > 0 else 0.0,
    )
    (out / REPORT_FILE).write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return report
