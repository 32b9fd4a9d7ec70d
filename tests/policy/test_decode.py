"""Static-cache decoding gives the eager path's tokens and log-probs; cuda_graph falls back off CUDA."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import torch

from burnqed.policy.config import PolicyConfig
from burnqed.policy.decode import LENGTH_QUANTUM, MAX_SLOTS, StaticDecoder, row_bucket
from burnqed.policy.model import PolicyModel

# different lengths: the batch is left-padded, so the mask and positions matter
STATES = [
    "n : ℕ\n⊢ n + 0 = n",
    "a b c : ℤ\nh₀ : a < b\nh₁ : b < c\nh₂ : 0 < a\n⊢ a + b + c > 0 ∧ a * b < b * c",
    "⊢ True",
]


def _model(directory: Path, decode: str, temperature: float = 0.0) -> PolicyModel:
    config = PolicyConfig(
        device="cpu", dtype="float32", temperature=temperature, max_new_tokens=12, max_prompt_tokens=160, decode=decode
    )  # type: ignore[arg-type]
    return PolicyModel.load(directory, config)


@pytest.mark.parametrize("n", [1, 3])
def test_static_decoding_matches_eager_exactly(tiny_model_dir: Path, n: int) -> None:
    eager, static = _model(tiny_model_dir, "eager"), _model(tiny_model_dir, "static")
    prompts = [eager.prompt(s) for s in STATES]
    ids_e, texts_e, lp_e = eager._sample(prompts, n)
    ids_s, texts_s, lp_s = static._sample(prompts, n)
    assert ids_s == ids_e and texts_s == texts_e
    assert lp_s == pytest.approx(lp_e, abs=1e-4)
    assert static.decode_mode == "static"


def test_a_reused_slot_gives_the_same_answers_as_a_fresh_one(tiny_model_dir: Path) -> None:
    static = _model(tiny_model_dir, "static")
    first = static.generate(STATES, 2)
    static.generate(STATES[:1], 4)  # another call through the same bucket in between
    assert static.generate(STATES, 2) == first
    assert static.generate(STATES, 2) == _model(tiny_model_dir, "eager").generate(STATES, 2)


def test_sampling_with_static_decoding_is_seeded_like_eager(tiny_model_dir: Path) -> None:
    eager, static = _model(tiny_model_dir, "eager", 1.0), _model(tiny_model_dir, "static", 1.0)
    torch.manual_seed(3)
    a = eager.generate(STATES, 4)
    torch.manual_seed(3)
    b = static.generate(STATES, 4)
    assert [[c.tactic for c in cs] for cs in a] == [[c.tactic for c in cs] for cs in b]


def test_cuda_graph_falls_back_to_static_without_cuda(tiny_model_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="burnqed.policy.decode"):
        graphs = _model(tiny_model_dir, "cuda_graph")
        assert graphs.decode_mode == "static"
    assert any("needs a CUDA device" in r.getMessage() for r in caplog.records)
    assert graphs.generate(STATES, 2) == _model(tiny_model_dir, "eager").generate(STATES, 2)


def test_buckets_pad_rows_and_lengths_and_old_slots_are_freed(tiny_model_dir: Path) -> None:
    assert [row_bucket(r) for r in (1, 3, 8, 200, 256, 257, 600)] == [1, 4, 8, 256, 256, 512, 600]
    model = _model(tiny_model_dir, "static").model
    decoder = StaticDecoder(model, "static")
    slot = decoder.slot(5, 100)
    assert (slot.rows, slot.length) == (8, LENGTH_QUANTUM)
    assert decoder.slot(7, 200) is slot  # same bucket, reused
    for rows in (1, 2, 16, 32, 64, 128, 256):
        decoder.slot(rows, 10)
    assert len(decoder._slots) == MAX_SLOTS and (8, LENGTH_QUANTUM) not in decoder._slots


@pytest.mark.skipif(torch.cuda.is_available(), reason="the refusal is for machines without CUDA")
def test_bench_policy_at_the_7b_shape_refuses_clearly_without_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    from burnqed.cli import main

    assert main(["bench", "policy", "--shape", "7b"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("burnqed bench policy: the 7b shape needs a CUDA GPU")
    assert main(["bench", "lean", "--shape", "7b"]) == 2
    assert "--shape applies to `bench policy` only" in capsys.readouterr().err
