"""The demo's report: the chart and the honest verdict."""

from __future__ import annotations

from pathlib import Path

from burnqed.coordination.demo import DemoRow, render_chart, verdict


def _rows(*held_out: float) -> list[DemoRow]:
    return [DemoRow(label=f"iter_{i}", train=0.9, held_out=v, held_out_no_ebm=v - 0.05) for i, v in enumerate(held_out)]


def test_verdict_says_plainly_when_there_was_no_improvement() -> None:
    text = verdict(_rows(0.6, 0.58), held_out_size=300)
    assert "no held-out improvement" in text
    assert "-2.0 points" in text


def test_verdict_separates_signal_from_noise() -> None:
    assert "beyond noise" in verdict(_rows(0.4, 0.7), held_out_size=300)
    assert "within noise" in verdict(_rows(0.60, 0.62), held_out_size=60)


def test_verdict_with_a_single_iteration_measures_nothing() -> None:
    assert "no improvement can be measured" in verdict(_rows(0.5))


def test_chart_is_an_html_page_with_one_line_per_series(tmp_path: Path) -> None:
    path = render_chart(_rows(0.5, 0.6, 0.7), tmp_path / "chart.html")
    html = path.read_text(encoding="utf-8")
    assert html.count("<polyline") == 3
    assert "iter_2" in html and "70.0%" in html
    assert "embedded checker" in html


def test_the_demo_ends_with_the_paired_test_and_the_curve(tmp_path: Path) -> None:
    from rich.console import Console

    from burnqed.coordination.demo import statistics_section
    from burnqed.iteration import RunLayout
    from tests.iteration.test_report import PNG_MAGIC, _report, _write

    names = [f"t{i}" for i in range(40)]
    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report(set(names[:10]), names=names))
    _write(layout.eval_result(1, False), _report(set(names[:14]), names=names, iteration=1))
    console = Console(record=True, width=200)
    text = statistics_section(layout.root, console)
    assert text is not None and "Iteration 1 vs iteration 0" in text and "+10.0 points" in text
    assert "4 gained / 0 lost" in text and "McNemar exact p = 0.125" in text and "not significant" in text
    # the percentile interval excludes 0 on 4 discordant statements, the exact test does not reject: no claim
    assert "but the exact test does not reject" in text and "beats it by" not in text
    _write(layout.eval_result(2, False), _report(set(names[:25]), names=names, iteration=2))
    text = statistics_section(layout.root, console)
    assert text is not None and "Iteration 2" in text and "a significant change" in text
    assert layout.report_chart.read_bytes().startswith(PNG_MAGIC)
    assert "95%" in console.export_text()
    # without an evaluated iteration 0 there is nothing to pair against, said so
    assert "No paired statistics" in (statistics_section(tmp_path / "empty", console) or "")


def test_the_expert_mode_is_the_default_and_sets_its_keys_below_set() -> None:
    from burnqed.cli import build_parser
    from burnqed.config import BurnqedConfig
    from burnqed.coordination.demo import DEMO_MODES, demo_config

    args = build_parser().parse_args(["demo"])
    assert args.mode == "expert"  # real expert iteration with its baselines (issue 30)
    assert build_parser().parse_args(["demo", "--mode", "reference"]).mode == "reference"
    given = BurnqedConfig.model_validate({"iteration": {"train_size": 7}})  # as `--set iteration.train_size=7` loads
    config = demo_config(given, "expert", ["iteration.train_size=7"])
    it = config.iteration
    # real expert iteration: a curriculum over the depth world's unlabeled pool, held-out depth-test, baselines
    assert it.curriculum and it.world == "depth" and it.eval_set == "depth-test" and it.expert_rules
    assert it.baselines == ["rules", "reference", "reference_matched", "supervised"] and config.search.max_depth == 24
    assert it.head_controls == ["connectives", "depth_bonus"]  # the head beside its controls (issue 42)
    # the head as a remaining-depth regressor (one nat per step), its ablation in the last iteration
    assert config.ebm.nce_weight == 0 and config.ebm.depth_scale == 1.0 and it.ebm_eval == "last"
    assert it.train_size == 7 != DEMO_MODES["expert"]["iteration.train_size"]
    assert demo_config(BurnqedConfig(), "reference", []) == BurnqedConfig()
    # the coordinator's tools refuse the depth world's held-out set like the benchmark's
    assert "depth-test" in config.tools.held_out_sets
    # a tuning run's evaluated split is fenced too (issue 42)
    from burnqed.tools.common.held_out import held_out_set_names

    tuning = demo_config(BurnqedConfig.model_validate({"iteration": {"eval_split": "tune", "eval_set": "depth-test"}}), "expert", [])
    assert tuning.iteration.held_out_set == "depth-tune" and "depth-tune" in held_out_set_names(tuning)


def test_the_demo_says_whether_the_last_iteration_beat_the_best_baseline(tmp_path: Path) -> None:
    from burnqed.coordination.demo import baseline_verdict
    from burnqed.iteration import RunLayout
    from burnqed.iteration.report import run_report
    from tests.iteration.test_report import _report, _write

    names = [f"t{i}" for i in range(40)]
    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report(set(names[:10]), names=names))
    _write(layout.eval_result(1, False), _report(set(names[:30]), names=names, iteration=1))
    _write(layout.eval_results_dir / "baseline_rules.json", _report(set(names[:5]), names=names, policy="none"))
    _write(layout.eval_results_dir / "baseline_reference.json", _report(set(names[:16]), names=names))
    text = baseline_verdict(run_report([layout.root], resamples=300))
    # the best baseline is the reference policy (40%); the last iteration (75%) beats it by 35 points
    assert text is not None and "best baseline, reference" in text and "+35.0 points" in text
    assert "beats it by at least 10 points: the 95% interval's lower bound is" in text
    assert "McNemar exact p =" in text
    _write(layout.eval_results_dir / "baseline_reference.json", _report(set(names[:28]), names=names))
    text = baseline_verdict(run_report([layout.root], resamples=300))
    assert text is not None and "+5.0 points" in text and "includes no gain" in text
    assert "at least 10" not in text


def test_the_demo_claims_ten_points_only_when_the_interval_lower_bound_reaches_them(tmp_path: Path) -> None:
    from burnqed.coordination.demo import baseline_verdict
    from burnqed.iteration import RunLayout
    from burnqed.iteration.report import run_report
    from tests.iteration.test_report import _report, _write

    # 150 statements, +14 points with p far below 0.05 but a lower bound below 10 (issue 42's seed 0)
    names = [f"t{i}" for i in range(150)]
    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report(set(names[:20]), names=names))
    _write(layout.eval_result(1, False), _report(set(names[:41]), names=names, iteration=1))
    text = baseline_verdict(run_report([layout.root], resamples=1000))
    assert text is not None and "+14.0 points" in text
    cmp = next(r for r in run_report([layout.root], resamples=1000).baselines if r.best).vs_last
    assert cmp is not None and cmp.p_value < 1e-5 and 0 < cmp.ci_lo < 10
    assert f"the 95% interval's lower bound is {cmp.ci_lo:+.1f}, so at least 10 points is not established" in text
    assert "beats it by at least" not in text


def test_the_demo_says_whether_the_head_beats_its_best_control(tmp_path: Path) -> None:
    from burnqed.coordination.demo import head_verdict
    from burnqed.iteration.report import run_report
    from tests.iteration.test_report import controls_runs

    text = head_verdict(run_report(controls_runs(tmp_path)[:1], resamples=300))
    assert text is not None and "vs the best control, control:connectives" in text and "-10.0 points" in text
    assert "a head claim does not stand" in text


def test_without_controls_the_demo_makes_no_head_claim_and_names_the_split(tmp_path: Path) -> None:
    from burnqed.coordination.demo import head_verdict, split_sentence
    from burnqed.iteration import RunLayout
    from burnqed.iteration.report import run_report
    from tests.iteration.test_report import _report, _write

    layout = RunLayout(tmp_path / "run")
    _write(layout.eval_result(0, False), _report({"t0"}).model_copy(update={"theorem_set": "depth-test[10]"}))
    _write(layout.eval_result(0, True), _report({"t0", "t1", "t2"}, ebm="ckpt", label="with_ebm").model_copy(
        update={"theorem_set": "depth-test[10]"}))
    report = run_report([layout.root], resamples=200)
    # the head gains +20 over the policy's order, but with no control beside it no head claim is made
    assert report.rows[0].ebm_ablation is not None and report.rows[0].ebm_ablation.diff_points > 0
    assert "no head claim is made" in (head_verdict(report) or "")
    assert split_sentence(report) == "Held-out split: test (depth-test[10])."
