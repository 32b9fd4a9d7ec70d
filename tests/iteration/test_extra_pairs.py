"""``iteration.extra_pairs``: pair files (LeanDojo Mathlib pairs, …) in every SFT step, counted as sources["extra"]."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, cast

import anyio
import pytest

from burnqed.data.leandojo import TacticPair, write_pairs
from burnqed.iteration import IterationRunConfig, RunLayout
from burnqed.iteration.data import extra_pairs, load_pairs_file, save_pairs_file
from burnqed.iteration.errors import IterationDataError
from burnqed.iteration.steps import IterationContext, sft_step
from burnqed.search.protocols import ProofPool

REFERENCE = [("n : Nat\n⊢ n = n", "rfl"), ("⊢ ∀ (n : Nat), n = n", "intro n")]
MATHLIB = [
    TacticPair(state="n : ℕ\n⊢ n + 0 = n", tactic="simp", state_after="no goals", theorem="Nat.add_zero'",
               file_path="Mathlib/Algebra/Group/Basic.lean"),
    TacticPair(state="p q : Prop\nh : p ∧ q\n⊢ q ∧ p", tactic="exact ⟨h.2, h.1⟩", state_after="no goals",
               theorem="and_swap'", file_path="Mathlib/Logic/Basic.lean"),
    # the same pair as a reference one: trained on once
    TacticPair(state="n : Nat\n⊢ n = n", tactic="rfl", state_after="no goals", theorem="Nat.refl'",
               file_path="Mathlib/Init.lean"),
]


class _NoPool:
    """A pool the SFT step must not touch (its reference pairs are cached, or it fails first)."""

    def start_proof(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError("the SFT step replayed reference proofs")


def _config(tmp_path: Path, tiny_model_dir: Path, extra: list[str]) -> IterationRunConfig:
    return IterationRunConfig.model_validate(
        {
            "policy": {
                "model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "float32", "max_prompt_tokens": 128,
                "sft": {"epochs": 1, "batch_size": 8, "device": "cpu", "warmup_steps": 0},
            },
            "iteration": {"first_sft_epochs": 1, "extra_pairs": extra},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / "run")},
        }
    )


def _context(config: IterationRunConfig) -> IterationContext:
    return IterationContext(
        config=config, layout=RunLayout(config.paths.run_dir), index=0, pool=cast(ProofPool, _NoPool()),
        train=[], held_out=[],
    )


@pytest.mark.anyio
async def test_extra_pairs_are_fine_tuned_on_and_counted_as_extra(tmp_path: Path, tiny_model_dir: Path) -> None:
    write_pairs(tmp_path / "mathlib.jsonl", MATHLIB)
    config = _config(tmp_path, tiny_model_dir, [str(tmp_path / "mathlib.jsonl")])
    assert config.iteration.extra_pairs == [tmp_path / "mathlib.jsonl"]
    ctx = _context(config)
    save_pairs_file(ctx.layout.reference_pairs, REFERENCE)
    with anyio.fail_after(120):
        summary = await sft_step(ctx)
    assert summary.sources == {"reference": 2, "extra": 3}
    assert summary.pairs == 4  # the shared pair once
    trained = load_pairs_file(ctx.layout.pairs(0))
    assert trained == [*REFERENCE, *((p.state, p.tactic) for p in MATHLIB[:2])]
    assert (ctx.layout.llm(0) / "config.json").is_file()


@pytest.mark.anyio
async def test_without_extra_pairs_no_extra_source_is_reported(tmp_path: Path, tiny_model_dir: Path) -> None:
    ctx = _context(_config(tmp_path, tiny_model_dir, []))
    save_pairs_file(ctx.layout.reference_pairs, REFERENCE)
    with anyio.fail_after(120):
        summary = await sft_step(ctx)
    assert summary.sources == {"reference": 2}


@pytest.mark.anyio
async def test_a_missing_extra_file_fails_before_replay_or_training(tmp_path: Path, tiny_model_dir: Path) -> None:
    missing = tmp_path / "nowhere" / "mathlib.jsonl"
    ctx = _context(_config(tmp_path, tiny_model_dir, [str(missing)]))
    # no cached reference pairs: reaching the replay would hit _NoPool's AssertionError instead
    with anyio.fail_after(30), pytest.raises(IterationDataError, match="extra_pairs.*nowhere"):
        await sft_step(ctx)
    assert not ctx.layout.pairs(0).exists() and not ctx.layout.llm(0).exists()


def test_an_unreadable_extra_file_is_an_iteration_data_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"state": "⊢ True"}\n', encoding="utf-8")  # no tactic
    with pytest.raises(IterationDataError, match=r"bad\.jsonl:1"):
        extra_pairs([bad])
    good = tmp_path / "good.jsonl"
    write_pairs(good, MATHLIB)
    assert extra_pairs([good, good]) == [(p.state, p.tactic) for p in MATHLIB]


@pytest.mark.anyio
async def test_extra_pairs_alone_train_when_no_statement_has_a_reference_proof(tmp_path: Path, tiny_model_dir: Path) -> None:
    from burnqed.data.theorems import Theorem

    write_pairs(tmp_path / "mathlib.jsonl", MATHLIB)
    config = _config(tmp_path, tiny_model_dir, [str(tmp_path / "mathlib.jsonl")])
    ctx = _context(config)
    # statements without proofs: nothing to replay (the pool is never touched), the extra pairs suffice
    ctx.train = [Theorem(name="mine", statement="∀ (n : Nat), n + 0 = n")]
    with anyio.fail_after(120):
        summary = await sft_step(ctx)
    assert summary.trained and summary.sources == {"reference": 0, "extra": 3}
    assert load_pairs_file(ctx.layout.pairs(0)) == [(p.state, p.tactic) for p in MATHLIB]


@pytest.mark.anyio
async def test_search_first_iteration_zero_keeps_the_base_model(tmp_path: Path, tiny_model_dir: Path) -> None:
    from burnqed.data.theorems import Theorem

    config = _config(tmp_path, tiny_model_dir, [])
    config = config.model_copy(update={"iteration": config.iteration.model_copy(update={"start": "search"})})
    ctx = _context(config)
    ctx.train = [Theorem(name="mine", statement="∀ (n : Nat), n + 0 = n")]
    with anyio.fail_after(60):
        summary = await sft_step(ctx)
    assert not summary.trained and summary.pairs == 0 and summary.checkpoint == str(tiny_model_dir)
    assert not ctx.layout.llm(0).exists()
    ctx.summaries["sft"] = summary
    assert ctx.policy_dir() == tiny_model_dir
