"""The offline tiny model: tokenizer, chat template, save/reload through from_pretrained."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.config import BurnqedConfig, PathsConfig
from burnqed.policy.config import TinyModelConfig
from burnqed.policy.model import PolicyModel
from burnqed.policy.tiny import (
    SPECIAL_TOKENS,
    build_tiny_model,
    ensure_tiny_model,
    template_corpus,
)


def test_tokenizer_round_trips_lean_unicode_and_keeps_markers_whole(tiny_policy: PolicyModel) -> None:
    tok = tiny_policy.tokenizer
    text = "h₁ : ∀ (x : ℝ), x ^ 2 ≥ 0\n⊢ ∃ n, n ≠ 0 ∧ ¬(n < 0) → ⟨a, b⟩"
    ids = tok(text)["input_ids"]
    assert ids[0] == tok.bos_token_id
    assert tok.decode(ids, skip_special_tokens=True) == text
    marked = tok("[GOAL]⊢ True[PROOFSTEP]", add_special_tokens=False)["input_ids"]
    assert marked[0] == tok.convert_tokens_to_ids("[GOAL]")
    assert marked[-1] == tok.convert_tokens_to_ids("[PROOFSTEP]")
    assert all(tok.convert_tokens_to_ids(t) is not None for t in SPECIAL_TOKENS)


def test_tiny_model_is_saved_like_a_real_checkpoint(tiny_model_dir: Path) -> None:
    names = {p.name for p in tiny_model_dir.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"} <= names


def test_chat_template_renders_a_generation_prompt(tiny_policy: PolicyModel) -> None:
    text = tiny_policy.tokenizer.apply_chat_template(
        [{"role": "user", "content": "⊢ True"}], tokenize=False, add_generation_prompt=True
    )
    assert text == "<s><|user|>⊢ True\n<|assistant|>"


def test_ensure_tiny_model_builds_once_at_the_configured_path(tmp_path: Path) -> None:
    small = TinyModelConfig(vocab_size=400, hidden_size=32, intermediate_size=64, num_layers=1, num_heads=2, num_kv_heads=1,
                            corpus_sets=["core"])
    config = BurnqedConfig(paths=PathsConfig(home=tmp_path / "home"))
    config.policy.tiny = small
    path = ensure_tiny_model(config.paths, config.policy.tiny)
    assert path == tmp_path / "home" / "models" / "tiny"
    stamp = (path / "model.safetensors").stat().st_mtime_ns
    assert ensure_tiny_model(config.paths, config.policy.tiny) == path
    assert (path / "model.safetensors").stat().st_mtime_ns == stamp
    assert PolicyModel.load(path).hidden_size == 32


def test_empty_corpus_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="non-empty corpus"):
        build_tiny_model(tmp_path / "m", [])


def test_template_corpus_is_deterministic() -> None:
    assert template_corpus(20, seed=3) == template_corpus(20, seed=3)
    assert template_corpus(20, seed=3) != template_corpus(20, seed=4)
