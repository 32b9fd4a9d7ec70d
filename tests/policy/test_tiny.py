"""The offline tiny model: tokenizer, chat template, save/reload through from_pretrained."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.config import BurnqedConfig, PathsConfig
from burnqed.policy.config import TinyModelConfig
from burnqed.policy.model import PolicyModel
from burnqed.policy.tiny import (
    SPECIAL_TOKENS,
    TINY_MODEL_CACHE_ENV,
    build_tiny_model,
    cached_tiny_model,
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


def test_a_tiny_model_from_the_cache_has_the_bytes_of_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = TinyModelConfig(vocab_size=300, hidden_size=16, intermediate_size=16, num_layers=1, num_heads=1,
                            num_kv_heads=1, max_position_embeddings=32)
    corpus = template_corpus(40, seed=1)
    cache = tmp_path / "cache"
    monkeypatch.setenv(TINY_MODEL_CACHE_ENV, str(cache))
    first = cached_tiny_model(tmp_path / "first", corpus, config=small)  # built in the cache, copied
    (cached,) = [p for p in cache.iterdir() if p.is_dir()]
    stamp = (cached / "model.safetensors").stat().st_mtime_ns
    second = cached_tiny_model(tmp_path / "second", corpus, config=small)  # copied only
    assert (cached / "model.safetensors").stat().st_mtime_ns == stamp
    other = cached_tiny_model(tmp_path / "other", corpus, config=small.model_copy(update={"seed": 1}))
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2  # the key covers the config
    monkeypatch.delenv(TINY_MODEL_CACHE_ENV)
    fresh = build_tiny_model(tmp_path / "fresh", corpus, config=small)
    files = sorted(p.name for p in fresh.iterdir())
    for copy in (first, second):
        assert sorted(p.name for p in copy.iterdir()) == files
        for name in files:
            assert (copy / name).read_bytes() == (fresh / name).read_bytes(), name
    assert (other / "model.safetensors").read_bytes() != (fresh / "model.safetensors").read_bytes()


def test_empty_corpus_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="non-empty corpus"):
        build_tiny_model(tmp_path / "m", [])


def test_template_corpus_is_deterministic() -> None:
    assert template_corpus(20, seed=3) == template_corpus(20, seed=3)
    assert template_corpus(20, seed=3) != template_corpus(20, seed=4)
