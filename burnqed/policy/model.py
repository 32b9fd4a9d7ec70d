"""The policy model: batched tactic sampling with log-probs, and state embeddings.

Any local Hugging Face causal-LM directory loads (DeepSeek-Prover-V2-7B in bf16 on a GPU,
the tiny Llama in f32 on the CPU). Generation prefills every prompt of a batch once (left
padding, attention masks, explicit position ids), then repeats the key/value cache ``n``
times and samples ``n`` continuations per state. A candidate's log-prob is the model's own
(untempered) log-probability of the generated tokens, summed up to and including EOS.

Sampling is per row: with ``config.seed`` set, sample ``j`` of a state draws its uniforms
from a generator seeded by (seed, temperature, n, j, state text), never from the global
RNG, so the candidates a state gets do not depend on which other states share its batch
(the service batches concurrent searches together) nor on what ran before.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burnqed.collector import paused
from burnqed.files import CHECKSUMS_FILE, checksum_mismatches, json_object_problem
from burnqed.policy.config import PolicyConfig
from burnqed.policy.decode import StaticDecoder, cache_kwargs, cache_of
from burnqed.policy.errors import PolicyGenerationError, PolicyLoadError, PolicyRemoteCodeRefused
from burnqed.policy.presets import get_preset, parse_candidate, render_prompt
from burnqed.policy.prompts import PromptFormat, fit_state, format_prompt
from burnqed.policy.types import PromptContext, TacticCandidate

if TYPE_CHECKING:
    import torch

__all__ = ["WEIGHT_SUFFIXES", "PolicyModel", "checkpoint_fingerprint", "row_seed"]

log = logging.getLogger(__name__)

_WEIGHT_SUFFIXES = (".safetensors", ".bin")
WEIGHT_SUFFIXES = _WEIGHT_SUFFIXES  # what counts as a weight file (sft records their hashes)
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model")
_FULL_HASH_LIMIT = 256 * 1024 * 1024  # bigger checkpoints are fingerprinted by size + sampled bytes
_SAMPLE_BYTES = 1024 * 1024


def _missing_dir_message(path: Path) -> str:
    return (
        f"policy model directory {path} does not exist. Put a Hugging Face causal-LM folder there "
        "(config.json, model*.safetensors, tokenizer.json + tokenizer_config.json), e.g. download "
        f"deepseek-ai/DeepSeek-Prover-V2-7B into {path} on a machine with network access and copy it "
        "over, or run `burnqed policy build-tiny --output DIR` for the offline tiny model."
    )


def check_model_dir(path: Path) -> None:
    """Raise PolicyLoadError (saying what to do) unless ``path`` holds a loadable HF model."""
    if not path.exists():
        raise PolicyLoadError(_missing_dir_message(path))
    if not path.is_dir():
        raise PolicyLoadError(f"policy model path {path} is a file; it must be a directory holding config.json")
    if not (path / "config.json").is_file():
        raise PolicyLoadError(
            f"{path} has no config.json: it is not a Hugging Face model directory "
            "(give the folder that holds config.json, the weights and the tokenizer)"
        )
    unreadable = json_object_problem(path / "config.json")
    if unreadable is not None:  # there but unreadable (permissions, garbled) is damage, not absence
        raise PolicyLoadError(
            f"{path / 'config.json'} is unreadable or damaged ({unreadable}): restore the checkpoint {path} from a "
            "copy or train it again (the run's earlier checkpoints are untouched)"
        )
    if not any(p.name.endswith(_WEIGHT_SUFFIXES) for p in path.iterdir()):
        hint = " (a .gguf file must be converted first: burnqed.policy.smollm2.convert_gguf)" if any(
            path.glob("*.gguf")
        ) else ""
        raise PolicyLoadError(
            f"{path} has config.json but no weights: copy model*.safetensors or pytorch_model*.bin beside it{hint}"
        )
    damaged = checksum_mismatches(path)
    if damaged:
        raise PolicyLoadError(
            f"{path / damaged[0]} does not match its hash in {path / CHECKSUMS_FILE}: it was damaged after it was "
            "written; restore it from a copy or train it again (the run's earlier checkpoints are untouched)"
        )
    if not any((path / name).is_file() for name in _TOKENIZER_FILES):
        raise PolicyLoadError(
            f"{path} has no tokenizer: put tokenizer.json and tokenizer_config.json beside config.json"
        )


def check_remote_code(path: Path, config: PolicyConfig) -> None:
    """Refuse, in one line, a checkpoint that ships its own code unless policy.trust_remote_code is set
    (instead of transformers' interactive prompt)."""
    import json

    needs = get_preset(config.preset_name).trust_remote_code
    for name in ("config.json", "tokenizer_config.json"):
        try:
            data = json.loads((path / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("auto_map"):
            needs = True
    if needs and not config.trust_remote_code:
        raise PolicyRemoteCodeRefused(
            f"the model in {path} runs its own Python code (auto_map / preset {config.preset_name}): set "
            "policy.trust_remote_code = true if you trust it (and install the extra: pip install 'burnqed[remote-code]')"
        )


# presets whose prompt is one of prompts.py's state-only formats
_LEGACY_FORMATS: dict[str, PromptFormat] = {"plain": "plain", "deepseek-v2-state": "deepseek-v2"}


def _cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to its first stop sequence (what a server honouring ``stop`` returns)."""
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return text[:cut] if cut >= 0 else text


def checkpoint_fingerprint(path: str | Path) -> str:
    """A short hash of a model directory's config, tokenizer and weights."""
    path = Path(path)
    digest = hashlib.sha256()
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    total = sum(p.stat().st_size for p in files if p.name.endswith(_WEIGHT_SUFFIXES))
    for p in files:
        if p.suffix not in {".json", ".jinja", ".model", ".txt"} and not p.name.endswith(_WEIGHT_SUFFIXES):
            continue
        if p.name in {"sft_report.json"}:
            continue
        digest.update(p.name.encode())
        size = p.stat().st_size
        digest.update(str(size).encode())
        with p.open("rb") as fh:
            if not p.name.endswith(_WEIGHT_SUFFIXES) or total <= _FULL_HASH_LIMIT:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
            else:
                digest.update(fh.read(_SAMPLE_BYTES))
                fh.seek(max(0, size - _SAMPLE_BYTES))
                digest.update(fh.read(_SAMPLE_BYTES))
    return digest.hexdigest()[:16]


def row_seed(seed: int, temperature: float, n: int, index: int, state: str) -> int:
    """The 63-bit seed of sample ``index`` of ``n`` for ``state`` (a pure function of its inputs)."""
    key = f"{seed}\x00{temperature!r}\x00{n}\x00{index}\x00{state}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1


def _resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def _resolve_dtype(name: str, device: str) -> torch.dtype:
    import torch

    if name == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


class PolicyModel:
    """A causal LM that proposes tactics for proof states and embeds them."""

    def __init__(self, model: Any, tokenizer: Any, config: PolicyConfig, path: Path) -> None:
        """Wrap an already-loaded model and tokenizer (use ``PolicyModel.load``)."""
        self.model = model
        self.tokenizer = tokenizer
        self.config = config.effective()
        self.preset = get_preset(self.config.preset_name)
        self.path = path
        self._fingerprint: str | None = None
        self._decoder: StaticDecoder | None = None

    @classmethod
    def load(cls, path: str | Path, config: PolicyConfig | None = None) -> PolicyModel:
        """Load a local Hugging Face causal-LM directory (never the hub)."""
        # the first load imports torch and transformers: a large heap at once
        with paused():
            return cls._load(path, config)

    @classmethod
    def _load(cls, path: str | Path, config: PolicyConfig | None) -> PolicyModel:
        import torch
        from safetensors import SafetensorError
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        # burnqed draws its own progress; transformers' per-load weight bar is noise in logs
        hf_logging.disable_progress_bar()
        config = config or PolicyConfig()
        path = Path(path).expanduser()
        check_model_dir(path)
        device = _resolve_device(config.device)
        dtype = _resolve_dtype(config.dtype, device)
        check_remote_code(path, config)
        remote = config.trust_remote_code
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                path, padding_side="left", local_files_only=True, trust_remote_code=remote
            )
            model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True, trust_remote_code=remote)
        except (OSError, ValueError, KeyError, ImportError, RuntimeError, SafetensorError) as exc:
            # transformers' messages span lines and a KeyError says only the key: one line, with the kind
            detail = " ".join(str(exc).split())
            raise PolicyLoadError(
                f"cannot load the model in {path} ({type(exc).__name__}: {detail}); it must be a complete, "
                "readable Hugging Face model directory: re-copy or rebuild it"
            ) from exc
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "left"
        model.to(device)  # type: ignore[arg-type]  # transformers stubs type .to oddly
        model.eval()
        if config.seed is not None:
            torch.manual_seed(config.seed)
        log.info("loaded policy %s on %s (%s)", path, device, dtype)
        return cls(model, tokenizer, config, path)

    @property
    def fingerprint(self) -> str:
        """Identifies the checkpoint (config, tokenizer, weights): the key of embedding caches."""
        if self._fingerprint is None:
            self._fingerprint = checkpoint_fingerprint(self.path)
        return self._fingerprint

    @property
    def hidden_size(self) -> int:
        """Width of the embeddings ``encode`` returns."""
        return int(self.model.config.hidden_size)

    @property
    def device(self) -> torch.device:
        """Where the weights live."""
        return next(self.model.parameters()).device

    def prompt(self, state: str, context: PromptContext | None = None) -> str:
        """The prompt for one state in this model's preset; a state-only prompt is fitted to the budget."""
        legacy = _LEGACY_FORMATS.get(self.preset.template)
        if legacy is not None:  # the state-only formats keep their fitting to the prompt budget
            return format_prompt(state, legacy, tokenizer=self.tokenizer, max_tokens=self._budget())
        ctx = context if context is not None else PromptContext(state=state)
        if self.preset.template == "bfs":
            ctx = ctx.model_copy(update={"state": fit_state(ctx.state, self.tokenizer, self._budget())})
        return render_prompt(self.preset, ctx, self.tokenizer)

    def _budget(self) -> int:
        """Prompt tokens allowed: the configured budget, within the model's context."""
        limit = getattr(self.model.config, "max_position_embeddings", None)
        budget = self.config.max_prompt_tokens
        if isinstance(limit, int) and limit > 0:
            budget = min(budget, max(16, limit - self.config.max_new_tokens))
        return budget

    def _batch(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        bos = self.tokenizer.bos_token
        # a chat template already wrote BOS into the text; do not add a second one
        with_bos = not (bos and all(t.startswith(bos) for t in texts))
        enc = self.tokenizer(list(texts), return_tensors="pt", padding=True, add_special_tokens=with_bos)
        return {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}

    def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """Up to ``n`` de-duplicated candidates per state, best (highest log-prob) first.

        ``contexts`` (one per state) carry the theorem and the proof so far for presets that show them.
        """
        if not states:
            return []
        if n < 1:
            raise ValueError("n must be at least 1")
        ctxs = list(contexts) if contexts is not None else [PromptContext(state=s) for s in states]
        try:
            prompts = [self.prompt(s, c) for s, c in zip(states, ctxs, strict=True)]
            _, texts, log_probs = self._sample(prompts, n, keys=states)
        except (RuntimeError, ValueError) as exc:
            raise PolicyGenerationError(f"generation failed: {exc}") from exc
        results: list[list[TacticCandidate]] = []
        for i in range(len(states)):
            best: dict[str, tuple[float, str]] = {}
            for j in range(i * n, (i + 1) * n):
                answer = _cut_at_stop(texts[j], self.preset.stop)
                tactic = parse_candidate(self.preset, answer, ctxs[i])
                if tactic and log_probs[j] > best.get(tactic, (float("-inf"), ""))[0]:
                    best[tactic] = (log_probs[j], answer)
            ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
            results.append([TacticCandidate(tactic=t, log_prob=lp, answer=a) for t, (lp, a) in ranked])
        return results

    def _sample(
        self, prompts: Sequence[str], n: int, keys: Sequence[str] | None = None
    ) -> tuple[list[list[int]], list[str], list[float]]:
        """Token ids up to EOS, decoded continuations and summed log-probs (B*n rows, grouped by
        prompt); row noise is seeded by ``keys`` (default: the prompts)."""
        import torch

        cfg = self.config
        noise = self._noise(list(keys if keys is not None else prompts), n)  # (R, L) uniforms
        with torch.inference_mode():
            enc = self._batch(prompts)
            ids, mask = enc["input_ids"], enc["attention_mask"]  # (B, T)
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            out = self.model(
                input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, logits_to_keep=1
            )
            logits = out.logits[:, -1, :].float().repeat_interleave(n, dim=0)  # (R, V): n samples per prompt
            step = self._stepper(cache_of(out), mask, positions[:, -1:], n)
            rows = logits.shape[0]
            eos = self._eos_ids()
            finished = torch.zeros(rows, dtype=torch.bool, device=ids.device)
            total = torch.zeros(rows, dtype=torch.float32, device=ids.device)
            generated: list[torch.Tensor] = []
            for i in range(cfg.max_new_tokens):
                logp = torch.log_softmax(logits, dim=-1)  # (R, V): the model's own distribution
                token = self._choose(logits, noise[:, i])  # (R,)
                token = torch.where(finished, torch.full_like(token, self.tokenizer.pad_token_id), token)
                total += torch.where(finished, 0.0, logp.gather(1, token[:, None]).squeeze(1))
                generated.append(token)
                finished |= torch.isin(token, eos)
                if self.preset.stop:  # a stop sequence ends its row, as a server honouring `stop` does
                    finished |= self._stopped(generated, finished)
                if bool(finished.all()) or i == cfg.max_new_tokens - 1:
                    break
                logits = step(token)
            tokens = torch.stack(generated, dim=1).tolist()  # (R, L)
        eos_set = set(eos.tolist())
        kept = [row[: next((k + 1 for k, t in enumerate(row) if t in eos_set), len(row))] for row in tokens]
        texts = [self.tokenizer.decode(row, skip_special_tokens=True) for row in kept]
        return kept, texts, total.tolist()

    def _stopped(self, generated: list[torch.Tensor], finished: torch.Tensor) -> torch.Tensor:
        """Rows whose latest tokens hold one of the preset's stop sequences (a window of tokens wide
        enough for the longest: every token decodes to at least one character or byte)."""
        import torch

        stops = self.preset.stop
        window = max(len(s.encode("utf-8")) for s in stops) + 1
        recent = torch.stack(generated[-window:], dim=1).tolist()
        hit = [
            not done and any(s in self.tokenizer.decode(row, skip_special_tokens=True) for s in stops)
            for row, done in zip(recent, finished.tolist(), strict=True)
        ]
        return torch.tensor(hit, dtype=torch.bool, device=finished.device)

    def _stepper(self, cache: Any, mask: torch.Tensor, last: torch.Tensor, n: int) -> Callable[[torch.Tensor], torch.Tensor]:
        """The decode step after a prefill (``cache`` of the B prompts, their mask and last
        positions): token per row in, next logits (R, V) out, in the configured decode mode."""
        import torch

        if self.config.decode != "eager":
            if self._decoder is None:
                self._decoder = StaticDecoder(self.model, self.config.decode)
            slot = self._decoder.slot(mask.shape[0] * n, mask.shape[1] + self.config.max_new_tokens)
            slot.load(cache, mask, last, n)
            return slot.step
        if n > 1:  # one prefill per state; the cache is shared out to its n samples
            cache.batch_repeat_interleave(n)
        state = {"mask": mask.repeat_interleave(n, dim=0), "pos": last.repeat_interleave(n, dim=0) + 1, "cache": cache}

        def step(token: torch.Tensor) -> torch.Tensor:
            state["mask"] = torch.cat([state["mask"], torch.ones_like(state["mask"][:, :1])], dim=1)
            out = self.model(
                input_ids=token[:, None],
                attention_mask=state["mask"],
                position_ids=state["pos"],
                use_cache=True,
                **cache_kwargs(self.model, state["cache"]),
            )
            state["cache"] = cache_of(out)
            state["pos"] = state["pos"] + 1
            return out.logits[:, -1, :].float()

        return step

    @property
    def decode_mode(self) -> str:
        """How decode steps run: eager, static, or cuda_graph (static when CUDA graphs are unavailable)."""
        if self.config.decode == "eager":
            return "eager"
        if self._decoder is None:
            self._decoder = StaticDecoder(self.model, self.config.decode)
        return self._decoder.mode

    def _eos_ids(self) -> torch.Tensor:
        import torch

        ids = self.model.generation_config.eos_token_id
        if ids is None:
            ids = self.tokenizer.eos_token_id
        ids = [ids] if isinstance(ids, int) else list(ids)
        return torch.tensor(ids, device=self.device)

    def _noise(self, keys: list[str], n: int) -> torch.Tensor:
        """One uniform per (row, step): (len(keys)·n, max_new_tokens), on the model's device."""
        import torch

        cfg = self.config
        rows, steps = len(keys) * n, cfg.max_new_tokens
        if cfg.temperature == 0:  # greedy reads no noise
            return torch.zeros(rows, steps, device=self.device)
        if cfg.seed is None:  # unseeded: the global RNG, as before per-row seeds existed
            return torch.rand(rows, steps).to(self.device)
        gen = torch.Generator()
        out = torch.empty(rows, steps)
        for r in range(rows):
            # a CPU generator per row: the same numbers on every device and in every batch
            gen.manual_seed(row_seed(cfg.seed, cfg.temperature, n, r % n, keys[r // n]))
            out[r] = torch.rand(steps, generator=gen)
        return out.to(self.device)

    def _choose(self, logits: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
        """Greedy at temperature 0, else top-k then nucleus sampling at the configured temperature,
        by inverse CDF on the row's own uniform (R,) so no row's draw depends on another's."""
        import torch

        cfg = self.config
        if cfg.temperature == 0:
            return logits.argmax(dim=-1)
        vocab = logits.shape[-1]
        k = cfg.top_k if 0 < cfg.top_k < vocab else vocab
        # top-k first: sorting the whole vocabulary every step costs more than the model on a CPU
        values, index = (logits / cfg.temperature).topk(k, dim=-1)  # (R, k), descending
        probs = torch.softmax(values, dim=-1)
        if cfg.top_p < 1.0:
            probs = probs * (probs.cumsum(-1) - probs < cfg.top_p)  # always keeps the top token
        cdf = probs.cumsum(-1)  # (R, k), unnormalised after top-p
        threshold = uniform.to(cdf.dtype)[:, None] * cdf[:, -1:]  # (R, 1)
        # the first token whose cumulative mass passes the threshold (never a zeroed one)
        choice = (cdf <= threshold).sum(-1, keepdim=True).clamp(max=k - 1)  # (R, 1)
        return index.gather(1, choice).squeeze(1)

    def encode(self, states: Sequence[str]) -> torch.Tensor:
        """Mean-pooled last-layer hidden states over non-padding tokens: (B, hidden_size), float32 CPU."""
        import torch

        if not states:
            return torch.zeros(0, self.hidden_size)
        texts = [fit_state(s, self.tokenizer, self._budget()) for s in states]
        try:
            with torch.inference_mode():
                enc = self._batch(texts)
                mask = enc["attention_mask"]  # (B, T)
                positions = (mask.cumsum(-1) - 1).clamp(min=0)
                base = self.model.get_decoder() if hasattr(self.model, "get_decoder") else self.model.base_model
                hidden = base(
                    input_ids=enc["input_ids"], attention_mask=mask, position_ids=positions, use_cache=False
                ).last_hidden_state.float()  # (B, T, d)
                weights = mask.unsqueeze(-1).to(hidden.dtype)  # (B, T, 1)
                pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)  # (B, d)
        except (RuntimeError, ValueError) as exc:
            raise PolicyGenerationError(f"encoding failed: {exc}") from exc
        return pooled.cpu()
