"""Sub-commands of burnqed.ebm: ``burnqed train-ebm``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig

__all__ = ["register"]


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    p = sub.add_parser(
        "train-ebm",
        parents=[parent],
        help="train the energy head on trajectory Parquet files",
        description="Train (or resume) the energy head on trajectories; prints the TrainReport as JSON.",
    )
    p.add_argument(
        "--trajectories",
        nargs="+",
        required=True,
        type=Path,
        metavar="FILE",
        help="trajectory Parquet files or folders",
    )
    p.add_argument(
        "--encoder",
        required=True,
        metavar="DIR",
        help="policy model folder whose embeddings the head reads, or hashing:DIM for the offline n-gram encoder",
    )
    p.add_argument(
        "--output", required=True, type=Path, metavar="CKPT", help="checkpoint folder (resumed if it holds one)"
    )
    p.add_argument("--epochs", type=int, help="training epochs (ebm.epochs)")
    p.add_argument("--cache-dir", type=Path, metavar="DIR", help="embedding cache root (default: CKPT/embeddings)")
    p.add_argument("--no-resume", action="store_true", help="start from scratch even if CKPT holds a training state")
    p.set_defaults(handler=_train_ebm, config_overrides=lambda a: {"ebm.epochs": a.epochs})


def _make_encoder(spec: str, config: BurnqedConfig) -> Any:
    """The encoder named on the command line (the policy model is loaded here)."""
    from burnqed.ebm.encoder import HashingEncoder, PolicyEncoder

    if spec.startswith("hashing:"):
        return HashingEncoder(dim=int(spec.partition(":")[2]))
    from burnqed.policy.model import PolicyModel

    return PolicyEncoder(PolicyModel.load(Path(spec), config.policy))


async def _train_ebm(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.progress import Progress

    from burnqed.ebm.errors import EBMError
    from burnqed.ebm.trainer import train_energy_head
    from burnqed.policy.errors import PolicyError

    try:
        encoder = _make_encoder(args.encoder, config)
        with Progress(console=Console(stderr=True), transient=True) as progress:
            report = await train_energy_head(
                args.trajectories,
                encoder,
                args.output,
                config.ebm,
                resume=not args.no_resume,
                progress=progress,
                cache_dir=args.cache_dir,
            )
    except (EBMError, PolicyError, ValueError) as exc:
        print(f"burnqed train-ebm: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report.model_dump(mode="json"), indent=2))
    return 0
