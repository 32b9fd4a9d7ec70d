"""SearchConfig: a retired key is dropped with a warning, so earlier reports and configs still load."""

from __future__ import annotations

import logging

import pytest

from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import EvalReport, report_from_results


def test_a_retired_key_is_dropped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="burnqed.search.config"):
        config = SearchConfig.model_validate({"max_nodes": 7, "flush_interval_s": 30.0})
    assert config.max_nodes == 7
    assert "flush_interval_s" not in config.model_dump()
    assert "flush_interval_s" in caplog.text
    with pytest.raises(ValueError, match="not_a_key"):
        SearchConfig.model_validate({"not_a_key": 1})  # unknown keys are still refused


def test_a_report_written_before_the_key_retired_still_loads() -> None:
    report = report_from_results([], label="no_ebm", backend="embedded", search=SearchConfig(), policy="none")
    data = report.model_dump(mode="json")
    data["search"]["flush_interval_s"] = 30.0  # as every report written before issue 29 has it
    assert EvalReport.model_validate(data).search == SearchConfig()
