"""The benchmark runs and reports every figure; options from argv reach the config."""

from __future__ import annotations

import subprocess
import sys

import pytest

from burnqed.config import BurnqedConfig
from burnqed.lean.embedded import EmbeddedConfig
from burnqed.lean.embedded.bench import bench


@pytest.mark.anyio
async def test_quick_bench_reports_latency_startup_and_memory() -> None:
    result = await bench(BurnqedConfig(), quick=True)
    assert result["backend"] == "embedded"
    for kind in ("structural", "automated"):
        assert (
            result[kind]["p50_ms"] > 0
            and result[kind]["p99_ms"] >= result[kind]["p50_ms"]
        )
        assert result[kind]["by_tactic"]
    assert result["startup_s"] > 0 and result["idle_rss_mb"] > 0
    assert set(result["targets"]) == {
        "structural_p50_ms<=2",
        "automated_p50_ms<=50",
        "startup_s<=1.5",
        "idle_rss_mb<=150",
    }


def test_argv_options_set_config_fields_and_keep_the_rest() -> None:
    config, rest = EmbeddedConfig.from_argv(
        ["Init", "--maxHeartbeats=0", "--z3_timeout_ms=77"]
    )
    assert config.z3_timeout_ms == 77 and rest == ["Init", "--maxHeartbeats=0"]


def test_version_flag_prints_and_exits() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "burnqed.lean.embedded", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Pantograph protocol" in out.stdout
