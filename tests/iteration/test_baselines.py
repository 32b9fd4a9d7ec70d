"""The baselines of a run: the rule policy alone and a reference-trained policy, on the run's held-out set."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from burnqed.config import BurnqedConfig
from burnqed.iteration import IterationRunner, RunLayout
from burnqed.iteration.baselines import BASELINES, baseline_report_path, reference_theorems, run_baselines
from burnqed.iteration.data import load_pairs_file
from burnqed.iteration.report import best_baseline_rows, run_report
from burnqed.lean import LeanPool
from burnqed.search.evaluation import load_report
from tests.iteration.test_runner import HELD_OUT, TRAIN
from tests.iteration.test_runner import config as config  # noqa: F401  (the runner's fixture)


async def _iterate_then_baselines(config: BurnqedConfig) -> dict:
    with anyio.fail_after(300):
        async with LeanPool(config.lean) as pool:
            await IterationRunner(config, config.paths.run_dir, pool).run(1)
            return await run_baselines(config, config.paths.run_dir, pool)


def test_baselines_are_evaluated_on_the_held_out_set_and_paired_with_the_last_iteration(config: BurnqedConfig) -> None:
    summaries = anyio.run(_iterate_then_baselines, config)
    layout = RunLayout(config.paths.run_dir)
    assert set(summaries) == set(BASELINES) == {"rules", "reference", "reference_matched", "supervised"}
    held_out = {t.name for t in HELD_OUT}
    rules = load_report(baseline_report_path(layout, "rules"))
    reference = load_report(baseline_report_path(layout, "reference"))
    matched = load_report(baseline_report_path(layout, "reference_matched"))
    supervised = load_report(baseline_report_path(layout, "supervised"))
    iteration0 = load_report(layout.eval_result(0, False))
    # the same statements and the same node budget as the run's own evaluation
    for report in (rules, reference, supervised):
        assert {o.name for o in report.outcomes} == held_out
        assert report.search.max_nodes == iteration0.search.max_nodes
        assert report.search.num_candidates == iteration0.search.num_candidates
    # compute-matched: the reference policy at k x the held-out node budget, k = the iterations
    assert matched.policy == reference.policy and {o.name for o in matched.outcomes} == held_out
    assert matched.search.max_nodes == iteration0.search.max_nodes * config.iteration.iterations
    assert (layout.checkpoints_llm / "baseline_supervised" / "config.json").is_file()
    assert rules.policy == "none" and rules.label == "automation"
    assert reference.policy != "none" and (layout.checkpoints_llm / "baseline_reference" / "config.json").is_file()
    # iteration 0's recipe on every reference proof: its epochs, not the iterated policy's sum
    sft = json.loads((layout.checkpoints_llm / "baseline_reference" / "sft_report.json").read_text(encoding="utf-8"))
    assert sft["epochs"] == config.iteration.first_sft_epochs
    assert config.iteration.first_sft_epochs != config.iteration.first_sft_epochs + (
        config.iteration.iterations - 1) * config.iteration.sft_epochs
    # it trained on the training set's reference proofs (every one with a proof), no held-out statement
    pairs = load_pairs_file(layout.root / "data" / "baseline_reference_pairs.jsonl")
    assert pairs and {t.name for t in reference_theorems(config)} == {t.name for t in TRAIN if t.proof}
    assert not {t.sha for t in reference_theorems(config)} & {t.sha for t in HELD_OUT}
    report = run_report([config.paths.run_dir], resamples=200)
    # one iteration only: iteration 0 is the last, so the baselines are paired with it
    assert {r.name for r in report.baselines} == set(BASELINES)
    assert all(r.last == 0 and r.vs_last is not None and r.vs_last.n == 2 for r in report.baselines)
    assert len(best_baseline_rows(report)) == 1
    # a baseline already reported is not run again
    before = baseline_report_path(layout, "rules").stat().st_mtime_ns

    async def again() -> dict:
        async with LeanPool(config.lean) as pool:
            return await run_baselines(config, config.paths.run_dir, pool)

    assert anyio.run(again)["rules"].solved == rules.solved
    assert baseline_report_path(layout, "rules").stat().st_mtime_ns == before


def test_the_reference_baseline_caps_its_statements_evenly(config: BurnqedConfig) -> None:
    capped = config.model_copy(update={"iteration": config.iteration.model_copy(update={"baseline_reference_size": 2})})
    names = [t.name for t in reference_theorems(capped)]
    assert len(names) == 2 and set(names) <= {t.name for t in TRAIN if t.proof}


@pytest.mark.parametrize("flag", [["--baselines"]])
def test_iterate_flag_sets_the_baselines(flag: list[str]) -> None:
    from burnqed.cli import build_parser

    args = build_parser().parse_args(["iterate", *flag])
    assert args.config_overrides(args)["iteration.baselines"] == list(BASELINES)


def test_an_interrupted_baseline_resumes_from_its_store(config: BurnqedConfig) -> None:
    from burnqed.search.results import SearchResult, SearchStats
    from burnqed.search.store import StatementStore

    layout = RunLayout(config.paths.run_dir)
    first = HELD_OUT[0]
    # what a killed rules evaluation had committed: one statement, marked so it cannot be a fresh search
    store = StatementStore(layout.baseline_store("rules"), resume=True)
    store.commit(SearchResult(theorem=first, proved=True, proof=["committed_before_the_kill"],
                              stats=SearchStats(), backend="embedded", reason="proved"))  # fmt: skip
    store.close()

    async def rules_only() -> dict:
        with anyio.fail_after(120):
            async with LeanPool(config.lean) as pool:
                return await run_baselines(config, config.paths.run_dir, pool, names=("rules",))

    anyio.run(rules_only)
    outcomes = {o.name: o for o in load_report(baseline_report_path(layout, "rules")).outcomes}
    assert set(outcomes) == {t.name for t in HELD_OUT}  # every statement reported
    assert outcomes[first.name].proof == ["committed_before_the_kill"]  # the committed one not searched again
    assert not layout.baseline_store("rules").exists()  # removed once the report is written
