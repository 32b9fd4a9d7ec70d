"""``iteration.fresh_train_set``: each iteration searches a new benchmark-train, learning only what search found."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from burnqed.config import BurnqedConfig
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.iteration import IterationDataError, IterationRunner, RunLayout
from burnqed.iteration.data import (
    load_pairs_file,
    reference_pairs,
    training_set,
    trajectory_pairs,
)
from burnqed.lean import LeanPool
from burnqed.trajectory.reader import read_trajectories

HELD_OUT = [Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n", proof=["intro n", "omega"])]


@pytest.fixture
def config(tmp_path: Path, tiny_model_dir: Path) -> BurnqedConfig:
    save_theorems(tmp_path / "held_out.jsonl", HELD_OUT)
    return BurnqedConfig.model_validate(
        {
            "lean": {"backend": "embedded", "num_workers": 2, "read_timeout_s": 20.0, "startup_timeout_s": 60.0},
            "policy": {
                "model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "float32",
                "max_new_tokens": 10, "max_prompt_tokens": 128, "seed": 0,
                "sft": {"epochs": 1, "batch_size": 8, "device": "cpu", "warmup_steps": 0},
            },
            "ebm": {"epochs": 1, "hidden_dims": [16], "batch_size": 4, "num_negatives": 1, "val_fraction": 0.0,
                    "device": "cpu", "warmup_steps": 0},
            "search": {"num_candidates": 2, "max_nodes": 3, "max_depth": 4, "time_limit_s": 30.0,
                       "concurrency": 1},
            "iteration": {"train_set": "benchmark-train", "train_size": 4, "fresh_train_set": True,
                          "eval_set": str(tmp_path / "held_out.jsonl"), "eval_size": 0,
                          "max_nodes": None, "num_candidates": None, "time_limit_s": None,
                          "first_sft_epochs": 1, "sft_epochs": 1, "ebm_min_positives": 1},
            "blueprint": {"iteration_attempts_budget": 20},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / "run")},
        }
    )


def test_fresh_sets_are_a_deterministic_function_of_the_iteration(config: BurnqedConfig) -> None:
    first, second = training_set(config, 0), training_set(config, 1)
    assert second == training_set(config, 1)  # a resumed run gets the same set back
    assert {t.statement for t in first}.isdisjoint(t.statement for t in second)
    # iteration 0 keeps the default set's names; later sets' names say their seed (no clashes)
    assert [t.name for t in first] == [f"train_{i:04d}" for i in range(4)]
    assert all(t.name.startswith("s2_train_") for t in second)
    off = config.model_copy(update={"iteration": config.iteration.model_copy(update={"fresh_train_set": False})})
    assert training_set(off, 1) == first


def test_fresh_sets_need_the_generated_benchmark(config: BurnqedConfig) -> None:
    it = config.iteration.model_copy(update={"train_set": config.iteration.eval_set})
    with pytest.raises(IterationDataError, match="fresh_train_set"):
        training_set(config.model_copy(update={"iteration": it}), 1)


@pytest.mark.anyio
async def test_iteration_1_searches_new_theorems_and_never_learns_their_reference_proofs(
    config: BurnqedConfig,
) -> None:
    layout = RunLayout(config.paths.run_dir)
    with anyio.fail_after(240):
        async with LeanPool(config.lean) as pool:
            reports = await IterationRunner(config, config.paths.run_dir, pool).run(2)
            ref1 = set(await reference_pairs(pool, training_set(config, 1)))
    first, second = (r.steps for r in reports)
    assert first.search.train_set == "benchmark-train[seed=1,n=4]"
    assert second.search.train_set == "benchmark-train[seed=2,n=4]"
    searched = [set(read_trajectories(layout.trajectories(i), ["statement_sha"]).column(0).to_pylist())
                for i in (0, 1)]
    assert searched[0] == {t.sha for t in training_set(config, 0)}
    assert searched[1] == {t.sha for t in training_set(config, 1)}
    assert searched[0].isdisjoint(searched[1])
    # iteration 1 learns from iteration 0's reference proofs and iteration 0's search only
    assert second.sft.reference_set == "benchmark-train[seed=1,n=4]"
    ref0 = set(load_pairs_file(layout.reference_pairs))
    found0 = set(trajectory_pairs([layout.trajectories(0)]))
    pairs1 = set(load_pairs_file(layout.pairs(1)))
    assert pairs1 == ref0 | found0
    unseen = ref1 - ref0 - found0
    assert unseen and unseen.isdisjoint(pairs1)
