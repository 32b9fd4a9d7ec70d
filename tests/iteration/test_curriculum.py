"""``iteration.curriculum``: an unlabeled pool, a small seed, a band of the solve history."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from burnqed.config import BurnqedConfig
from burnqed.data.sets import held_out_hashes
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.iteration import IterationRunner, RunLayout
from burnqed.iteration.curriculum import (
    CurriculumHistory,
    bucket_of,
    curriculum_pool,
    curriculum_sample,
    level_of,
    seed_set,
)
from burnqed.iteration.data import load_pairs_file, reference_pairs, trajectory_pairs
from burnqed.lean import LeanPool
from burnqed.trajectory.reader import read_trajectories

HELD_OUT = [Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n", proof=["intro n", "omega"])]


def _config(tmp_path: Path, tiny_model_dir: Path, **iteration: object) -> BurnqedConfig:
    held = tmp_path / "held_out.jsonl"
    if not held.is_file():
        save_theorems(held, HELD_OUT)
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
            "iteration": {"curriculum": True, "pool_size": 12, "seed_size": 2, "seed_max_level": 2,
                          "train_size": 3, "eval_set": str(held), "eval_size": 0,
                          "max_nodes": None, "num_candidates": None, "time_limit_s": None,
                          "first_sft_epochs": 1, "sft_epochs": 1, "use_ebm": False, "ebm_min_positives": 1000,
                          **iteration},
            "blueprint": {"iteration_attempts_budget": 20},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / "run")},
        }
    )


def _with(config: BurnqedConfig, **iteration: object) -> BurnqedConfig:
    return config.model_copy(update={"iteration": config.iteration.model_copy(update=iteration)})


@pytest.fixture
def config(tmp_path: Path, tiny_model_dir: Path) -> BurnqedConfig:
    return _config(tmp_path, tiny_model_dir)


def test_pool_excludes_the_held_out_statements(tmp_path: Path, tiny_model_dir: Path) -> None:
    first = curriculum_pool(_config(tmp_path / "a", tiny_model_dir))
    assert len(first) == 12 and sorted({level_of(t) for t in first}) == [1, 2, 3, 4, 5, 6]
    assert not {t.sha for t in first} & held_out_hashes()  # the shipped benchmark-test never enters
    # a held-out set holding what the pool would draw at slot 0: the slot redraws, nothing else moves
    taken = tmp_path / "b" / "held_out.jsonl"
    save_theorems(taken, [first[0]])
    second = curriculum_pool(_config(tmp_path / "b", tiny_model_dir))
    assert first[0].sha not in {t.sha for t in second}
    assert [t.statement for t in second[1:]] == [t.statement for t in first[1:]]
    # cached under paths.home/data and read back as it was
    assert curriculum_pool(_config(tmp_path / "b", tiny_model_dir)) == second
    assert list((tmp_path / "b" / "home" / "data").glob("curriculum-pool-*-n12.jsonl"))


def test_buckets_follow_the_solve_history() -> None:
    assert bucket_of([], 2) == "untried"
    assert bucket_of([True, True], 2) == "always"
    assert bucket_of([False, True], 2) == "sometimes"
    assert bucket_of([False], 2) == "failing"
    assert bucket_of([False, False], 2) == "never"


def test_band_sample_picks_from_the_band_and_is_a_function_of_the_history_before_n(config: BurnqedConfig) -> None:
    config = _with(config, train_size=4, explore_share=0.5, pool_size=24, seed_size=2)
    pool = curriculum_pool(config)
    seeds = {t.name for t in seed_set(config, pool)}
    names = [t.name for t in pool if t.name not in seeds]
    always, never, sometimes, failing = names[0:2], names[2:4], names[4:6], names[6:7]
    history = (
        CurriculumHistory()
        .record(0, always + never + sometimes + failing, always + sometimes)
        .record(1, always + never + sometimes, always)
    )
    sample = curriculum_sample(config, history, 2)
    picked = {t.name for t in sample.theorems}
    assert len(picked) == 4 and not picked & seeds
    assert not picked & set(always + never)  # saturated and given-up statements are left out
    assert sample.picked["sometimes"] + sample.picked["failing"] == 2 and sample.picked["untried"] == 2
    assert sample.band["always"] == 2 and sample.band["never"] == 2 and sample.band["failing"] == 1
    assert sample.band["sometimes"] == 2 and sample.band["untried"] == len(names) - 7
    frontier = sample.frontier
    assert all(level_of(t) <= frontier + config.iteration.band_width for t in sample.theorems if t.name not in history.before(2))
    # deterministic, and blind to records of iteration 2 or later (a resumed iteration samples the same set)
    assert curriculum_sample(config, history, 2) == sample
    later = history.record(2, list(picked), list(picked)).record(3, names, [])
    assert curriculum_sample(config, later, 2) == sample
    # the history file round-trips
    path = Path(config.paths.run_dir) / "history.json"
    later.save(path)
    assert CurriculumHistory.load(path) == later
    # too few open statements: the rest of the sample is exploration
    only_untried = curriculum_sample(_with(config, explore_share=0.0), CurriculumHistory(), 0)
    assert only_untried.picked["untried"] == 4


@pytest.mark.anyio
async def test_curriculum_trains_on_the_seed_and_search_found_proofs_only(config: BurnqedConfig) -> None:
    layout = RunLayout(config.paths.run_dir)
    pool_theorems = curriculum_pool(config)
    seeds = seed_set(config, pool_theorems)
    held = {t.sha for t in HELD_OUT} | held_out_hashes()
    with anyio.fail_after(240):
        async with LeanPool(config.lean) as pool:
            reports = await IterationRunner(config, config.paths.run_dir, pool).run(2)
            seed_ref = set(await reference_pairs(pool, seeds))
            others = [t for t in pool_theorems if t.name not in {s.name for s in seeds}]
            other_ref = set(await reference_pairs(pool, others))
    first, second = (r.steps for r in reports)
    # iteration 0: the seed's reference pairs only, recorded as such
    assert first.sft.sources == {"seed_reference": len(seed_ref)} and first.sft.reference_theorems == 2
    assert first.sft.reference_set.startswith("curriculum-seed[")
    rows0 = [json.loads(line) for line in layout.pairs(0).read_text(encoding="utf-8").splitlines()]
    assert {r["source"] for r in rows0} == {"seed"}
    assert set(load_pairs_file(layout.pairs(0))) == seed_ref
    # iteration 1: the seed plus what iteration 0's search proved, each pair labelled with its source
    rows1 = [json.loads(line) for line in layout.pairs(1).read_text(encoding="utf-8").splitlines()]
    found0 = set(trajectory_pairs([layout.trajectories(0)]))
    pairs1 = {(r["state"], r["tactic"]) for r in rows1}
    assert {(r["state"], r["tactic"]) for r in rows1 if r["source"] == "seed"} == seed_ref
    searched_rows = [r for r in rows1 if r["source"] == "search"]
    assert {(r["state"], r["tactic"]) for r in searched_rows} <= found0
    assert all(r["iteration"] == 0 for r in searched_rows)
    assert pairs1 <= seed_ref | found0  # one (the shortest) found proof per statement
    assert second.sft.sources["search"] == len(searched_rows)
    # so no reference step of a non-seed pool statement is trained on unless the search found it
    assert (other_ref - seed_ref - found0).isdisjoint(pairs1)
    # the searches drew from the pool (never the seed set) and never met a held-out statement
    searched = set()
    for i in (0, 1):
        searched |= set(read_trajectories(layout.trajectories(i), ["statement_sha"]).column(0).to_pylist())
    pool_shas = {t.sha for t in pool_theorems}
    assert searched <= pool_shas - {t.sha for t in seeds}
    assert not (pool_shas | searched) & held
    # the markers and the history record the band
    assert first.search.band["untried"] == 10 and first.search.train_set.startswith("curriculum[")
    assert sum(second.search.band.values()) == 10 and second.search.new_pairs is not None
    history = CurriculumHistory.load(layout.curriculum_history)
    assert sorted(history.searched) == ["0", "1"]
    assert set(history.searched["0"]) == {t.name for t in curriculum_sample(config, CurriculumHistory(), 0).theorems}


def test_the_depth_world_pool_excludes_its_held_out_set_and_labels_only_shallow_statements(
    tmp_path: Path, tiny_model_dir: Path
) -> None:
    from burnqed.data.sets import load_builtin
    from burnqed.iteration.baselines import reference_theorems

    config = _config(tmp_path, tiny_model_dir, world="depth", pool_size=30, eval_set="depth-test",
                     seed_size=3, seed_max_level=3)
    pool = curriculum_pool(config)
    held = {t.sha for t in load_builtin("depth-test", home=config.paths.home)}
    assert len(pool) == 30 and not held & {t.sha for t in pool}
    assert pool == curriculum_pool(config)  # cached, read back equal
    assert all(t.proof is None for t in pool if level_of(t) > 2)
    # the seed and the reference baseline can only use the labelled (shallow) statements
    assert all(level_of(t) <= 2 and t.proof for t in seed_set(config))
    assert {level_of(t) for t in reference_theorems(config)} <= {1, 2}
    with pytest.raises(ValueError, match="curriculum"):
        _config(tmp_path, tiny_model_dir, world="depth", curriculum=False)
