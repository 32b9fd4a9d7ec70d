"""The scripted brain end to end: one session through the real MCP servers, then the daemon's iteration."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio
import pytest

from burnqed.blueprint import BlueprintStore, IterationSpec
from burnqed.config import BurnqedConfig, load_config
from burnqed.coordination.control import DaemonPaths, read_state
from burnqed.coordination.daemon import Daemon, prepare_run_config
from burnqed.coordination.demo import collect_rows, register_benchmark_targets
from burnqed.coordination.log import read_jsonl


def _small_config(tmp_path: Path, tiny_model_dir: Path) -> BurnqedConfig:
    config = load_config(
        None,
        [
            f"paths.home='{tmp_path / 'home'}'",
            "lean.num_workers=2",
            "iteration.train_size=3",
            "iteration.eval_size=2",
            "iteration.max_nodes=6",
            "iteration.first_sft_epochs=1",
            "iteration.sft_epochs=1",
            "coordinator.max_sessions=1",
            "coordinator.probe_limit=2",
            "coordinator.probe_max_nodes=4",
            "coordinator.job_poll_interval_s=0.2",
            "coordinator.pause_between_sessions_s=0",
        ],
    )
    # the session's tiny model stands in for the one `ensure_tiny_model` would build
    shutil.copytree(tiny_model_dir, config.paths.tiny_model_dir)
    return config


@pytest.mark.anyio
async def test_scripted_session_schedules_an_iteration_that_the_daemon_runs(
    tmp_path: Path, tiny_model_dir: Path
) -> None:
    run_dir = tmp_path / "run"
    config = prepare_run_config(_small_config(tmp_path, tiny_model_dir), run_dir)
    register_benchmark_targets(config)
    # an earlier run was interrupted during iter_0: the daemon finishes it before the session
    store = BlueprintStore(config.blueprint.path, config.blueprint)
    store.schedule_iteration(IterationSpec(label="iter_0", note="scheduled by an interrupted run"))
    store.update_status("iter_0", "partial", note="interrupted")
    daemon = Daemon(config, run_dir)
    with anyio.fail_after(600):
        assert await daemon.run(handle_signals=False) == 0

    paths = DaemonPaths(run_dir=run_dir.resolve())
    sessions = read_jsonl(paths.sessions_file)
    assert len(sessions) == 1
    record = sessions[0]
    assert record["brain"] == "scripted" and record["stop_reason"] == "script_done"
    assert record["tool_usage"]["schedule_iteration"] == 1
    assert record["tool_usage"]["launch_search"] == 1
    assert [it["label"] for it in record["iterations"]] == ["iter_0", "iter_1"]
    # the daemon evaluated the held-out set; the handover carries training numbers only
    assert (run_dir / "eval_results" / "iter_0.json").is_file()
    assert (run_dir / "eval_results" / "iter_1.json").is_file()
    assert not re.search(r"held-out[^\n]*\d%", record["handover"]), record["handover"]
    assert "training-set solve rate" in record["handover"]
    assert "solve rate n/a" not in record["handover"]
    assert record["iterations"][0]["train_solve_rate"] is not None
    state = read_state(paths)
    assert state.sessions_done == 1 and state.last_iteration == "iter_1"
    assert state.best_held_out is not None
    rows = collect_rows(run_dir)
    assert [r.label for r in rows] == ["iter_0", "iter_1"] and rows[0].held_out_no_ebm is not None
    assert rows[0].train is not None
    blueprint = config.blueprint.path.read_text(encoding="utf-8")
    assert "# iteration iter_0" in blueprint and "# iteration iter_1" in blueprint
    # the probe's outcomes were written to the core targets, with attempts counted
    usage = record["tool_usage"]
    assert usage.get("update_status", 0) + usage.get("record_proof", 0) == 2
    assert "attempts: 1 / " in blueprint
    # the agent only ever called allow-listed tools, and saw no held-out score
    calls = [e for e in read_jsonl(paths.turns_file(0)) if e["event"] == "tool_call"]
    assert {c["tool"] for c in calls} <= set(config.coordinator.allowed_tools)
    # the probe's targets: a proved one is done only with a proof the blueprint server replayed
    probed = [e for e in store.list_targets() if e.kind == "theorem" and e.attempts > 0]
    assert len(probed) == 2, [(e.label, e.status) for e in probed]
    for entry in probed:
        assert entry.status in {"done", "failed"}
        if entry.status == "done":
            assert entry.proof_sha is not None and store.proofs.find(entry.label, entry.proof_sha) is not None
