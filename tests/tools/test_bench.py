"""``burnqed bench mcp`` runs and reports the three paths (speed itself is not asserted)."""

from __future__ import annotations

import pytest

from burnqed.config import BurnqedConfig
from burnqed.bench.mcp import bench, config_flags

pytestmark = pytest.mark.anyio


def test_config_flags_round_trip_through_the_cli_parser(tools_config: BurnqedConfig) -> None:
    from burnqed.config import load_config

    flags = config_flags(tools_config)
    overrides = [flags[i + 1] for i in range(0, len(flags), 2)]
    again = load_config(None, overrides)
    assert again.lean == tools_config.lean and again.tools == tools_config.tools and again.paths == tools_config.paths


async def test_bench_reports_direct_in_process_and_stdio_latencies(tools_config: BurnqedConfig) -> None:
    result = await bench(tools_config, quick=True)
    for path in ("direct", "mcp_in_process", "mcp_stdio"):
        assert result[path]["p50_ms"] > 0
    assert result["calls_per_path"] == 60 and result["backend"] == "command"
    assert result["tool_calls_logged"] == 2 * (60 + 10 + 2)
    assert isinstance(result["meets_target"], bool)
