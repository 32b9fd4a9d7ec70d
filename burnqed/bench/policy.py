"""``burnqed bench policy``: micro-batched vs one-at-a-time generation and encoding.

Eight searches ask concurrently for candidates (and for embeddings) of one state each.
The same model serves them through two generation services in the same run: one that
micro-batches (``max_batch_size = 8``) and one that serves a request at a time
(``max_batch_size = 1``). The model is ``policy.model_dir`` if set, else a freshly built
tiny model (random weights: every sample runs to about ``max_new_tokens``, so both modes
decode the same lengths).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from burnqed.config import BurnqedConfig

__all__ = ["BENCH_STATES", "bench"]

BENCH_STATES = [
    "n : ℕ\n⊢ n + 0 = n",
    "a b : ℤ\n⊢ a + b = b + a",
    "x : ℕ\nh : x < 5\n⊢ x < 10",
    "p q : Prop\nhp : p\nhq : q\n⊢ p ∧ q",
    "⊢ ∀ (n : ℕ), 0 + n = n",
    "a b : ℝ\n⊢ a ^ 2 + b ^ 2 ≥ 2 * a * b",
    "f : ℕ → ℕ\nhf : ∀ (x : ℕ), f x = x + 1\n⊢ f 2 = 3",
    "x y : ℤ\nh₁ : x = y + 2\nh₂ : y = 3\n⊢ x = 5",
]


async def _round(service: Any, kind: str, n: int) -> int:
    """All eight states requested concurrently; returns the number of items answered."""
    counts: list[int] = []

    async def one(state: str) -> None:
        if kind == "generate":
            counts.append(sum(len(c) for c in await service.generate([state], n)))
        else:
            counts.append(len(await service.encode([state])))

    async with anyio.create_task_group() as tg:
        for state in BENCH_STATES:
            tg.start_soon(one, state)
    return sum(counts)


async def _measure(model: Any, batch_size: int, kind: str, n: int, rounds: int) -> dict[str, float]:
    from burnqed.policy.service import GenerationService

    async with GenerationService(model, max_batch_size=batch_size, max_wait_s=0.005) as service:
        await _round(service, kind, n)  # warm-up
        items = 0
        start = time.perf_counter()
        for _ in range(rounds):
            items += await _round(service, kind, n)
        seconds = time.perf_counter() - start
        batches = service.stats.batches
    per_round = len(BENCH_STATES) * (n if kind == "generate" else 1)
    return {
        "items_per_s": items / seconds,
        "requests_per_s": per_round * rounds / seconds,
        "seconds": seconds,
        "model_calls": float(batches),
    }


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """Measure the policy through the generation service; returns a JSON-able dict."""
    import torch

    from burnqed.policy.model import PolicyModel
    from burnqed.policy.tiny import build_tiny_model, template_corpus

    n = 4
    rounds = 2 if quick else 5
    policy_config = config.policy.model_copy(update={"seed": 0})
    with tempfile.TemporaryDirectory() as tmp:
        if config.policy.model_dir is not None:
            directory, which = Path(config.policy.model_dir), str(config.policy.model_dir)
        else:
            directory = build_tiny_model(Path(tmp) / "tiny", template_corpus(), config=config.policy.tiny)
            which = "tiny (built for this run, random weights)"
        model = PolicyModel.load(directory, policy_config)
        gen_batched = await _measure(model, len(BENCH_STATES), "generate", n, rounds)
        gen_single = await _measure(model, 1, "generate", n, rounds)
        enc_batched = await _measure(model, len(BENCH_STATES), "encode", n, rounds * 4)
        enc_single = await _measure(model, 1, "encode", n, rounds * 4)
    return {
        "model": which,
        "device": str(model.device),
        "dtype": str(next(model.model.parameters()).dtype),
        "torch_threads": torch.get_num_threads(),
        "concurrent_states": len(BENCH_STATES),
        "samples_per_state": n,
        "max_new_tokens": policy_config.max_new_tokens,
        "rounds": rounds,
        "generate": {
            "batched_candidates_per_s": gen_batched["items_per_s"],
            "single_candidates_per_s": gen_single["items_per_s"],
            "batched_samples_per_s": gen_batched["requests_per_s"],
            "single_samples_per_s": gen_single["requests_per_s"],
            "speedup": gen_single["seconds"] / gen_batched["seconds"],
            "batched_model_calls": gen_batched["model_calls"],
            "single_model_calls": gen_single["model_calls"],
        },
        "encode": {
            "batched_states_per_s": enc_batched["items_per_s"],
            "single_states_per_s": enc_single["items_per_s"],
            "speedup": enc_single["seconds"] / enc_batched["seconds"],
        },
    }
