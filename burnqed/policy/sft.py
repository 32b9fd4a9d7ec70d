"""Supervised fine-tuning of the policy on (state, tactic) pairs.

Each example is the model's prompt for the state followed by the tactic in the model's
answer format and EOS; only the answer tokens carry loss. Small models are fine-tuned
whole; ``SFTConfig.lora`` trains LoRA adapters through peft (extra ``lora``) and merges
them on save, so the output is always a plain loadable model directory.
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from burnqed.files import saving, write_checksums
from burnqed.policy.config import PolicyConfig, SFTConfig
from burnqed.policy.errors import PolicyLoadError, SFTError
from burnqed.policy.model import WEIGHT_SUFFIXES, PolicyModel
from burnqed.policy.prompts import completion_text, format_prompt

__all__ = ["SAVE_WAY_OUT", "SFTConfig", "SFTReport", "load_pairs", "sft_policy"]

SAVE_WAY_OUT = ("nothing was kept of this save and the earlier checkpoints are untouched: free space and run the "
                "same command again (burnqed iterate and the coordinator resume at this step)")

log = logging.getLogger(__name__)


class SFTReport(BaseModel):
    """What a fine-tuning run did: sizes, the loss curve, where the model went."""

    model_config = ConfigDict(frozen=True)

    base_dir: str
    output_dir: str
    num_pairs: int
    epochs: int
    steps: int
    lora: bool
    loss_curve: list[tuple[int, float]]  # (step, mean loss since the previous point)
    epoch_losses: list[float]
    seconds: float

    @property
    def final_loss(self) -> float:
        """Mean loss of the last epoch."""
        return self.epoch_losses[-1]


def load_pairs(path: str | Path) -> list[tuple[str, str]]:
    """(state, tactic) pairs from JSON Lines (``state``, ``tactic``) or trajectory Parquet (proof paths)."""
    path = Path(path)
    if path.suffix == ".jsonl":
        pairs: list[tuple[str, str]] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise SFTError(f"cannot read pairs file {path}: {exc}") from exc
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                pairs.append((str(row["state"]), str(row["tactic"])))
            except (ValueError, KeyError, TypeError) as exc:
                raise SFTError(f"{path}:{lineno}: expected an object with 'state' and 'tactic' ({exc})") from exc
        return pairs
    return _pairs_from_trajectories(path)


def _pairs_from_trajectories(path: Path) -> list[tuple[str, str]]:
    """The (parent state, tactic) of every positive, non-root row of a trajectory set."""
    from burnqed.trajectory.reader import read_trajectories

    try:
        table = read_trajectories(
            path, columns=["theorem", "iteration", "node_id", "parent_id", "state", "tactic", "label"]
        )
    except OSError as exc:
        raise SFTError(f"cannot read trajectories {path}: {exc}") from exc
    rows = table.to_pylist()
    # node ids are local to one search: (theorem, iteration) names the search
    states = {(r["theorem"], r["iteration"], r["node_id"]): r["state"] for r in rows}
    pairs = []
    for r in rows:
        if r["label"] == 1 and r["tactic"] and r["parent_id"] is not None:
            parent = states.get((r["theorem"], r["iteration"], r["parent_id"]))
            if parent is not None:
                pairs.append((parent, r["tactic"]))
    return list(dict.fromkeys(pairs))


def _examples(policy: PolicyModel, pairs: Sequence[tuple[str, str]], max_len: int) -> list[tuple[list[int], int]]:
    """Token ids of prompt + answer + EOS, and where the answer starts."""
    tok = policy.tokenizer
    fmt = policy.config.prompt_format
    out = []
    for state, tactic in pairs:
        answer = tok(completion_text(tactic, fmt), add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        budget = min(policy.config.max_prompt_tokens, max_len - len(answer))
        if budget < 16:
            log.warning("skipping a pair whose tactic alone is %d tokens", len(answer))
            continue
        prompt = format_prompt(state, fmt, tokenizer=tok, max_tokens=budget)
        with_bos = not (tok.bos_token and prompt.startswith(tok.bos_token))
        ids = tok(prompt, add_special_tokens=with_bos)["input_ids"][-budget:]
        out.append((ids + answer, len(ids)))
    return out


def _lr_factor(step: int, warmup: int, total: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def _with_lora(model: Any, config: SFTConfig) -> Any:
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as exc:
        raise SFTError("LoRA needs peft: pip install 'burnqed[lora]'") from exc
    lora = LoraConfig(r=config.lora_rank, lora_alpha=config.lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


def sft_policy(
    model_dir: str | Path,
    pairs: Sequence[tuple[str, str]],
    output_dir: str | Path,
    config: SFTConfig | None = None,
    *,
    policy_config: PolicyConfig | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> SFTReport:
    """Fine-tune the model in ``model_dir`` on ``pairs`` and save it to ``output_dir``.

    ``progress(step, total_steps, loss)`` is called after every optimiser step.
    """
    import torch

    config = config or SFTConfig()
    if not pairs:
        raise SFTError("no (state, tactic) pairs to fine-tune on")
    base = (policy_config or PolicyConfig()).model_copy(update={"device": config.device, "seed": config.seed})
    if base.dtype == "auto":
        base = base.model_copy(update={"dtype": "float32"})  # training wants f32 master weights
    try:
        policy = PolicyModel.load(model_dir, base)
    except PolicyLoadError as exc:
        raise SFTError(f"cannot load the base model: {exc}") from exc
    tok = policy.tokenizer
    examples = _examples(policy, pairs, config.max_seq_tokens)
    if not examples:
        raise SFTError("every pair was too long for max_seq_tokens")
    model = _with_lora(policy.model, config) if config.lora else policy.model
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    steps_per_epoch = math.ceil(len(examples) / config.batch_size)
    total = steps_per_epoch * config.epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: _lr_factor(s, config.warmup_steps, total))
    gen = torch.Generator().manual_seed(config.seed)
    device = policy.device
    pad = tok.pad_token_id
    curve: list[tuple[int, float]] = []
    epoch_losses: list[float] = []
    window: list[float] = []
    step = 0
    started = time.perf_counter()
    for _ in range(config.epochs):
        order = torch.randperm(len(examples), generator=gen).tolist()
        epoch_sum, epoch_n = 0.0, 0
        for b in range(0, len(order), config.batch_size):
            batch = [examples[i] for i in order[b : b + config.batch_size]]
            width = max(len(ids) for ids, _ in batch)
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)  # (B, T), right padding
            labels = torch.full((len(batch), width), -100, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, (ids, start) in enumerate(batch):
                input_ids[row, : len(ids)] = torch.tensor(ids)
                labels[row, start : len(ids)] = torch.tensor(ids[start:])
                mask[row, : len(ids)] = 1
            out = model(input_ids=input_ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
            loss = out.loss
            if not torch.isfinite(loss):
                raise SFTError(f"loss became {loss.item()} at step {step}; lower the learning rate")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, config.grad_clip)
            optimizer.step()
            scheduler.step()
            step += 1
            value = float(loss.item())
            window.append(value)
            epoch_sum, epoch_n = epoch_sum + value * len(batch), epoch_n + len(batch)
            if step % config.log_every == 0 or step == total:
                curve.append((step, sum(window) / len(window)))
                window = []
            if progress is not None:
                progress(step, total, value)
        epoch_losses.append(epoch_sum / epoch_n)
        log.info("sft epoch %d/%d: loss %.4f", len(epoch_losses), config.epochs, epoch_losses[-1])
    model.eval()
    if config.lora:
        model = model.merge_and_unload()
    output_dir = Path(output_dir)
    report = SFTReport(
        base_dir=str(model_dir),
        output_dir=str(output_dir),
        num_pairs=len(examples),
        epochs=config.epochs,
        steps=step,
        lora=config.lora,
        loss_curve=curve,
        epoch_losses=epoch_losses,
        seconds=time.perf_counter() - started,
    )
    tmp = output_dir.with_name(f".{output_dir.name}.saving-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    # a full disk is one line naming the checkpoint, not safetensors' traceback; the half-written
    # folder goes, and the folder at output_dir (an earlier save) is still whole
    with saving(output_dir, SAVE_WAY_OUT, cleanup=tmp):
        tmp.mkdir(parents=True)
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        (tmp / "sft_report.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
        # the weights' hashes: a checkpoint garbled later is named on load, never generated with
        write_checksums(tmp, [p.name for p in tmp.iterdir() if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES)])
    if output_dir.exists():
        shutil.rmtree(output_dir)
    os.replace(tmp, output_dir)
    # a save killed earlier (another pid) left its temp folder: the finished checkpoint supersedes it
    for stale in output_dir.parent.glob(f".{output_dir.name}.saving-*"):
        shutil.rmtree(stale, ignore_errors=True)
    return report
