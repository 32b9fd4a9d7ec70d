"""Issue 41: the daemon never counts failed work as a clean session. A failed iteration (a
full disk mid-step) is retried, the daemon stops with a nonzero exit and the error recorded,
and after space is freed a restart finishes it; a BLUEPRINT.md edited by hand (a changed
locked statement, an invalid status) stops the daemon (exit 2) before any session, naming the
file and the problem. The brain is a test double at the agent boundary; the iteration runner is
replaced at ``_run_entries`` (the runner's own failure bookkeeping is tested in tests/iteration)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import anyio
import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.coordination.control import DaemonPaths, read_state
from burnqed.coordination.daemon import Daemon, IterationSummary, prepare_run_config
from burnqed.coordination.log import read_jsonl
from burnqed.config import load_config
from tests.coordinator.test_session_resume import CountingBrain, Crash, _crashes

pytestmark = pytest.mark.anyio


class DiskDaemon(Daemon):
    """Runs iterations by marking them done, or, with a full disk, fails them as the runner does."""

    def __init__(self, *args: Any, disk_full: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.disk_full = disk_full
        self.executed: list[str] = []

    async def _run_entries(self, entries: list[Any]) -> list[IterationSummary]:
        store = BlueprintStore(self.config.blueprint.path, self.config.blueprint)
        done = []
        for entry in entries:
            store.update_status(entry.label, "running", note="stand-in")
            if self.disk_full:
                store.update_status(entry.label, "failed", note="OSError: No space left on device")
                raise OSError(errno.ENOSPC, "No space left on device", "checkpoints/policy/iter_0")
            store.update_status(entry.label, "done", note="stand-in")
            self.executed.append(entry.label)
            done.append(IterationSummary(label=entry.label, train_solve_rate=0.5, held_out=0.25))
        return done


def _config(tmp_path: Path, run_dir: Path) -> Any:
    config = load_config(None, [f"paths.home='{tmp_path / 'home'}'", "coordinator.servers=['blueprint']",
                                "coordinator.max_sessions=1", "coordinator.pause_between_sessions_s=0",
                                "coordinator.max_consecutive_failures=2", "coordinator.backoff_initial_s=0.01"])
    return prepare_run_config(config, run_dir)


async def test_a_failed_iteration_is_not_a_clean_session_and_a_restart_finishes_it(tmp_path: Path) -> None:
    CountingBrain.runs = []
    run_dir = tmp_path / "run"
    config = _config(tmp_path, run_dir)
    paths = DaemonPaths(run_dir=run_dir.resolve())
    with anyio.fail_after(240):
        full = DiskDaemon(config, run_dir, brain_factory=CountingBrain, disk_full=True)
        code = await full.run(handle_signals=False)
    assert code != 0  # was 0, with the session recorded as `iterations: []`, `error: null`
    state = read_state(paths)
    assert state.sessions_done == 0 and "No space left on device" in (state.last_error or "")
    assert read_jsonl(paths.sessions_file) == []
    assert BlueprintStore(config.blueprint.path).get("iter_0").status == "failed"
    with anyio.fail_after(240):  # space freed: the restart retries the failed iteration
        freed = DiskDaemon(config, run_dir, brain_factory=CountingBrain)
        assert await freed.run(handle_signals=False) == 0
    assert freed.executed == ["iter_0"] and CountingBrain.runs == [0]  # the brain ran once
    [record] = read_jsonl(paths.sessions_file)
    assert [it["label"] for it in record["iterations"]] == ["iter_0"]
    assert BlueprintStore(config.blueprint.path).get("iter_0").status == "done"


@pytest.mark.parametrize("edit", ["statement", "status"])
async def test_a_blueprint_edited_by_hand_stops_the_daemon_before_any_session(tmp_path: Path, edit: str) -> None:
    CountingBrain.runs = []
    run_dir = tmp_path / "run"
    config = _config(tmp_path, run_dir)
    store = BlueprintStore(config.blueprint.path, config.blueprint)
    store.register_target("theorem", "thm_a", "1 = 1")
    text = config.blueprint.path.read_text(encoding="utf-8")
    old, new = ("1 = 1", "False") if edit == "statement" else ("- status: todo", "- status: bogus")
    config.blueprint.path.write_text(text.replace(old, new), encoding="utf-8")
    with anyio.fail_after(120):
        code = await DiskDaemon(config, run_dir, brain_factory=CountingBrain).run(handle_signals=False)
    assert code == 2 and CountingBrain.runs == []
    state = read_state(DaemonPaths(run_dir=run_dir.resolve()))
    assert state.status == "failed" and str(config.blueprint.path) in (state.last_error or "")
    assert "thm_a" in (state.last_error or "") and "burnqed blueprint audit" in (state.last_error or "")


class KilledAfterIterations(DiskDaemon):
    """Finishes the iterations, then is killed before the session's record is written."""

    async def _run_entries(self, entries: list[Any]) -> list[IterationSummary]:
        await super()._run_entries(entries)
        raise Crash("killed after the iteration's last step")


async def test_a_kill_after_the_last_step_keeps_the_iteration_in_the_sessions_record(tmp_path: Path) -> None:
    CountingBrain.runs = []
    run_dir = tmp_path / "run"
    config = _config(tmp_path, run_dir)
    paths = DaemonPaths(run_dir=run_dir.resolve())
    with anyio.fail_after(240):
        await _crashes(KilledAfterIterations(config, run_dir, brain_factory=CountingBrain))
        assert BlueprintStore(config.blueprint.path).get("iter_0").status == "done"
        again = DiskDaemon(config, run_dir, brain_factory=CountingBrain)
        assert await again.run(handle_signals=False) == 0
    assert again.executed == [] and CountingBrain.runs == [0]
    [record] = read_jsonl(paths.sessions_file)
    assert [it["label"] for it in record["iterations"]] == ["iter_0"]  # was []: "last iteration -"
    assert read_state(paths).last_iteration == "iter_0"
