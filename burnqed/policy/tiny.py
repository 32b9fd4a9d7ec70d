"""The offline tiny policy: a byte-level BPE tokenizer and a small Llama, built in code.

The tokenizer is trained with ``tokenizers`` on theorem-set text and wrapped as a
transformers fast tokenizer with a chat template; the model is a ``LlamaForCausalLM`` from
a config in code. Both are saved with ``save_pretrained`` and reloaded through the same
``from_pretrained`` path as any real model. The weights are random: expert iteration (or
``burnqed policy sft``) teaches it tactics.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import json
import logging
import os
import random
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burnqed.env import env
from burnqed.files import DiskFull, saving
from burnqed.policy.config import TinyModelConfig
from burnqed.policy.errors import PolicyLoadError

if TYPE_CHECKING:
    from burnqed.paths import PathsConfig

__all__ = [
    "SPECIAL_TOKENS",
    "TINY_MODEL_CACHE_ENV",
    "build_tiny_model",
    "cached_tiny_model",
    "ensure_tiny_model",
    "template_corpus",
    "tiny_corpus",
]

log = logging.getLogger(__name__)

# A directory of built tiny models keyed by what the build reads: ensure_tiny_model copies from
# it instead of building (~12 s of CPU) each time; the test suite shares one per session.
TINY_MODEL_CACHE_ENV = "BURNQED_TINY_MODEL_CACHE"

BOS, EOS, PAD, UNK = "<s>", "</s>", "<pad>", "<unk>"
SPECIAL_TOKENS = [PAD, BOS, EOS, UNK, "[GOAL]", "[PROOFSTEP]", "<|user|>", "<|assistant|>", "<|system|>"]

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{{ '\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_NAMES = ["n", "m", "k", "a", "b", "c", "x", "y", "z", "p", "q"]
_TYPES = ["ℕ", "ℤ", "Nat", "Int", "Prop"]
_TACTICS = [
    "intro {v}",
    "intros",
    "simp",
    "simp at {h}",
    "omega",
    "rfl",
    "ring",
    "linarith",
    "nlinarith [sq_nonneg ({v} - {w})]",
    "norm_num",
    "decide",
    "constructor",
    "exact {h}",
    "apply {h}",
    "cases {h} with",
    "rcases {h} with ⟨{v}, {w}⟩",
    "use {v}",
    "left",
    "right",
    "induction {v} with",
    "rw [Nat.add_comm]",
    "exact ⟨{h}, {g}⟩",
    "positivity",
    "trivial",
    "exact fun {v} => {h}",
]
_PROPS = [
    "{v} + 0 = {v}",
    "0 + {v} = {v}",
    "{v} * 1 = {v}",
    "{v} + {w} = {w} + {v}",
    "{v} * {w} = {w} * {v}",
    "{v} ≤ {v} + {w}",
    "({v} + {w}) ^ 2 = {v} ^ 2 + 2 * {v} * {w} + {w} ^ 2",
    "{v} ^ 2 + {w} ^ 2 ≥ 2 * {v} * {w}",
    "{v} < {w} → {v} + 1 ≤ {w}",
    "P ∧ Q → Q ∧ P",
    "P ∨ Q → Q ∨ P",
    "(P → Q) → ¬Q → ¬P",
    "∃ {v}, {v} + {w} = {w}",
    "¬({v} < {v})",
    "{v} - {v} = 0",
    "2 * {v} = {v} + {v}",
]


def template_corpus(count: int = 600, seed: int = 0) -> list[str]:
    """Synthetic theorem-set text: statements, rendered goals and tactics (no data files needed)."""
    rng = random.Random(seed)
    texts: list[str] = []
    for _ in range(count):
        v, w = rng.sample(_NAMES, 2)
        h, g = rng.choice(["h", "h₁", "h₂", "hab", "hx", "hp"]), rng.choice(["h'", "hq", "h₀"])
        ty = rng.choice(_TYPES)
        prop = rng.choice(_PROPS).format(v=v, w=w)
        hyp = rng.choice(_PROPS).format(v=w, w=v)
        tactic = rng.choice(_TACTICS).format(v=v, w=w, h=h, g=g)
        texts.append(f"theorem t_{rng.randrange(10**4)} ({v} {w} : {ty}) : {prop} := by\n  {tactic}")
        texts.append(f"[GOAL]{v} {w} : {ty}\n{h} : {hyp}\n⊢ {prop}[PROOFSTEP]{tactic}")
        texts.append(f"∀ ({v} : {ty}), {prop}")
    return texts


def _builtin_corpus(names: Sequence[str], home: Path | None) -> list[str]:
    """Statements and reference proofs of built-in theorem sets, if the data package has them."""
    if not names:
        return []
    try:
        sets = importlib.import_module("burnqed.data.sets")
    except ImportError:
        return []
    texts: list[str] = []
    for name in names:
        try:
            theorems = sets.load_builtin(name, home=home)
        except Exception as exc:  # noqa: BLE001 - a missing or broken optional set only shrinks the corpus
            log.info("built-in set %s not usable for the tiny corpus: %s", name, exc)
            continue
        for thm in theorems:
            texts.append(f"⊢ {thm.statement}")
            if thm.proof:
                texts.append("\n".join(thm.proof))
    return texts


def tiny_corpus(
    extra: Iterable[str] = (), *, sets: Sequence[str] = ("core", "benchmark-train"), home: Path | None = None
) -> list[str]:
    """The tokenizer corpus: the named built-in sets (cached under ``home``) plus template text."""
    return [*_builtin_corpus(sets, home), *template_corpus(), *extra]


def _train_tokenizer(corpus: Sequence[str], vocab_size: int) -> Any:
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        pre_tokenizers,
        processors,
        trainers,
    )

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(corpus), trainer=trainer)
    bos = tok.token_to_id(BOS)
    # BOS on every encoded text (prompts), like Llama tokenizers; EOS is appended by SFT only
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, bos)]
    )
    return tok


def build_tiny_model(
    out_dir: str | Path, corpus_texts: Sequence[str], *, config: TinyModelConfig | None = None
) -> Path:
    """Train the tokenizer on ``corpus_texts``, build the tiny Llama, save both to ``out_dir``."""
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoTokenizer,
        LlamaConfig,
        LlamaForCausalLM,
        PreTrainedTokenizerFast,
    )
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # burnqed shows its own progress; per-shard bars are noise
    config = config or TinyModelConfig()
    out_dir = Path(out_dir)
    if not corpus_texts:
        raise ValueError("the tiny model's tokenizer needs a non-empty corpus")
    raw = _train_tokenizer(corpus_texts, config.vocab_size)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        unk_token=UNK,
        padding_side="left",
        chat_template=CHAT_TEMPLATE,
        model_max_length=config.max_position_embeddings,
    )
    llama = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_kv_heads,
        max_position_embeddings=config.max_position_embeddings,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(config.seed)
    model = LlamaForCausalLM(llama)
    tmp = out_dir.with_name(f".{out_dir.name}.building-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with saving(out_dir, "free space and run the same command again (it builds the model anew)", cleanup=tmp):
        tmp.mkdir(parents=True)
        tokenizer.save_pretrained(tmp)
        model.save_pretrained(tmp)
        (tmp / "burnqed_tiny.json").write_text(json.dumps(config.model_dump(), indent=2), encoding="utf-8")
    # the same path a real checkpoint takes: anything that does not round-trip fails here
    AutoTokenizer.from_pretrained(tmp, local_files_only=True)
    AutoModelForCausalLM.from_pretrained(tmp, local_files_only=True)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    os.replace(tmp, out_dir)
    log.info("built tiny policy model in %s (%d tokens)", out_dir, len(tokenizer))
    return out_dir


def ensure_tiny_model(paths: PathsConfig, tiny: TinyModelConfig) -> Path:
    """The tiny model directory at ``paths.tiny_model_dir``, built first if missing."""
    out = Path(paths.tiny_model_dir)
    if (out / "config.json").is_file():
        return out
    try:
        corpus = tiny_corpus(sets=tiny.corpus_sets, home=paths.home)
        return cached_tiny_model(out, corpus, config=tiny)
    except DiskFull:
        raise  # the work failed (exit 1), not an input: the line already names the path
    except OSError as exc:
        raise PolicyLoadError(f"cannot build the tiny model in {out}: {exc}") from exc


def cached_tiny_model(out_dir: str | Path, corpus_texts: Sequence[str], *, config: TinyModelConfig) -> Path:
    """``build_tiny_model``, or where ``BURNQED_TINY_MODEL_CACHE`` names a folder, a copy of the
    build of (``config``, ``corpus_texts``) kept there (built there first if missing).

    The build is deterministic (a seeded model, a tokenizer trained on the same text), so the
    copy equals a fresh build; the key covers everything the build reads. One builder at a
    time per key (an ``flock``): processes sharing the cache wait for it instead of building twice.
    """
    cache = env(TINY_MODEL_CACHE_ENV)
    if not cache:
        return build_tiny_model(out_dir, corpus_texts, config=config)
    out = Path(out_dir)
    key = hashlib.sha256(json.dumps([config.model_dump(), list(corpus_texts)]).encode()).hexdigest()[:24]
    built = Path(cache) / key
    built.parent.mkdir(parents=True, exist_ok=True)
    with (built.parent / f"{key}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (built / "config.json").is_file():
            build_tiny_model(built, corpus_texts, config=config)
    tmp = out.with_name(f".{out.name}.copying-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with saving(out, "free space and run the same command again (it builds the model anew)", cleanup=tmp):
        shutil.copytree(built, tmp)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    log.info("built tiny policy model in %s (a copy of %s)", out, built)
    return out
