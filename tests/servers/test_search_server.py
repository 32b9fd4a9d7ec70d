"""The search server: jobs (launch, status with progress, result, cancel, list), generation, scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.config import load_config
from burnqed.data.sets import load_builtin
from burnqed.tools.common.jobs import JobManager, JobStatus
from burnqed.tools.search.server import build_server

pytestmark = pytest.mark.anyio

STATEMENTS = ["∀ (n : Nat), n + 0 = n", "∀ (a b : Nat), a + b = b + a", "False"]


async def call(client: Client, tool: str, progress: Any = None, **args: Any) -> Any:
    with anyio.fail_after(30):
        return await client.call_tool(tool, args, progress_callback=progress)


async def finish(client: Client, job_id: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        while (view := (await call(client, "job_status", job_id=job_id, wait_s=2)).structured_content)[
            "status"
        ] == "running":
            pass
    return view


async def test_a_search_job_from_launch_to_full_result(tools_overrides: dict[str, Any]) -> None:
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async with Client(build_server(load_config(None, tools_overrides))) as client:
        launched = await call(client, "launch_search", statements=STATEMENTS, policy="none", budget={"max_nodes": 4})
        assert not launched.is_error
        job = launched.structured_content
        assert job["status"] == "running" and job["total"] == 3
        with anyio.fail_after(60):
            while (
                view := (
                    await call(client, "job_status", on_progress, job_id=job["job_id"], wait_s=2)
                ).structured_content
            )["status"] == "running":
                pass
        assert view["status"] == "succeeded" and view["done"] == 3 and view["proved"] == 2
        assert progress and progress[-1][1] == 3
        summary = await call(client, "job_result", job_id=job["job_id"])
        assert summary.structured_content["result"] is None and "2/3 proved" in summary.content[0].text
        assert summary.structured_content["solve_rate"] == pytest.approx(2 / 3)
        full = (await call(client, "job_result", job_id=job["job_id"], detail="full")).structured_content["result"]
        assert full["solved"] == 2 and {o["name"] for o in full["outcomes"]} == {
            "statement_0",
            "statement_1",
            "statement_2",
        }
        listed = (await call(client, "list_jobs")).structured_content["jobs"]
        assert [j["job_id"] for j in listed] == [job["job_id"]]
        traj = Path(view["outcome"]["trajectories"])
        assert traj.is_file()


_HELD_OUT = load_builtin("benchmark-test")[0].statement


async def test_bad_input_and_unknown_jobs_are_error_results(tools_overrides: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, tools_overrides))) as client:
        cases = [
            ("job_status", {"job_id": "j-20260101T000000-abcdef"}, "unknown job"),
            ("job_result", {"job_id": "../etc"}, "unknown job"),
            ("cancel_job", {"job_id": "nope"}, "unknown job"),
            ("launch_search", {}, "exactly one of theorem_set and statements"),
            ("launch_search", {"theorem_set": "no-such-set"}, "unknown theorem set"),
            ("launch_search", {"theorem_set": "benchmark-test"}, "held out"),
            ("launch_search", {"statements": [_HELD_OUT]}, "held-out statement"),
            ("launch_search", {"statements": ["  " + "   ".join(_HELD_OUT.split()) + " "]}, "held-out statement"),
            ("launch_search", {"statements": ["#eval 1 = 1"]}, "denied by the tactic policy"),
            ("launch_search", {"theorem_set": "core", "budget": {"max_nodes": 0}}, "invalid input: "),
            ("list_jobs", {"status": "exploded"}, "invalid input: "),
        ]
        for tool, args, fragment in cases:
            result = await call(client, tool, **args)
            assert result.is_error, tool
            assert fragment in result.content[0].text, (tool, result.content[0].text)


async def test_cancel_a_running_job_and_jobs_outlive_their_client(tools_overrides: dict[str, Any]) -> None:
    config = load_config(None, tools_overrides)
    async with Client(build_server(config)) as client:
        # hundreds of theorems: seconds of work, cancelled at once
        slow = await call(client, "launch_search", statements=STATEMENTS * 300, policy="none", budget={"max_nodes": 50})
        job_id = slow.structured_content["job_id"]
        cancelled = (await call(client, "cancel_job", job_id=job_id)).structured_content
        assert cancelled["status"] == "cancelled" and cancelled["done"] < 900
        result = await call(client, "job_result", job_id=job_id)
        assert not result.is_error and result.structured_content["status"] == "cancelled"
        assert (await call(client, "job_result", job_id=job_id, detail="full")).is_error
        again = (await call(client, "cancel_job", job_id=job_id)).structured_content
        assert again["status"] == "cancelled"
    # a new server over the same jobs directory still lists it
    async with Client(build_server(config)) as client:
        listed = (await call(client, "list_jobs", status="cancelled")).structured_content["jobs"]
        assert [j["job_id"] for j in listed] == [job_id]


async def test_a_job_running_when_the_server_stops_is_interrupted(tools_overrides: dict[str, Any]) -> None:
    config = load_config(None, {**tools_overrides, "search.time_limit_s": 60.0})
    async with Client(build_server(config)) as client:
        job_id = (
            await call(client, "launch_search", statements=STATEMENTS * 300, policy="none", budget={"max_nodes": 50})
        ).structured_content["job_id"]
    record = JobManager(Path(tools_overrides["paths.run_dir"]) / "jobs").get(job_id)
    assert record.status is JobStatus.INTERRUPTED
    async with Client(build_server(config)) as client:
        listed = (await call(client, "list_jobs")).structured_content["jobs"]
        assert listed[0]["job_id"] == job_id and listed[0]["status"] != "running"


async def test_generate_tactics_with_the_rule_policy(tools_overrides: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, tools_overrides))) as client:
        result = (await call(client, "generate_tactics", state="⊢ 2 + 2 = 4", n=3, policy="none")).structured_content
        assert len(result["candidates"]) == 3 and result["policy"] == "none"
        assert all(isinstance(c["log_prob"], float) for c in result["candidates"])
        no_ebm = await call(client, "score_states", states=["⊢ True"])
        assert no_ebm.is_error and "energy-head checkpoint" in no_ebm.content[0].text


async def test_generate_and_score_with_the_tiny_model_and_an_energy_head(
    tools_overrides: dict[str, Any],
    tiny_model_dir: Path,
    tiny_policy: Any,
    synthetic_trajectory_file: Path,
    ebm_config: Any,
    tmp_path: Path,
) -> None:
    from burnqed.ebm.encoder import PolicyEncoder
    from burnqed.ebm.trainer import train_energy_head

    await train_energy_head(synthetic_trajectory_file, PolicyEncoder(tiny_policy), tmp_path / "ebm", ebm_config)
    config = load_config(
        None,
        {
            **tools_overrides,
            "policy.model_dir": str(tiny_model_dir),
            "policy.device": "cpu",
            "policy.max_new_tokens": 12,
            "tools.ebm_checkpoint": str(tmp_path / "ebm"),
            "tools.max_call_s": 30.0,
        },
    )
    async with Client(build_server(config)) as client:
        generated = await call(client, "generate_tactics", state="n : Nat\n⊢ n + 0 = n", n=2)
        assert not generated.is_error, generated.content[0].text
        assert (
            generated.structured_content["candidates"] and str(tiny_model_dir) in generated.structured_content["policy"]
        )
        scored = await call(client, "score_states", states=["⊢ True", "n : Nat\n⊢ n + 0 = n"])
        assert not scored.is_error, scored.content[0].text
        assert len(scored.structured_content["energies"]) == 2


async def test_a_theorem_set_is_loaded_by_the_job(tools_overrides: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, tools_overrides))) as client:
        launched = await call(
            client, "launch_search", theorem_set="core", limit=2, policy="none", budget={"max_nodes": 3}
        )
        assert not launched.is_error and launched.structured_content["total"] == 0  # not loaded yet
        view = await finish(client, launched.structured_content["job_id"])
        assert view["status"] == "succeeded" and view["total"] == 2 and view["done"] == 2


async def test_use_ebm_without_a_policy_is_refused_at_validation(tools_overrides: dict[str, Any]) -> None:
    """Issue 41: it was accepted, then the job failed with advice for the command line."""
    async with Client(build_server(load_config(None, tools_overrides))) as client:
        refused = await call(client, "launch_search", statements=STATEMENTS, policy="none", use_ebm=True,
                             budget={"max_nodes": 4})
        assert refused.is_error and "use_ebm needs a policy" in refused.content[0].text, refused.content[0].text
        listed = (await call(client, "list_jobs")).structured_content
    assert listed["jobs"] == []


@pytest.mark.parametrize("mode", ["whole", "hybrid"])
async def test_a_search_job_runs_in_the_whole_and_hybrid_modes(mode: str, tools_overrides: dict[str, Any]) -> None:
    async with Client(build_server(load_config(None, tools_overrides))) as client:
        budget = {"max_nodes": 4, "mode": mode, "whole_samples": 2}
        launched = await call(client, "launch_search", theorem_set="core", limit=3, policy="none", budget=budget)
        assert not launched.is_error, launched.content[0].text
        with anyio.fail_after(240):  # the job's pool starts on a shared machine
            while (
                view := (await call(client, "job_status", job_id=launched.structured_content["job_id"], wait_s=2))
            ).structured_content["status"] == "running":
                pass
        view = view.structured_content
        assert view["status"] == "succeeded" and view["done"] == 3
        with anyio.fail_after(180):
            answer = await client.call_tool("job_result", {"job_id": view["job_id"], "detail": "full"})
        full = answer.structured_content["result"]
        if mode == "whole":  # k proofs at the root, no automation tactics: one expansion each
            assert [o["nodes"] for o in full["outcomes"]] == [1, 1, 1]
            assert all(o["stats"]["tactics_run"] <= 2 * 12 for o in full["outcomes"])
        else:  # hybrid: best-first with the automation tactics, as step search
            assert view["proved"] >= 1
