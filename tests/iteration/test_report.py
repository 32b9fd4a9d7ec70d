"""`burnqed report`: run dirs with hand-made EvalReports, read back as tables, JSON and a PNG."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.iteration import RunLayout
from burnqed.iteration.errors import EvalReportMissing
from burnqed.iteration.report import RunReport, best_baseline_rows, run_report
from burnqed.iteration.report_view import write_chart
from burnqed.search.comparison import mcnemar_exact
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import EvalReport, TheoremOutcome
from burnqed.search.ranking import RankerQuality, RankingQuality
from burnqed.search.results import SearchStats

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NAMES = [f"t{i}" for i in range(10)]


def _report(proved: set[str], *, names: list[str] = NAMES, ebm: str | None = None, iteration: int = 0,
            label: str = "no_ebm", max_nodes: int = 32, at_budget: set[str] = frozenset(),
            policy: str = "tiny", ranking: RankingQuality | None = None,
            budget: SearchStats | None = None) -> EvalReport:
    outcomes = [
        TheoremOutcome(name=n, statement_sha=f"sha-{n}", proved=n in proved, nodes=3, wall_s=0.1,
                       reason="proved" if n in proved else "node_budget" if n in at_budget else "exhausted")
        for n in names
    ]
    solved = sum(o.proved for o in outcomes)
    return EvalReport(label=label, backend="embedded", iteration=iteration, total=len(outcomes), solved=solved,
                      solve_rate=solved / len(outcomes), outcomes=outcomes, budget=budget or SearchStats(),
                      search=SearchConfig(max_nodes=max_nodes), policy=policy, ebm=ebm, ranking=ranking)


def _write(path: Path, report: EvalReport) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(indent=2), encoding="utf-8")


def _first(k: int) -> set[str]:
    return set(NAMES[:k])


def _run(root: Path, *, shift: int = 0) -> Path:
    """Iteration 0: 5/10, no head; 1: 8/10 without, 7/10 with; 2 missing; 3: 10/10 without, with-EBM missing.

    ``shift`` moves iteration 1's result by one statement, so two seeds differ.
    """
    layout = RunLayout(root)
    base = _report(_first(5))
    _write(layout.eval_result(0, False), base)
    _write(layout.eval_result(0, True), base.model_copy(update={"label": "no_ebm (no energy head in this iteration)"}))
    _write(layout.eval_result(1, False), _report(_first(8 - shift), iteration=1))
    _write(layout.eval_result(1, True), _report(_first(6) | {"t8"}, iteration=1, ebm="ckpt/iter_1", label="with_ebm"))
    _write(layout.eval_result(3, False), _report(_first(10), iteration=3))
    return root


def test_report_table_shows_rates_deltas_intervals_and_p_values(tmp_path: Path, capsys) -> None:
    run = _run(tmp_path / "run")
    assert main(["report", str(run), "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    row1 = next(line for line in lines if line.lstrip("│ ").startswith("1 "))
    # iteration 1: 80% without, 70% with; +30 points vs iteration 0 (0 lost, 3 gained), McNemar p = 0.25
    assert "80.0% (8/10)" in row1 and "70.0% (7/10)" in row1
    assert "+30.0 [" in row1 and "(-0/+3)" in row1 and "0.250" in row1
    # ablation: with the head loses t6, t7 and gains t8: −10 points, p = 1
    assert "-10.0 [" in row1 and "(-2/+1)" in row1 and "1.000" in row1
    row0 = next(line for line in lines if line.lstrip("│ ").startswith("0 "))
    assert "50.0% (5/10)" in row0 and "baseline" in row0 and "no head" in row0
    row2 = next(line for line in lines if line.lstrip("│ ").startswith("2 "))
    assert "not evaluated" in row2
    row3 = next(line for line in lines if line.lstrip("│ ").startswith("3 "))
    assert "100.0% (10/10)" in row3 and "+50.0 [" in row3 and "0.062" in row3 and "iter_3.json not evaluated" in row3
    assert "no head" not in row3 and row3.count("not evaluated") == 2
    chart = run / "report.png"
    assert f"chart: {chart}" in out
    assert chart.read_bytes()[:8] == PNG_MAGIC


def test_report_json_is_the_run_report(tmp_path: Path, capsys) -> None:
    run = _run(tmp_path / "run")
    chart = tmp_path / "charts" / "curve.png"
    assert main(["report", str(run), "--json", "--chart", str(chart), "--resamples", "500"]) == 0
    report = RunReport.model_validate_json(capsys.readouterr().out)
    assert report.chart == str(chart) and chart.read_bytes()[:8] == PNG_MAGIC
    assert report.iterations == [0, 1, 2, 3] and report.seeds == ["run"]
    rows = {r.iteration: r for r in report.rows}
    assert rows[0].vs_iter0 is None and not rows[0].energy_head
    one = rows[1]
    assert one.no_ebm is not None and (one.no_ebm.solved, one.no_ebm.n) == (8, 10)
    assert one.vs_iter0 is not None and one.vs_iter0.diff_points == pytest.approx(30.0)
    assert (one.vs_iter0.b, one.vs_iter0.c) == (0, 3) and one.vs_iter0.p_value == pytest.approx(0.25)
    assert one.vs_iter0.ci_lo <= 30.0 <= one.vs_iter0.ci_hi
    assert one.ebm_ablation is not None and one.ebm_ablation.diff_points == pytest.approx(-10.0)
    assert one.ebm_ablation.p_value == pytest.approx(mcnemar_exact(2, 1))
    # the report says why a head may not matter: searches that empty their frontier explored everything
    assert one.budget is not None and (one.budget.unsolved, one.budget.emptied, one.budget.at_budget) == (2, 2, 0)
    assert one.budget.share == 0.0
    assert not rows[2].evaluated and rows[2].notes == ["not evaluated"]
    assert rows[3].ebm is None and rows[3].vs_iter0 is not None and rows[3].vs_iter0.c == 5


def test_report_is_deterministic(tmp_path: Path) -> None:
    run = _run(tmp_path / "run")
    assert run_report([run], resamples=300) == run_report([run], resamples=300)


def test_several_seeds_get_a_row_each_and_a_pooled_row(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path / "seed0")
    b = _run(tmp_path / "seed1", shift=1)
    assert main(["report", str(a), "--seeds", str(b), "--json", "--resamples", "500"]) == 0
    report = RunReport.model_validate_json(capsys.readouterr().out)
    assert report.seeds == ["seed0", "seed1"] and report.chart == str(a / "report.png")
    ones = {r.seed: r for r in report.rows if r.iteration == 1}
    assert set(ones) == {"seed0", "seed1", "pooled"}
    pooled = ones["pooled"]
    # pooled by statement: 20 pairs on 10 statements, 0 lost, 3 + 2 gained; t5, t6 gained in both
    # seeds (sum +2 each), t7 in one (+1): the sign-flip test reaches |5| in 2 of 8 sign vectors
    assert pooled.vs_iter0 is not None and (pooled.vs_iter0.n, pooled.vs_iter0.statements) == (20, 10)
    assert (pooled.vs_iter0.b, pooled.vs_iter0.c) == (0, 5)
    assert pooled.vs_iter0.diff_points == pytest.approx(25.0)
    assert pooled.vs_iter0.test == "sign-flip exact, by statement"
    assert pooled.vs_iter0.p_value == pytest.approx(0.25)  # concatenated pairs would claim McNemar's 0.0625
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    assert pooled.no_ebm is not None and (pooled.no_ebm.solved, pooled.no_ebm.n) == (15, 20)
    assert pooled.ebm_ablation is not None and pooled.ebm_ablation.n == 20
    assert ones["seed1"].vs_iter0 is not None and ones["seed1"].vs_iter0.c == 2


def test_pooled_table_row_is_printed(tmp_path: Path, capsys) -> None:
    a = _run(tmp_path / "seed0")
    b = _run(tmp_path / "seed1", shift=1)
    assert main(["report", str(a), "--seeds", str(b), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    pooled = [line for line in out.splitlines() if "pooled" in line]
    assert any("75.0% (15/20)" in line and "+25.0 [" in line for line in pooled)


def test_extra_reports_become_rows_paired_by_suffix(tmp_path: Path, capsys) -> None:
    run = _run(tmp_path / "run")
    wide = [f"w{i}" for i in range(20)]
    results = RunLayout(run).eval_results_dir
    _write(results / "iter_0_full.json", _report(set(wide[:10]), names=wide))
    _write(results / "iter_3_full.json", _report(set(wide[:16]), names=wide, iteration=3))
    _write(results / "iter_1_rerun.json", _report(_first(7), iteration=1))  # same statements as iteration 0
    (results / "iter_1_no_ebm.json.partial.jsonl").write_text("{}\n", encoding="utf-8")  # not a report
    report = run_report([run], resamples=300)
    extra = {r.name: r for r in report.extra}
    assert set(extra) == {"iter_0_full", "iter_1_rerun", "iter_3_full"}
    full = extra["iter_3_full"]
    assert full.vs_iter0 is not None and full.vs_iter0.baseline == "iter_0_full"
    assert (full.vs_iter0.n, full.vs_iter0.c, full.vs_iter0.diff_points) == (20, 6, pytest.approx(30.0))
    rerun = extra["iter_1_rerun"]
    assert rerun.vs_iter0 is not None and rerun.vs_iter0.baseline == "iter_0_no_ebm" and rerun.vs_iter0.c == 2
    assert extra["iter_0_full"].vs_iter0 is None and extra["iter_0_full"].notes == ["baseline of the iter_N_full reports"]
    assert main(["report", str(run), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "other evaluations" in out and "iter_3_full" in out and "80.0% (16/20)" in out


def test_a_run_without_evaluations_is_one_line_naming_the_file(tmp_path: Path, capsys) -> None:
    run = tmp_path / "empty"
    run.mkdir()
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("burnqed report:")
    assert str(RunLayout(run).eval_result(0, False)) in err
    assert not (run / "report.png").exists()


def test_a_run_without_its_baseline_is_refused(tmp_path: Path) -> None:
    run = _run(tmp_path / "run")
    RunLayout(run).eval_result(0, False).unlink()
    with pytest.raises(EvalReportMissing, match="iter_0_no_ebm.json"):
        run_report([run])


def test_a_missing_run_directory_and_a_corrupt_report_are_one_line(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no such run directory" in capsys.readouterr().err
    run = _run(tmp_path / "run")
    RunLayout(run).eval_result(1, False).write_text("{not json", encoding="utf-8")
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "iter_1_no_ebm.json" in err and "not an eval report" in err


def test_write_chart_writes_a_png(tmp_path: Path) -> None:
    run = _run(tmp_path / "run")
    path = write_chart(run_report([run], resamples=100), tmp_path / "c.png")
    assert path.read_bytes()[:8] == PNG_MAGIC


def _wide(report: RunReport) -> str:
    """The report's tables as text, wide enough that no cell folds."""
    from rich.console import Console

    from burnqed.iteration.report_view import render_tables

    console = Console(record=True, width=600)
    for table in render_tables(report):
        console.print(table)
    return console.export_text()


def _ranked(auc_wins: float, pairs: int, firsts: int, groups: int) -> RankingQuality:
    head = RankerQuality(auc=auc_wins / pairs, pairs=pairs, wins=auc_wins, top1=firsts / groups, groups=groups,
                         firsts=firsts)
    policy = RankerQuality(auc=0.5, pairs=pairs, wins=pairs / 2, top1=0.25, groups=groups, firsts=groups // 4)
    return RankingQuality(theorems=3, positives=groups, negatives=pairs // groups, head=head, policy=policy)


def _binding_run(root: Path, *, head_wins: float) -> Path:
    """Iteration 0: 5/10; iteration 1: 6/10 without the head (3 of its 4 failures at the node budget), 8/10 with."""
    layout = RunLayout(root)
    _write(layout.eval_result(0, False), _report(_first(5)))
    _write(layout.eval_result(1, False), _report(_first(6), iteration=1, at_budget={"t6", "t7", "t8"},
                                                 budget=SearchStats(nodes_expanded=8, children_new=10)))
    _write(layout.eval_result(1, True), _report(_first(8), iteration=1, ebm="ckpt/iter_1", label="with_ebm",
                                                at_budget={"t8"}, ranking=_ranked(head_wins, 40, 6, 8)))
    return root


def test_budget_binding_share_and_head_ranking_sit_beside_the_ablation(tmp_path: Path, capsys) -> None:
    a = _binding_run(tmp_path / "s0", head_wins=30.0)
    b = _binding_run(tmp_path / "s1", head_wins=20.0)
    report = run_report([a, b], resamples=300)
    rows = {(r.seed, r.iteration): r for r in report.rows}
    one = rows[("s0", 1)]
    # the share is over the no-EBM searches: the setting the head has to improve on
    assert one.budget is not None and (one.budget.unsolved, one.budget.at_budget, one.budget.emptied) == (4, 3, 1)
    assert one.budget.share == pytest.approx(0.75)
    assert one.budget.new_per_expansion == pytest.approx(10 / 8)
    assert one.ranking is not None and one.ranking.head is not None and one.ranking.head.auc == pytest.approx(0.75)
    pooled = rows[("pooled", 1)]
    assert pooled.budget is not None and (pooled.budget.unsolved, pooled.budget.at_budget) == (8, 6)
    # pooled ranking: the pairs and sibling groups of both seeds summed, not the AUCs averaged
    assert pooled.ranking is not None and pooled.ranking.head is not None
    assert (pooled.ranking.head.pairs, pooled.ranking.head.wins) == (80, 50.0)
    assert pooled.ranking.head.auc == pytest.approx(50 / 80) and pooled.ranking.head.top1 == pytest.approx(12 / 16)
    # iteration 0 had no head: nothing to rank
    assert rows[("s0", 0)].ranking is None
    assert main(["report", str(a), "--seeds", str(b), "--resamples", "300"]) == 0
    assert "budget binds" in capsys.readouterr().out
    out = _wide(report)
    assert "3/4 (75%); 1.25 new states/expansion" in out and "6/8 (75%)" in out
    assert "AUC 0.75 (0.50), top-1 0.75 (0.25); 3 proofs" in out


def test_the_last_iteration_is_paired_with_every_baseline_and_the_best_is_marked(tmp_path: Path, capsys) -> None:
    runs = []
    for k in range(2):
        run = _binding_run(tmp_path / f"s{k}", head_wins=20.0)
        results = RunLayout(run).eval_results_dir
        _write(results / "baseline_rules.json", _report(_first(3), label="automation", policy="none"))
        # the reference-trained policy is the strongest baseline: 7/10 in seed 0, 4/10 in seed 1
        _write(results / "baseline_reference.json", _report(_first(7 - 3 * k), label="no_ebm", policy="ref/llm"))
        runs.append(run)
    report = run_report(runs, resamples=300)
    s0 = {r.name: r for r in report.baselines if r.seed == "s0"}
    assert set(s0) == {"iter_0", "rules", "reference"}
    assert all(r.last == 1 for r in s0.values())
    # last iteration (6/10) against each baseline, paired, baseline = A
    rules = s0["rules"].vs_last
    assert rules is not None and rules.diff_points == pytest.approx(30.0) and (rules.b, rules.c) == (0, 3)
    reference = s0["reference"].vs_last
    assert reference is not None and reference.diff_points == pytest.approx(-10.0)
    # seed 1: reference 4/10 < iteration 0 (5/10), so iteration 0 is the one to beat there;
    # pooled: reference 11/20 > iteration 0 10/20
    assert [(r.seed, r.name) for r in best_baseline_rows(report)] == [
        ("s0", "reference"), ("s1", "iter_0"), ("pooled", "reference")]
    pooled = {r.name: r for r in report.baselines if r.seed == "pooled"}
    assert pooled["rules"].vs_last is not None and pooled["rules"].vs_last.n == 20
    assert pooled["rules"].vs_last.c == 6
    assert main(["report", str(runs[0]), "--seeds", str(runs[1]), "--resamples", "300"]) == 0
    assert "against each baseline" in capsys.readouterr().out
    out = _wide(report)
    assert "* reference (fine-tuned on every reference proof available)" in out
    assert "rules (the rule policy alone)" in out


def test_a_read_only_run_directory_still_gets_its_report(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 41: it printed nothing and exited 1 (the chart was written first, even with --json)."""
    import json
    import os

    run = _run(tmp_path / "a")
    if os.geteuid() == 0:  # root writes anywhere: a chart path under a file stands in for a read-only dir
        chart_args = ["--chart", str(run / "eval_results" / "iter_0.json" / "report.png")]
    else:
        run.chmod(0o555)
        chart_args = []
    try:
        assert main(["report", str(run), "--json", "--resamples", "200", *chart_args]) == 0
    finally:
        run.chmod(0o755)
    out = capsys.readouterr()
    assert json.loads(out.out)["chart"] is None and "chart not written" in out.err


def _tagged(report: EvalReport, depth_of: dict[str, int]) -> EvalReport:
    outcomes = [o.model_copy(update={"tags": ["family:depth_chain", f"depth:{depth_of[o.name]}"]})
                for o in report.outcomes]
    return report.model_copy(update={"outcomes": outcomes})


def test_per_depth_rows_give_every_arm_per_depth_per_seed_and_pooled(tmp_path: Path, capsys) -> None:
    depth_of = {n: 3 if i < 5 else 4 for i, n in enumerate(NAMES)}  # t0..t4 depth 3, t5..t9 depth 4
    runs = []
    for k in range(2):
        layout = RunLayout(tmp_path / f"seed{k}")
        _write(layout.eval_result(0, False), _tagged(_report(_first(4)), depth_of))
        _write(layout.eval_result(1, False), _tagged(_report(_first(7 - k), iteration=1), depth_of))
        _write(layout.eval_result(1, True), _tagged(_report(_first(8), iteration=1, ebm="ckpt", label="with_ebm"),
                                                    depth_of))
        _write(layout.eval_results_dir / "baseline_rules.json", _tagged(_report(_first(2), policy="none"), depth_of))
        runs.append(layout.root)
    report = run_report(runs, resamples=300)
    rows = {(r.seed, r.group): r for r in report.groups}
    assert set(rows) == {(s, g) for s in ("seed0", "seed1", "pooled") for g in ("depth:3", "depth:4")}
    assert [r.group for r in report.groups[:2]] == ["depth:3", "depth:4"]  # sorted by depth
    four = rows[("seed0", "depth:4")]
    assert four.statements == 5
    assert {arm: (c.solved, c.n) for arm, c in four.rates.items()} == {
        "iter_0_no_ebm": (0, 5), "iter_1_no_ebm": (2, 5), "iter_1": (3, 5), "baseline_rules": (0, 5)}
    pooled = rows[("pooled", "depth:4")]
    # pooled by statement: 5 statements, 10 outcomes; seed 1 solved t5 only
    assert pooled.statements == 5 and (pooled.rates["iter_1_no_ebm"].solved, pooled.rates["iter_1_no_ebm"].n) == (3, 10)
    assert rows[("pooled", "depth:3")].rates["iter_0_no_ebm"].rate == pytest.approx(0.8)
    assert main(["report", str(runs[0]), "--seeds", str(runs[1]), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "solve rate per depth" in out
    assert any("depth:4" in line and "40.0% (2/5)" in line and "60.0% (3/5)" in line for line in out.splitlines())


def test_untagged_reports_have_no_per_depth_rows(tmp_path: Path) -> None:
    assert run_report([_run(tmp_path / "run")], resamples=200).groups == []


def _search(report: EvalReport, control: str) -> EvalReport:
    return report.model_copy(update={"search": SearchConfig(max_nodes=32, priority_control=control)})


def controls_runs(tmp_path: Path) -> list[Path]:
    """Two seeds: the head 7/10 over the policy's 4/10; the connective control 8/10 (seed 1: 7/10)."""
    runs = []
    for k in range(2):
        layout = RunLayout(tmp_path / f"seed{k}")
        _write(layout.eval_result(0, False), _report(_first(3)))
        _write(layout.eval_result(1, False), _report(_first(4), iteration=1))
        _write(layout.eval_result(1, True), _report(_first(7), iteration=1, ebm="ckpt", label="with_ebm"))
        _write(layout.eval_results_dir / "iter_1_control_connectives.json",
               _search(_report(_first(8 - k), iteration=1, label="no_ebm"), "connectives"))
        _write(layout.eval_results_dir / "iter_1_control_depth_bonus.json",
               _search(_report(_first(5), iteration=1, label="no_ebm"), "depth_bonus"))
        runs.append(layout.root)
    return runs


def test_the_head_is_reported_beside_its_controls_and_against_the_best(tmp_path: Path, capsys) -> None:
    runs = controls_runs(tmp_path)
    report = run_report(runs, resamples=300)
    rows = {(r.seed, r.arm): r for r in report.controls}
    head = rows[("seed0", "head")]
    assert head.compared is not None and head.compared.diff_points == pytest.approx(30.0)  # 7/10 vs 4/10
    best = rows[("seed0", "control:connectives")]
    assert best.best and not rows[("seed0", "control:depth_bonus")].best
    assert best.compared is not None and best.compared.diff_points == pytest.approx(40.0)
    vs_best = rows[("seed0", "head vs best control")]
    # the head's +30 over the policy is -10 against the connective count: no head claim stands
    assert vs_best.compared is not None and vs_best.compared.diff_points == pytest.approx(-10.0)
    assert vs_best.compared.baseline == "control:connectives" and "best control: control:connectives" in vs_best.notes
    pooled = rows[("pooled", "head vs best control")]
    assert pooled.compared is not None and pooled.compared.diff_points == pytest.approx(-5.0)  # (-10 + 0) / 2
    assert pooled.compared.statements == 10 and pooled.compared.test == "sign-flip exact, by statement"
    assert not any(r.name.startswith("iter_1_control") for r in report.extra)  # not repeated as extra rows
    assert main(["report", str(runs[0]), "--seeds", str(runs[1]), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "beside its non-learned controls" in out and "head vs best control" in out


def test_reports_without_tags_are_grouped_through_their_builtin_set(tmp_path: Path) -> None:
    from burnqed.data.sets import load_builtin

    theorems = load_builtin("benchmark-test")[:6]
    names = [t.name for t in theorems]
    layout = RunLayout(tmp_path / "run")
    report = _report(set(names[:2]), names=names)
    outcomes = [o.model_copy(update={"statement_sha": t.sha}) for o, t in zip(report.outcomes, theorems, strict=True)]
    _write(layout.eval_result(0, False),
           report.model_copy(update={"outcomes": outcomes, "theorem_set": "benchmark-test[6]"}))
    groups = run_report([layout.root], resamples=200).groups
    families = {g for t in theorems for g in t.tags if g.startswith("family:")}
    assert {r.group for r in groups} == families  # benchmark-test has no depth tags: grouped by family
    assert sum(r.statements for r in groups) == 6
    assert sum(r.rates["iter_0_no_ebm"].solved for r in groups) == 2
