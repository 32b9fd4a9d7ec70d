"""Configuration of the policy model (generation, encoding, the service, the tiny model, SFT)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["PolicyConfig", "SFTConfig", "ServiceConfig", "TinyModelConfig"]


class TinyModelConfig(BaseModel):
    """Shape of the offline tiny Llama and its byte-level BPE tokenizer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    vocab_size: int = Field(default=1024, ge=300, description="BPE vocabulary incl. 256 byte symbols")
    hidden_size: int = Field(default=128, ge=16)
    intermediate_size: int = Field(default=256, ge=16)
    num_layers: int = Field(default=2, ge=1)
    num_heads: int = Field(default=4, ge=1)
    num_kv_heads: int = Field(default=2, ge=1)
    max_position_embeddings: int = Field(default=256, ge=32)
    corpus_sets: list[str] = Field(
        default_factory=lambda: ["core", "benchmark-train"],
        description="built-in theorem sets whose text trains the tokenizer (plus template text)",
    )
    seed: int = 0


class SFTConfig(BaseModel):
    """Supervised fine-tuning on (state, tactic) pairs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    epochs: int = Field(default=3, ge=1)
    batch_size: int = Field(default=16, ge=1)
    learning_rate: float = Field(default=2e-3, gt=0, description="2e-3 suits the tiny model; ~1e-5 for 7B")
    weight_decay: float = Field(default=0.0, ge=0)
    warmup_steps: int = Field(default=10, ge=0)
    grad_clip: float = Field(default=1.0, gt=0)
    max_seq_tokens: int = Field(default=256, ge=16, description="prompt + tactic tokens per example")
    lora: bool = Field(default=False, description="train LoRA adapters via peft (extra 'lora'), merged on save")
    lora_rank: int = Field(default=16, ge=1)
    lora_alpha: float = Field(default=32.0, gt=0)
    device: str = Field(default="auto", description="auto | cpu | cuda | cuda:N")
    seed: int = 0
    log_every: int = Field(default=10, ge=1, description="loss-curve points every this many steps")


class ServiceConfig(BaseModel):
    """Micro-batching of the generation service."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_batch_size: int = Field(default=16, ge=1, description="states per model call")
    max_wait_s: float = Field(default=0.005, ge=0, description="how long a batch waits for company")
    max_queue: int = Field(default=64, ge=1, description="queued requests before callers are held back")
    runner: Literal["thread", "process"] = Field(
        default="thread",
        description="where a local model runs: the service's one model thread, or a dedicated child process "
        "(no contention with the event loop's thread: the GPU setting)",
    )


class PolicyConfig(BaseModel):
    """Which model proposes tactics and how it samples."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["local", "openai"] = Field(
        default="local",
        description="local: a Hugging Face model loaded here; openai: a vLLM / SGLang server's OpenAI-compatible "
        "completions API (base_url, model)",
    )
    model_dir: Path | None = Field(default=None, description="local HF causal-LM dir; None = the tiny model")
    base_url: str | None = Field(default=None, description="openai backend: the server's API root, e.g. http://localhost:8000/v1")
    model: str | None = Field(default=None, description="openai backend: the served model name (default: the server's only one)")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="openai backend: environment variable holding the API key, if any")
    tokenizer_dir: Path | None = Field(
        default=None,
        description="openai backend: a local tokenizer directory for the chat template and the prompt budget "
        "(default: model_dir when set, else characters are budgeted)",
    )
    max_concurrency: int = Field(default=4, ge=1, description="openai backend: requests in flight at once")
    request_timeout_s: float = Field(default=300.0, gt=0, description="openai backend: time limit of one request")
    decode: Literal["eager", "static", "cuda_graph"] = Field(
        default="eager",
        description="local decoding: eager (dynamic KV cache), static (preallocated KV cache), cuda_graph (static "
        "cache with CUDA-graph captured decode steps; falls back to static off CUDA)",
    )
    prompt_format: Literal["plain", "deepseek-v2"] = Field(
        default="plain", description="legacy: read when policy.preset is unset (deepseek-v2 = preset deepseek-v2-state)"
    )
    preset: str | None = Field(
        default=None,
        description="the model's preset (burnqed/policy/presets.py): prompt, stop, tokens, sampling, parsing as its "
        "authors run it; None = follow prompt_format",
    )
    trust_remote_code: bool = Field(
        default=False, description="let a checkpoint run its own modelling/tokenizer code (InternLM2.5-StepProver)"
    )
    device: str = Field(default="auto", description="auto | cpu | cuda | cuda:N")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    temperature: float = Field(default=1.0, ge=0, description="0 = greedy (one candidate per state)")
    top_p: float = Field(default=0.95, gt=0, le=1)
    top_k: int = Field(default=50, ge=0, description="sample among the k likeliest tokens first; 0 = all")
    max_new_tokens: int = Field(default=48, ge=1)
    max_prompt_tokens: int = Field(default=512, ge=16)
    seed: int | None = Field(default=0, description="torch seed set when a model loads; None = unseeded")
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    tiny: TinyModelConfig = Field(default_factory=TinyModelConfig)
    sft: SFTConfig = Field(default_factory=SFTConfig)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str | None) -> str | None:
        if value is not None:
            from burnqed.policy.presets import get_preset

            get_preset(value)
        return value

    @property
    def preset_name(self) -> str:
        """The preset in force: policy.preset, else the one prompt_format names."""
        if self.preset is not None:
            return self.preset
        return "plain" if self.prompt_format == "plain" else "deepseek-v2-state"

    def effective(self) -> PolicyConfig:
        """This config with the preset's token budget and sampling where they were not set explicitly."""
        m, t, p = self.sampling()
        if (m, t, p) == (self.max_new_tokens, self.temperature, self.top_p):
            return self
        return self.model_copy(update={"max_new_tokens": m, "temperature": t, "top_p": p})

    def sampling(self) -> tuple[int, float, float]:
        """(max_new_tokens, temperature, top_p): each set explicitly wins, else the preset's default."""
        from burnqed.policy.presets import get_preset

        p = get_preset(self.preset_name)
        given = self.model_fields_set
        return (
            self.max_new_tokens if "max_new_tokens" in given else p.max_new_tokens,
            self.temperature if "temperature" in given else p.temperature,
            self.top_p if "top_p" in given else p.top_p,
        )
