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
    assert "4 gained / 0 lost" in text and "McNemar p = 0.125" in text and "not significant" in text
    _write(layout.eval_result(2, False), _report(set(names[:25]), names=names, iteration=2))
    text = statistics_section(layout.root, console)
    assert text is not None and "Iteration 2" in text and "a significant change" in text
    assert layout.report_chart.read_bytes().startswith(PNG_MAGIC)
    assert "95%" in console.export_text()
    # without an evaluated iteration 0 there is nothing to pair against, said so
    assert "No paired statistics" in (statistics_section(tmp_path / "empty", console) or "")
