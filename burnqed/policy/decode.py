"""Fast decoding for the local policy: a preallocated (static) KV cache, and CUDA graphs over it.

At small batch a decode step is dominated by Python and kernel-launch overhead, not by the
GPU: reading a 7B model's weights once takes ~4.6 ms on an H100, a Python-driven step ~30 ms.
Two remedies, chosen by ``policy.decode``:

- ``static``: the KV cache is allocated once per (rows, length) bucket and reused; the
  attention mask is a prepared 4-D additive mask updated in place, so a step allocates
  nothing and never rebuilds a mask. Exact: same tokens and log-probs as ``eager``.
- ``cuda_graph``: the same step captured once per bucket as a CUDA graph and replayed,
  so a step is one launch. Needs CUDA; elsewhere, or if capture fails, it falls back to
  ``static`` with one warning.

Rows are padded up to a bucket size (``ROW_BUCKETS``) and the cache length up to a multiple
of ``LENGTH_QUANTUM``, so a handful of captured graphs serve every batch; at most
``MAX_SLOTS`` buckets are kept (the least recently used is freed first). Padded rows attend
to one cached position so they stay finite; their outputs are never read.
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import torch

__all__ = [
    "LENGTH_QUANTUM",
    "MAX_SLOTS",
    "ROW_BUCKETS",
    "DecodeSlot",
    "StaticDecoder",
    "cache_kwargs",
    "cache_of",
    "row_bucket",
]

log = logging.getLogger(__name__)

ROW_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
"""Batch sizes a slot is built for; a batch is padded up to the next one."""
LENGTH_QUANTUM = 256
"""Cache lengths are rounded up to a multiple of this (prompt + new tokens)."""
MAX_SLOTS = 6
"""Buckets kept at once (each holds a KV cache, and on CUDA a captured graph)."""
_WARMUP_STEPS = 2  # eager runs on a side stream before capture, as torch.cuda.graphs requires


def cache_kwargs(model: Any, cache: Any) -> dict[str, Any]:
    """The forward keyword that carries a KV cache: ``cache`` in transformers >= 5.24, ``past_key_values`` before."""
    return {_cache_name(model): cache}


def cache_of(out: Any) -> Any:
    """The KV cache a forward returned, under either name (``cache``, or ``past_key_values`` before 5.24)."""
    if "cache" in out:
        return out["cache"]
    return out["past_key_values"]


def _cache_name(model: Any) -> str:
    # checked once per model class: the old name still works in 5.24 but warns on every step
    cls = type(model)
    name = _CACHE_NAMES.get(cls)
    if name is None:
        params = inspect.signature(cls.forward).parameters
        name = "cache" if "cache" in params else "past_key_values"
        _CACHE_NAMES[cls] = name
    return name


_CACHE_NAMES: dict[type, str] = {}


def row_bucket(rows: int) -> int:
    """The bucket a batch of ``rows`` rows is padded to (beyond the largest: itself)."""
    return next((b for b in ROW_BUCKETS if b >= rows), rows)


class DecodeSlot:
    """One bucket: a static KV cache, input buffers and (on CUDA) a captured decode step."""

    def __init__(self, model: Any, rows: int, length: int, graphs: bool) -> None:
        """Allocate the cache and the buffers for ``rows`` rows of ``length`` tokens."""
        import torch
        from transformers import StaticCache

        self.model = model
        self.rows = rows
        self.length = length
        param = next(model.parameters())
        device, dtype = param.device, param.dtype
        config = model.config
        heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        self.cache = StaticCache(config=config, max_cache_len=length)
        self.cache.early_initialization(
            batch_size=rows, num_heads=heads, head_dim=head_dim, dtype=dtype, device=device
        )
        self.masked = torch.finfo(dtype).min
        self.ids = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.positions = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.mask = torch.full((rows, 1, 1, length), self.masked, dtype=dtype, device=device)
        self.graph: Any = None
        self.logits: torch.Tensor | None = None
        self.want_graph = graphs
        self.used = 0  # rows of the current call
        self.cursor = 0  # cache index the next token goes to

    def load(self, prefill: Any, prompt_mask: torch.Tensor, last_positions: torch.Tensor, n: int) -> None:
        """Start a call: the prompts' keys and values (``prefill``, one row per prompt) repeated
        ``n`` times into the first rows, their padding mask, and each row's next position."""
        prompt_len = prompt_mask.shape[1]
        used = prompt_mask.shape[0] * n
        for static, dynamic in zip(self.cache.layers, prefill.layers, strict=True):
            static.keys[:used, :, :prompt_len].copy_(dynamic.keys.repeat_interleave(n, dim=0))
            static.values[:used, :, :prompt_len].copy_(dynamic.values.repeat_interleave(n, dim=0))
        self.mask.fill_(self.masked)
        self.mask[:, 0, 0, 0] = 0  # padded rows attend to one position: finite, never read
        rows_mask = prompt_mask.repeat_interleave(n, dim=0).to(self.mask.dtype)  # (used, T): 1 = real token
        self.mask[:used, 0, 0, :prompt_len] = (1.0 - rows_mask) * self.masked
        self.positions.zero_()
        self.positions[:used] = last_positions.repeat_interleave(n, dim=0)
        self.used, self.cursor = used, prompt_len

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        """Feed one token per row (``tokens``: the used rows); the next logits, float32 (used, V)."""
        self.ids[: self.used, 0] = tokens
        self.positions.add_(1)
        self.mask[:, 0, 0, self.cursor] = 0
        for layer in self.cache.layers:
            layer.cumulative_length.fill_(self.cursor)
        self.cursor += 1
        if self.want_graph and self.graph is None:
            self._capture()
        if self.graph is not None:
            self.graph.replay()
            logits = self.logits
        else:
            logits = self._forward()
        assert logits is not None
        return logits[: self.used, -1, :].float()

    def _forward(self) -> torch.Tensor:
        out = self.model(
            input_ids=self.ids,
            attention_mask=self.mask,
            position_ids=self.positions,
            use_cache=True,
            **cache_kwargs(self.model, self.cache),
        )
        return out.logits

    def _capture(self) -> None:
        """Record the decode step as a CUDA graph; on failure, stay on the static path."""
        import torch

        self.want_graph = False
        saved = (self.ids.clone(), self.positions.clone(), self.cursor)
        try:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(_WARMUP_STEPS):
                    self._reset_length()
                    self._forward()
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            self._reset_length()
            with torch.cuda.graph(graph):
                self.logits = self._forward()
            self.graph = graph
        except Exception as exc:  # noqa: BLE001 - any capture failure leaves the exact static path
            log.warning("CUDA-graph capture failed for %d rows (%s); decoding without graphs", self.rows, exc)
            self.graph, self.logits = None, None
        # warm-up and capture wrote this step's keys; the replay below (or the eager step) writes them again
        self.ids.copy_(saved[0])
        self.positions.copy_(saved[1])
        self._reset_length()

    def _reset_length(self) -> None:
        for layer in self.cache.layers:
            layer.cumulative_length.fill_(self.cursor - 1)


class StaticDecoder:
    """The slots of one model: picks (or builds) the bucket for a call."""

    def __init__(self, model: Any, mode: Literal["static", "cuda_graph"]) -> None:
        """``mode`` is what was asked; off CUDA ``cuda_graph`` runs as ``static``."""
        self.model = model
        device = next(model.parameters()).device
        graphs = mode == "cuda_graph"
        if graphs and device.type != "cuda":
            log.warning("policy.decode = cuda_graph needs a CUDA device (model on %s): decoding with the static cache", device)
            graphs = False
        self.mode: Literal["static", "cuda_graph"] = "cuda_graph" if graphs else "static"
        self._slots: OrderedDict[tuple[int, int], DecodeSlot] = OrderedDict()

    def slot(self, rows: int, length: int) -> DecodeSlot:
        """The slot for ``rows`` rows and ``length`` cache positions (bucketed), built on first use."""
        key = (row_bucket(rows), -(-length // LENGTH_QUANTUM) * LENGTH_QUANTUM)
        found = self._slots.get(key)
        if found is None:
            while len(self._slots) >= MAX_SLOTS:
                self._slots.popitem(last=False)
            found = DecodeSlot(self.model, key[0], key[1], self.mode == "cuda_graph")
            self._slots[key] = found
        self._slots.move_to_end(key)
        return found
