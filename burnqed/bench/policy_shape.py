"""``burnqed bench policy --shape 7b``: the policy at DeepSeek-Prover-V2-7B's shape on a GPU.

Random weights in bf16 (nothing is downloaded), the shape of DeepSeek-Prover-V2-7B's
config.json (a Llama: 30 layers, width 4096, MLP 11008, 32 heads without grouping, vocab
102400). Measured in one run, so the ratios hold on a shared machine:

- ms per decode step at 1, 32 and 256 rows for each decode mode (eager dynamic cache,
  static cache, CUDA graphs), against the HBM limit: the step must read every weight
  once, so ``weight bytes / bandwidth`` is its floor (bandwidth from the device's memory
  clock and bus width when torch reports them, else a measured device copy);
- ``generate(8 states, n=4)`` called directly on the main thread vs through the
  GenerationService (target ≤ 1.1×), and service throughput for 64 states × 8 samples;
- peak GPU memory.

Without CUDA it refuses (BenchRefused) instead of measuring a CPU.
"""

from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from burnqed.config import BurnqedConfig

__all__ = ["SHAPES", "BenchRefused", "bench"]

SHAPES: dict[str, dict[str, Any]] = {
    # DeepSeek-Prover-V2-7B (DeepSeek-Prover-V1.5-Base lineage): LlamaForCausalLM
    "7b": {
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 30,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "vocab_size": 102400,
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
    },
}
"""Model shapes by name (LlamaConfig fields)."""

STEP_ROWS = (1, 32, 256)
"""Batch rows the decode step is timed at."""
_PROMPT_TOKENS = 64  # context of the timed decode steps (short: the weights dominate, as in the figures)
_TIMED_STEPS = 20
_QUICK_STEPS = 5
_COPY_BYTES = 1 << 30  # device copy used to measure bandwidth when the device does not report it
_SERVICE_STATES = 8
_SERVICE_SAMPLES = 4
_THROUGHPUT_STATES = 64
_THROUGHPUT_SAMPLES = 8


class BenchRefused(Exception):
    """The benchmark cannot run here (e.g. no CUDA device); the message says why."""


def _bandwidth(torch: Any) -> tuple[float, str]:
    """Bytes per second of the device's memory, and where the figure comes from."""
    props = torch.cuda.get_device_properties(0)
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if clock_khz and bus_bits:
        return 2.0 * clock_khz * 1e3 * bus_bits / 8, "spec (memory clock × bus width, double data rate)"
    src = torch.empty(_COPY_BYTES, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(5):
        dst.copy_(src)
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / 5
    return 2 * _COPY_BYTES / seconds, "measured (device-to-device copy: one read + one write per byte)"


def _build(torch: Any, shape: dict[str, Any], tokenizer_dir: Path, policy: Any) -> Any:
    """The policy model at ``shape`` with random bf16 weights on CUDA, and a small tokenizer."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from burnqed.policy.model import PolicyModel

    config = LlamaConfig(**shape, torch_dtype="bfloat16")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("cuda"):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, padding_side="left", local_files_only=True)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return PolicyModel(model, tokenizer, policy, tokenizer_dir)


def _step_ms(torch: Any, policy_model: Any, mode: str, rows: int, steps: int) -> float:
    """Milliseconds per decode step at ``rows`` rows after a prompt of _PROMPT_TOKENS tokens."""
    from burnqed.policy.decode import StaticDecoder, cache_of

    model = policy_model.model
    with torch.inference_mode():
        ids = torch.randint(0, model.config.vocab_size, (rows, _PROMPT_TOKENS), device="cuda")
        mask = torch.ones_like(ids)
        positions = torch.arange(_PROMPT_TOKENS, device="cuda").expand(rows, -1)
        out = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, logits_to_keep=1)
        token = out.logits[:, -1].argmax(-1)
        if mode == "eager":
            step = policy_model._stepper(cache_of(out), mask, positions[:, -1:], 1)
        else:
            slot = StaticDecoder(model, mode).slot(rows, _PROMPT_TOKENS + steps + 4)  # type: ignore[arg-type]
            slot.load(cache_of(out), mask, positions[:, -1:], 1)
            step = slot.step
        step(token)  # warm-up (and capture, for graphs)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            step(token)
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps * 1e3


async def _service_figures(torch: Any, policy_model: Any, rounds: int) -> dict[str, float]:
    from burnqed.bench.policy import BENCH_STATES
    from burnqed.policy.service import GenerationService

    states = (BENCH_STATES * _SERVICE_STATES)[:_SERVICE_STATES]
    policy_model.generate(states, _SERVICE_SAMPLES)  # warm-up
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(rounds):
        policy_model.generate(states, _SERVICE_SAMPLES)
    direct = (time.perf_counter() - start) / rounds
    async with GenerationService(policy_model, max_batch_size=_THROUGHPUT_STATES, max_wait_s=0.0) as service:
        await service.generate(states, _SERVICE_SAMPLES)
        start = time.perf_counter()
        for _ in range(rounds):
            await service.generate(states, _SERVICE_SAMPLES)
        through = (time.perf_counter() - start) / rounds
        many = (BENCH_STATES * _THROUGHPUT_STATES)[:_THROUGHPUT_STATES]
        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for state in many:
                tg.start_soon(service.generate, [state], _THROUGHPUT_SAMPLES)
        throughput = _THROUGHPUT_STATES * _THROUGHPUT_SAMPLES / (time.perf_counter() - start)
    return {
        "direct_s": direct,
        "service_s": through,
        "service_direct_ratio": through / direct,
        "service_samples_per_s": throughput,
    }


async def bench(config: BurnqedConfig, quick: bool, shape: str = "7b") -> dict[str, Any]:
    """Measure decode steps, the service/direct ratio and throughput at ``shape`` on CUDA."""
    import torch

    if shape not in SHAPES:
        raise BenchRefused(f"unknown shape {shape!r} (known: {', '.join(sorted(SHAPES))})")
    if not torch.cuda.is_available():
        raise BenchRefused(
            f"the {shape} shape needs a CUDA GPU and this torch sees none "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda is not None}); "
            "run `burnqed bench policy` for the CPU figures"
        )
    from burnqed.policy.tiny import build_tiny_model, template_corpus

    steps = _QUICK_STEPS if quick else _TIMED_STEPS
    policy = config.policy.model_copy(update={"device": "cuda", "dtype": "bfloat16", "seed": 0, "decode": "cuda_graph"})
    torch.cuda.reset_peak_memory_stats()
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer_dir = build_tiny_model(Path(tmp) / "tok", template_corpus(), config=config.policy.tiny)
        policy_model = _build(torch, SHAPES[shape], tokenizer_dir, policy)
        weight_bytes = sum(p.numel() * p.element_size() for p in policy_model.model.parameters())
        bandwidth, source = _bandwidth(torch)
        limit_ms = weight_bytes / bandwidth * 1e3
        step_ms: dict[str, dict[str, float]] = {}
        for mode in ("eager", "static", "cuda_graph"):
            for rows in STEP_ROWS:
                step_ms.setdefault(mode, {})[str(rows)] = _step_ms(torch, policy_model, mode, rows, steps)
                gc.collect()  # each measurement's KV cache goes before the next is allocated
                torch.cuda.empty_cache()
        service = await _service_figures(torch, policy_model, 1 if quick else 3)
    best_256 = min(step_ms[m][str(STEP_ROWS[-1])] for m in step_ms)
    return {
        "shape": shape,
        "device": torch.cuda.get_device_name(0),
        "dtype": "bfloat16",
        "weights_gb": weight_bytes / 1e9,
        "hbm_bandwidth_tb_s": bandwidth / 1e12,
        "hbm_bandwidth_source": source,
        "hbm_limit_ms_per_step": limit_ms,
        "decode_ms_per_step": step_ms,
        "decode_mode_used": policy_model.decode_mode,
        "best_256_rows_over_hbm_limit": best_256 / limit_ms,
        "prompt_tokens": _PROMPT_TOKENS,
        **service,
        "peak_memory_gb": torch.cuda.max_memory_allocated() / 1e9,
        "targets": {
            "decode_256_rows_le_2x_hbm_limit": best_256 <= 2 * limit_ms,
            "service_direct_ratio_le_1.1": service["service_direct_ratio"] <= 1.1,
        },
    }
