"""Energy-head checkpoints: weights (safetensors) + the arguments that rebuild the head.

A checkpoint folder holds

- ``head.safetensors``: the head's state dict (spectral-norm vectors included, so a loaded
  head in eval mode gives exactly the saved energies);
- ``head.json``: ``HeadCheckpointMeta`` (head arguments, encoder fingerprint, step, config);
- ``trainer_state.pt``: optimizer, schedule, position and RNG state, for resuming;
- ``checksums.sha256``: the weights' SHA-256, checked before they are used (a garbled file
  is named, never scored with).

Every file is written under a temporary name and renamed into place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from burnqed.ebm.errors import EBMCheckpointError
from burnqed.files import CHECKSUMS_FILE, checksum_mismatches, saving, write_checksums
from burnqed.ebm.head import EnergyHead, EnergyHeadConfig

__all__ = [
    "HEAD_CONFIG_FILE",
    "HEAD_WEIGHTS_FILE",
    "TRAINER_STATE_FILE",
    "HeadCheckpointMeta",
    "check_head_dir",
    "load_head",
    "load_trainer_state",
    "save_head",
    "save_trainer_state",
]

HEAD_WEIGHTS_FILE = "head.safetensors"
HEAD_CONFIG_FILE = "head.json"
TRAINER_STATE_FILE = "trainer_state.pt"
FORMAT_VERSION = 2  # 2: the head standardises its input (input_mean, input_std)


class HeadCheckpointMeta(BaseModel):
    """What ``head.json`` records next to the weights."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT_VERSION
    head: EnergyHeadConfig
    encoder_fingerprint: str
    step: int = 0
    epoch: int = 0
    train_config: dict[str, Any] = Field(default_factory=dict)


SAVE_WAY_OUT = ("free space and run the same command again (train-ebm resumes from its last saved training state; "
                "burnqed iterate and the coordinator resume at this step)")


def _replace_atomically(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    # a full disk is one line naming the checkpoint (safetensors and torch.save raise their own
    # errors for it), and the half-written temp file goes
    with saving(path.parent, SAVE_WAY_OUT, cleanup=tmp):
        write(tmp)
        os.replace(tmp, path)


def save_head(head: EnergyHead, directory: str | Path, meta: HeadCheckpointMeta) -> None:
    """Write the head's weights and metadata into ``directory``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").contiguous() for k, v in head.state_dict().items()}
    _replace_atomically(out / HEAD_WEIGHTS_FILE, lambda p: save_file(state, str(p)))
    text = meta.model_dump_json(indent=2)
    _replace_atomically(out / HEAD_CONFIG_FILE, lambda p: p.write_text(text, encoding="utf-8"))
    with saving(out, SAVE_WAY_OUT):
        write_checksums(out, [HEAD_WEIGHTS_FILE, HEAD_CONFIG_FILE])


def check_head_dir(directory: str | Path) -> HeadCheckpointMeta:
    """The metadata of the head in ``directory``; EBMCheckpointError (one line) unless it is usable.

    Reads ``head.json`` and the weights' header only, so a command can refuse a bad
    checkpoint before it loads a model or writes anything.
    """
    src = Path(directory)
    config_path, weights_path = src / HEAD_CONFIG_FILE, src / HEAD_WEIGHTS_FILE
    if not config_path.is_file() or not weights_path.is_file():
        raise EBMCheckpointError(
            f"{src} is not an energy-head checkpoint: expected {HEAD_CONFIG_FILE} and {HEAD_WEIGHTS_FILE} "
            "(written by `burnqed train-ebm --output DIR`)"
        )
    damaged = checksum_mismatches(src)
    if damaged:
        raise EBMCheckpointError(
            f"{src / damaged[0]} does not match its hash in {src / CHECKSUMS_FILE}: it was damaged after it "
            "was written; restore it from a copy or retrain the head (`burnqed train-ebm --output DIR`)"
        )
    try:
        meta = HeadCheckpointMeta.model_validate_json(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValidationError) as exc:
        raise EBMCheckpointError(
            f"unreadable {config_path} ({_first_problem(exc)}); retrain the head with `burnqed train-ebm --output DIR`"
        ) from exc
    if meta.format != FORMAT_VERSION:
        raise EBMCheckpointError(
            f"{config_path}: format {meta.format}, this burnqed reads {FORMAT_VERSION}; retrain the head"
        )
    try:
        # the header alone: a truncated or foreign file fails here without reading the tensors
        with safe_open(str(weights_path), framework="pt"):
            pass
    except (OSError, SafetensorError) as exc:
        raise EBMCheckpointError(
            f"weights in {weights_path} do not fit an energy head: not a readable safetensors file "
            f"({_first_problem(exc)}); retrain the head with `burnqed train-ebm --output DIR`"
        ) from exc
    return meta


def _first_problem(exc: BaseException) -> str:
    """The first problem in ``exc`` on one line (a pydantic error lists many, over several lines)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return " ".join(str(exc).split()) or type(exc).__name__


def load_head(directory: str | Path, device: str | torch.device = "cpu") -> tuple[EnergyHead, HeadCheckpointMeta]:
    """Rebuild the head saved in ``directory`` (in eval mode) and return it with its metadata."""
    meta = check_head_dir(directory)
    weights_path = Path(directory) / HEAD_WEIGHTS_FILE
    head = EnergyHead.from_config(meta.head)
    try:
        head.load_state_dict(load_file(str(weights_path)), strict=True)
    except (OSError, SafetensorError, RuntimeError) as exc:
        raise EBMCheckpointError(
            f"weights in {weights_path} do not fit {meta.head} ({_first_problem(exc)}); retrain the head"
        ) from exc
    return head.to(device).eval(), meta


def save_trainer_state(directory: str | Path, state: dict[str, Any]) -> None:
    """Write the resumable training state (tensors and plain values only)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    _replace_atomically(out / TRAINER_STATE_FILE, lambda p: torch.save(state, p))


def load_trainer_state(directory: str | Path) -> dict[str, Any] | None:
    """The saved training state, or None when there is none."""
    path = Path(directory) / TRAINER_STATE_FILE
    if not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, EOFError) as exc:
        raise EBMCheckpointError(f"unreadable training state {path}: {exc}") from exc
    if not isinstance(state, dict):
        raise EBMCheckpointError(f"{path} does not hold a training state")
    return state
