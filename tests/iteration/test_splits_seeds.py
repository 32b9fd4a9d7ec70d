"""Issue 42: the tuning and test splits, the seeds one key drives, the compute-matched budget, the split in the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from burnqed.config import BurnqedConfig
from burnqed.iteration import RunLayout
from burnqed.iteration.baselines import baseline_search
from burnqed.iteration.config import evaluation_search_config, matched_nodes, pool_seed, seeded_policy
from burnqed.iteration.report import best_baseline_rows, run_report
from burnqed.iteration.report_view import render_tables
from tests.iteration.test_report import _first, _report, _write


def _config(**iteration: object) -> BurnqedConfig:
    base = {"curriculum": True, "world": "depth", "eval_set": "depth-test"}
    return BurnqedConfig.model_validate({"iteration": base | iteration})


def test_eval_split_tune_evaluates_the_tuning_split_and_test_the_test_split() -> None:
    assert _config().iteration.held_out_set == "depth-test"
    assert _config(eval_split="tune").iteration.held_out_set == "depth-tune"
    # a set without a tuning split cannot be tuned on: refused, not silently evaluated on the test split
    with pytest.raises(ValidationError, match="no tuning split"):
        BurnqedConfig.model_validate({"iteration": {"eval_set": "mine.jsonl", "eval_split": "tune"}})


def test_iteration_seed_drives_the_pool_the_policy_and_the_fine_tuning_unless_scoped() -> None:
    zero, three = _config(), _config(seed=3)
    # seed 0 is the run it always was
    assert pool_seed(zero) == zero.data.train_seed and seeded_policy(zero) == zero.policy
    assert pool_seed(three) == three.data.train_seed + 3
    assert seeded_policy(three).seed == three.policy.seed + 3
    assert seeded_policy(three).temperature == three.policy.temperature  # only the seed moves
    scoped = _config(seed=3, seed_scope="fine_tuning")
    assert pool_seed(scoped) == scoped.data.train_seed and seeded_policy(scoped) == scoped.policy


def test_the_compute_matched_baseline_gets_the_iterations_node_budget() -> None:
    config = _config(iterations=3, eval_max_nodes=24, baseline_num_candidates=4, baseline_temperature=0.7)
    assert matched_nodes(config) == 24 * 3 == 72
    matched, reference = baseline_search(config, "reference_matched"), baseline_search(config, "reference")
    assert (matched.max_nodes, matched.num_candidates) == (72, 4)
    assert (reference.max_nodes, reference.num_candidates) == (24, 4)
    # the rule policy keeps the iterations' own search (no sampling of its own)
    assert baseline_search(config, "rules") == evaluation_search_config(config)
    assert matched_nodes(_config(iterations=5, max_nodes=32)) == 32 * 5


def test_the_report_says_which_split_each_evaluation_used(tmp_path: Path) -> None:
    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report(_first(4)).model_copy(update={"theorem_set": "depth-tune[10]"}))
    _write(layout.eval_result(1, False),
           _report(_first(6), iteration=1).model_copy(update={"theorem_set": "depth-tune[10]"}))
    _write(layout.eval_results_dir / "baseline_reference.json",
           _report(_first(5), policy="ref").model_copy(update={"theorem_set": "depth-tune[10]"}))
    report = run_report([layout.root], resamples=200)
    assert [(r.split, r.theorem_set) for r in report.splits] == [("tune", "depth-tune[10]")]
    assert report.splits[0].evaluations == ["iter_0_no_ebm", "iter_1_no_ebm", "baseline_reference"]
    from rich.console import Console

    console = Console(width=250, record=True)
    for table in render_tables(report):
        console.print(table)
    assert "the held-out split each evaluation used" in console.export_text()


def test_the_supervised_upper_bound_is_reported_but_never_the_baseline_to_beat(tmp_path: Path) -> None:
    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report(_first(3)))
    _write(layout.eval_result(1, False), _report(_first(6), iteration=1))
    results = layout.eval_results_dir
    _write(results / "baseline_reference.json", _report(_first(4), policy="ref"))
    _write(results / "baseline_reference_matched.json", _report(_first(5), policy="ref", max_nodes=64))
    _write(results / "baseline_supervised.json", _report(_first(9), policy="sup"))
    report = run_report([layout.root], resamples=200)
    rows = {r.name: r for r in report.baselines}
    assert set(rows) == {"iter_0", "reference", "reference_matched", "supervised"}
    # the compute-matched arm (5/10) is the one to beat, not the upper bound (9/10)
    assert [r.name for r in best_baseline_rows(report)] == ["reference_matched"]
    assert "compute-matched" in rows["reference_matched"].description
    assert "upper bound" in rows["supervised"].description
    assert rows["supervised"].vs_last is not None and rows["supervised"].vs_last.diff_points == pytest.approx(-30.0)
    # its budget differs from the last iteration's, and the report says so
    assert any("max_nodes" in n for n in rows["reference_matched"].notes)
