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
