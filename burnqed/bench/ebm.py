"""``burnqed bench ebm``: scoring throughput and training speed on cached embeddings.

Everything runs on synthetic trajectories with the hashing encoder, so the numbers are
about the head and its plumbing, not about any language model. Scoring is measured as
states/s through ``EBMScorer.score`` with every embedding already cached, at batch size
1 and 64, in the same run; training as contrastive groups/s once the cache is full. The
head runs on ``ebm.device`` (auto: the GPU when there is one).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig

__all__ = ["bench"]


async def _states_per_s(scorer: Any, states: list[str], batch_size: int) -> float:
    scorer.batch_size = batch_size
    await scorer.score(states[: min(len(states), 4 * batch_size)])  # warm-up
    start = time.perf_counter()
    await scorer.score(states)
    return len(states) / (time.perf_counter() - start)


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Measure the energy head; returns a JSON-able dict."""
    import torch

    from burnqed.ebm.cache import EmbeddingCache
    from burnqed.ebm.encoder import HashingEncoder
    from burnqed.ebm.head import EnergyHead
    from burnqed.ebm.scorer import EBMScorer
    from burnqed.ebm.synthetic import synthetic_trajectories
    from burnqed.ebm.trainer import resolve_device, train_energy_head

    torch.manual_seed(0)
    dim = 256 if quick else 1024
    n_theorems = 40 if quick else 300
    device = resolve_device(config.ebm.device)
    ebm = config.ebm.model_copy(update={"epochs": 1 if quick else 3, "device": str(device)})
    encoder = HashingEncoder(dim=dim)
    table = synthetic_trajectories(n_theorems, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp) / "cache"
        start = time.perf_counter()
        first = await train_energy_head(table, encoder, Path(tmp) / "a", ebm, cache_dir=cache_dir)
        first_s = time.perf_counter() - start
        second = await train_energy_head(table, encoder, Path(tmp) / "b", ebm, cache_dir=cache_dir)
        cache = EmbeddingCache(cache_dir, encoder.fingerprint)
        states = list(table["state"].to_pylist())
        head = EnergyHead(dim, ebm.hidden_dims, ebm.dropout)
        scorer = EBMScorer(head, encoder, batch_size=1, cache=cache, device=device)
        await scorer.score(states)  # every state is now cached
        one = await _states_per_s(scorer, states[: 256 if quick else 1024], 1)
        many = await _states_per_s(scorer, states * (1 if quick else 4), 64)
    group_size = 1 + ebm.num_negatives
    return {
        "device": str(device),
        "torch_threads": torch.get_num_threads(),
        "embedding_dim": dim,
        "hidden_dims": ebm.hidden_dims,
        "trajectory_rows": len(states),
        "distinct_states": len(cache),
        "score_states_per_s_batch1": round(one, 1),
        "score_states_per_s_batch64": round(many, 1),
        "score_batch64_over_batch1": round(many / one, 2),
        "train_groups_per_s_cached": round(second.groups_per_s, 1),
        "train_states_per_s_cached": round(second.groups_per_s * group_size, 1),
        "train_first_run_s_with_encoding": round(first_s, 3),
        "train_second_run_s_cached": round(second.seconds, 3),
        "train_second_run_step_s": round(second.train_seconds, 3),
        "states_encoded_first_run": first.states_encoded,
        "states_encoded_second_run": second.states_encoded,
        "train_steps": second.steps,
        "val_top1": second.val_top1,
    }
