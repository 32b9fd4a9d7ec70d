"""The benchmark runs and reports every figure; options from argv reach the config."""

from __future__ import annotations

import subprocess
import sys

import pytest

from burnqed.bench.embedded import bench
from burnqed.config import BurnqedConfig
from burnqed.embedded import EmbeddedConfig


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
        "kernel_verify_p50_ratio<=1.2",
        "kernel_completeness_lost==0",
    }
    kernel = result["kernel"]
    assert kernel["proofs"] > 0 and kernel["kernel_steps_checked"] > 0
    # every reference proof the elaborator accepts, the kernel accepts too
    assert kernel["accepted_kernel_enforced"] == kernel["accepted_kernel_off"]
    assert kernel["completeness_lost"] == [] and kernel["kernel_rejected"] == 0


def test_argv_options_set_config_fields_and_keep_the_rest() -> None:
    config, rest = EmbeddedConfig.from_argv(
        ["Init", "--maxHeartbeats=0", "--z3_rlimit=77"]
    )
    assert config.z3_rlimit == 77 and rest == ["Init", "--maxHeartbeats=0"]
    enforced, _ = EmbeddedConfig.from_argv(["--kernel=enforce"])
    assert enforced.kernel == "enforce"


def test_version_flag_prints_and_exits() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "burnqed.embedded", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Pantograph protocol" in out.stdout
