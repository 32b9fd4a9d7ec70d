"""Theorem subsets, plans and pair files of the iteration package."""

from __future__ import annotations

from pathlib import Path

from burnqed.config import BurnqedConfig
from burnqed.data.theorems import Theorem
from burnqed.iteration import apply_plan, plan_of
from burnqed.iteration.data import even_subset, load_pairs_file, save_pairs_file


def test_even_subset_spreads_over_a_graded_list() -> None:
    theorems = [Theorem(name=f"t{i}", statement="True") for i in range(10)]
    assert [t.name for t in even_subset(theorems, 5)] == ["t0", "t2", "t4", "t6", "t8"]
    assert len(even_subset(theorems, 0)) == 10 and len(even_subset(theorems, 50)) == 10


def test_plan_round_trips_through_the_config() -> None:
    config = BurnqedConfig()
    spec = plan_of(config, "iter_2")
    assert spec.label == "iter_2" and spec.train_size == config.iteration.train_size
    changed = apply_plan(config, {"train_size": 7, "use_ebm": False, "unknown": 1})
    assert (changed.iteration.train_size, changed.iteration.use_ebm) == (7, False)
    assert config.iteration.train_size != 7
    assert apply_plan(config, {}) is config


def test_a_plan_that_widens_the_training_search_leaves_the_held_out_budget() -> None:
    from burnqed.iteration.config import evaluation_search_config, iteration_search_config

    config = BurnqedConfig()
    base = evaluation_search_config(config)
    assert base == iteration_search_config(config)  # no plan: one budget
    # the scripted brain's stalled probe doubles max_nodes; later plans of the run chain onto it
    widened = apply_plan(apply_plan(config, {"max_nodes": 60, "num_candidates": 12}), {"max_nodes": 90})
    assert (iteration_search_config(widened).max_nodes, iteration_search_config(widened).num_candidates) == (90, 12)
    held_out = evaluation_search_config(widened)
    assert (held_out.max_nodes, held_out.num_candidates) == (base.max_nodes, base.num_candidates) == (32, 8)
    # an explicit held-out budget is the operator's, kept as given
    pinned = config.model_copy(
        update={"iteration": config.iteration.model_copy(update={"eval_max_nodes": 50})}
    )
    assert evaluation_search_config(apply_plan(pinned, {"max_nodes": 60})).max_nodes == 50


def test_pairs_file_round_trip(tmp_path: Path) -> None:
    pairs = [("a : Nat\n⊢ a = a", "rfl"), ("⊢ True", "trivial")]
    save_pairs_file(tmp_path / "p.jsonl", pairs)
    assert load_pairs_file(tmp_path / "p.jsonl") == pairs
