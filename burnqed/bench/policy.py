"""``burnqed bench policy``: micro-batched vs one-at-a-time generation and encoding.

Eight searches ask concurrently for candidates (and for embeddings) of one state each.
The same model serves them through two generation services in the same run: one that
micro-batches (``max_batch_size = 8``) and one that serves a request at a time
(``max_batch_size = 1``); their rounds alternate, so load drift on a shared machine hits
both alike, and ``speedup_median_round`` is the median of the per-round ratios (a round
disturbed by another process moves the mean, not the median). The model is ``policy.model_dir`` if set, else a freshly built
tiny model (random weights: every sample runs to about ``max_new_tokens``, so both modes
decode the same lengths).

``service_vs_direct`` (issue 16) times ``generate(8 states, n=4)`` called directly on the
main thread against the same call through the generation service, for each runner: the
service's model thread (``thread``) and a child process (``process``, ProcessPolicy). Direct
and service calls alternate round by round, so drift hits both alike; the target on a GPU is
``service_direct_ratio <= 1.1``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from burnqed.config import BurnqedConfig

__all__ = ["BENCH_STATES", "RATIO_TARGET", "bench", "service_vs_direct"]

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


async def _measure(model: Any, kind: str, n: int, rounds: int) -> dict[str, Any]:
    """Micro-batched (``max_batch_size = 8``) against one-at-a-time (``= 1``) service rounds,
    alternating round by round so that load drift on a shared machine hits both alike."""
    from burnqed.policy.service import GenerationService

    async with (
        GenerationService(model, max_batch_size=len(BENCH_STATES), max_wait_s=0.005) as batched,
        GenerationService(model, max_batch_size=1, max_wait_s=0.005) as single,
    ):
        await _round(batched, kind, n)  # warm-up, both ways
        await _round(single, kind, n)
        items = {"batched": 0, "single": 0}
        seconds = {"batched": 0.0, "single": 0.0}
        ratios: list[float] = []
        for _ in range(rounds):
            took: dict[str, float] = {}
            for name, service in (("batched", batched), ("single", single)):
                start = time.perf_counter()
                items[name] += await _round(service, kind, n)
                took[name] = time.perf_counter() - start
                seconds[name] += took[name]
            ratios.append(took["single"] / took["batched"])
        calls = {"batched": batched.stats.batches, "single": single.stats.batches}
    per_round = len(BENCH_STATES) * (n if kind == "generate" else 1)
    return {
        name: {
            "items_per_s": items[name] / seconds[name],
            "requests_per_s": per_round * rounds / seconds[name],
            "model_calls": float(calls[name]),
        }
        for name in ("batched", "single")
    } | {"speedup": seconds["single"] / seconds["batched"], "speedup_per_round": ratios}


RATIO_STATES = 8
"""States in the service-vs-direct call (issue 16's figure)."""
RATIO_SAMPLES = 4
"""Samples per state in that call."""
RATIO_TARGET = 1.1
"""Most a call through the service may cost, relative to the direct call (on a GPU)."""
_RATIO_ROUNDS = 10
_RATIO_QUICK_ROUNDS = 3


async def _runner_ratio(model: Any, policy: Any, states: list[str], rounds: int) -> dict[str, Any]:
    """Alternating direct ``model.generate`` (main thread) and service calls over ``policy``."""
    from burnqed.policy.service import GenerationService

    direct_s = through_s = 0.0
    async with GenerationService(policy, max_batch_size=len(states), max_wait_s=0.0) as service:
        model.generate(states, RATIO_SAMPLES)  # warm-up, both ways
        await service.generate(states, RATIO_SAMPLES)
        for _ in range(rounds):
            start = time.perf_counter()
            model.generate(states, RATIO_SAMPLES)
            direct_s += time.perf_counter() - start
            start = time.perf_counter()
            await service.generate(states, RATIO_SAMPLES)
            through_s += time.perf_counter() - start
    samples = len(states) * RATIO_SAMPLES * rounds
    ratio = through_s / direct_s
    return {
        "direct_s": direct_s / rounds,
        "service_s": through_s / rounds,
        "service_direct_ratio": ratio,
        "direct_samples_per_s": samples / direct_s,
        "service_samples_per_s": samples / through_s,
        "meets_target": ratio <= RATIO_TARGET,
    }


async def service_vs_direct(model: Any, directory: Path, policy_config: Any, quick: bool) -> dict[str, Any]:
    """``generate(8 states, n=4)`` direct vs through the service, per runner (thread, process)."""
    from burnqed.policy.process_runner import ProcessPolicy

    rounds = _RATIO_QUICK_ROUNDS if quick else _RATIO_ROUNDS
    states = (BENCH_STATES * RATIO_STATES)[:RATIO_STATES]
    thread = await _runner_ratio(model, model, states, rounds)
    async with ProcessPolicy(directory, policy_config) as child:
        process = await _runner_ratio(model, child, states, rounds)
        child_device = child.device
    return {
        "states": len(states),
        "samples_per_state": RATIO_SAMPLES,
        "rounds": rounds,
        "target_ratio": RATIO_TARGET,
        "process_device": child_device,
        "thread": thread,
        "process": process,
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
        gen = await _measure(model, "generate", n, rounds)
        enc = await _measure(model, "encode", n, rounds * 4)
        ratios = await service_vs_direct(model, directory, policy_config, quick)
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
            "batched_candidates_per_s": gen["batched"]["items_per_s"],
            "single_candidates_per_s": gen["single"]["items_per_s"],
            "batched_samples_per_s": gen["batched"]["requests_per_s"],
            "single_samples_per_s": gen["single"]["requests_per_s"],
            "speedup": gen["speedup"],
            "speedup_median_round": statistics.median(gen["speedup_per_round"]),
            "speedup_per_round": [round(r, 3) for r in gen["speedup_per_round"]],
            "batched_model_calls": gen["batched"]["model_calls"],
            "single_model_calls": gen["single"]["model_calls"],
        },
        "encode": {
            "batched_states_per_s": enc["batched"]["items_per_s"],
            "single_states_per_s": enc["single"]["items_per_s"],
            "speedup": enc["speedup"],
            "speedup_median_round": statistics.median(enc["speedup_per_round"]),
        },
        "service_vs_direct": ratios,
    }
