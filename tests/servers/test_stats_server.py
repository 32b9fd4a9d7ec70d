"""The stats server: scores from a run directory, held-out results hidden by default, tool usage."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.config import BurnqedConfig, load_config
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import EvalReport, TheoremOutcome
from burnqed.search.results import SearchStats
from burnqed.tools.common.calllog import ToolCallLog
from burnqed.tools.common.serving import call_log_path
from burnqed.tools.stats.server import build_server
from burnqed.trajectory.schema import NEGATIVE, POSITIVE, TrajectoryRecord
from burnqed.trajectory.writer import TrajectoryWriter

pytestmark = pytest.mark.anyio


def write_iteration(run_dir: Path, iteration: int, proved: list[bool], held_out: list[bool]) -> None:
    """Trajectories (one root row per theorem, positive when proved) and held-out reports."""
    now = datetime.now(UTC)
    records = []
    for i, ok in enumerate(proved):
        records.append(
            TrajectoryRecord(
                theorem=f"t{i}",
                statement_sha="0" * 64,
                node_id=0,
                state="⊢ True",
                depth=0,
                label=POSITIVE if ok else NEGATIVE,
                proof_complete=ok,
                iteration=iteration,
                backend="embedded",
                timestamp=now,
            )
        )
    with TrajectoryWriter(run_dir / "trajectories" / f"iter_{iteration}.parquet") as writer:
        writer.write(records)
    for suffix, label in (("", "with_ebm"), ("_no_ebm", "no_ebm")):
        outcomes = [
            TheoremOutcome(
                name=f"h{i}",
                statement_sha="0" * 64,
                proved=ok,
                nodes=3,
                wall_s=0.1,
                reason="proved" if ok else "node_budget",
            )
            for i, ok in enumerate(held_out)
        ]
        solved = sum(held_out)
        report = EvalReport(
            label=label,
            backend="embedded",
            iteration=iteration,
            theorem_set="benchmark-test",
            total=len(held_out),
            solved=solved,
            solve_rate=solved / len(held_out),
            outcomes=outcomes,
            budget=SearchStats(nodes_expanded=3 * len(held_out)),
            search=SearchConfig(),
            policy="tiny",
        )
        path = run_dir / "eval_results" / f"iter_{iteration}{suffix}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.model_dump_json(), encoding="utf-8")


@pytest.fixture
def run_config(tools_overrides: dict[str, Any]) -> dict[str, Any]:
    run_dir = Path(tools_overrides["paths.run_dir"])
    write_iteration(run_dir, 0, [True, False, False, False], [True, False, False, False])
    write_iteration(run_dir, 1, [True, True, False, False], [True, True, True, False])
    return tools_overrides


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(20):
        return await client.call_tool(tool, args)


async def test_held_out_results_are_hidden_by_default(run_config: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, run_config))) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(t.annotations.read_only_hint for t in tools.values())
        result = (await call(client, "eval_result", iteration=1, detail="full")).structured_content["scores"]
        assert result["train_proved"] == 2 and result["train_theorems"] == 4 and result["train_solve_rate"] == 0.5
        assert result["held_out_visible"] is False and result["with_ebm"] is None and result["no_ebm"] is None
        curve = await call(client, "solve_curve")
        assert [p["iteration"] for p in curve.structured_content["points"]] == [0, 1]
        assert "held-out hidden" in curve.content[0].text
        result = await call(client, "compare_iterations", a=0, b=1)
        comparison = result.structured_content
        train = comparison["train"]
        assert (train["baseline"], train["candidate"], train["n"]) == ("iter_0", "iter_1", 4)
        assert train["diff_points"] == pytest.approx(25.0) and (train["b"], train["c"]) == (0, 1)
        assert train["ci_lo"] <= train["diff_points"] <= train["ci_hi"] and train["p_value"] == pytest.approx(1.0)
        assert train["only_a"] is None and train["only_b"] is None  # counts only
        assert comparison["held_out"] is None
        assert "held-out hidden" in result.content[0].text and "[" in result.content[0].text
        # no held-out theorem name anywhere in what the agent reads
        assert not any(f"h{i}" in json.dumps(comparison) + result.content[0].text for i in range(4))


async def test_held_out_results_when_the_server_may_show_them(run_config: dict[str, Any]) -> None:
    config = load_config(None, {**run_config, "tools.show_held_out": True})
    async with Client(build_server(config)) as client:
        scores = (await call(client, "eval_result", iteration=1, detail="full")).structured_content["scores"]
        assert scores["with_ebm"]["solved"] == 3 and len(scores["with_ebm"]["outcomes"]) == 4
        assert scores["no_ebm"]["label"] == "no_ebm"
        comparison = (await call(client, "compare_iterations", a=0, b=1)).structured_content
        held_out = comparison["held_out"]
        assert held_out["diff_points"] == pytest.approx(50.0) and (held_out["b"], held_out["c"]) == (0, 2)
        assert held_out["ci_lo"] <= 50.0 <= held_out["ci_hi"] and held_out["p_value"] == pytest.approx(0.5)
        assert held_out["only_b"] == ["h1", "h2"] and held_out["only_a"] == []
        assert comparison["train"]["diff_points"] == pytest.approx(25.0)


async def test_trajectory_summary_and_missing_data(run_config: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, run_config))) as client:
        latest = (await call(client, "trajectory_summary")).structured_content
        assert latest["source"] == "iter_1" and latest["proved"] == 2 and latest["states"] == 4
        first = (await call(client, "trajectory_summary", iteration=0)).structured_content
        assert first["proved"] == 1
        missing = await call(client, "eval_result", iteration=7)
        assert missing.is_error and "no results for iteration 7" in missing.content[0].text
        no_job = await call(client, "trajectory_summary", job_id="j-20260101T000000-abcdef")
        assert no_job.is_error
        negative = await call(client, "eval_result", iteration=-1)
        assert negative.is_error


async def test_tool_usage_reads_the_call_log(tools_config: BurnqedConfig) -> None:
    log = ToolCallLog(call_log_path(tools_config))
    log.record("lean", "run_tactic", {"tactic": "rfl"}, True, 2.0, None)
    log.record("lean", "run_tactic", {"tactic": "x"}, False, 4.0, "denied")
    log.record("search", "launch_search", {}, True, 1.0, None)
    async with Client(build_server(tools_config)) as client:
        usage = (await call(client, "tool_usage", server_name="lean")).structured_content
        assert usage["total_calls"] == 2 and usage["total_errors"] == 1
        assert usage["tools"][0] == {
            "server": "lean",
            "tool": "run_tactic",
            "calls": 2,
            "errors": 1,
            "p50_ms": 3.0,
            "max_ms": 4.0,
        }
        everything = (await call(client, "tool_usage")).structured_content
        # the first tool_usage call was itself logged
        assert everything["total_calls"] == 4
        later = (await call(client, "tool_usage", since="2999-01-01T00:00:00")).structured_content
        assert later["total_calls"] == 0
