"""Issue 28: a daemon stopped mid-iteration resumes the session where it stopped. Its brain
does not run again (no second probe), no extra iteration runs despite ``--sessions 1``, and
the record equals an uninterrupted run's. A brain cut short mid-session runs again with the
iteration label it was first given. The brain is a test double at the agent boundary; the
iterations it schedules are executed by a stand-in that records what it was asked to run
(the iteration runner's own resume is tested in tests/iteration)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from burnqed.blueprint import BlueprintStore, IterationSpec
from burnqed.config import BurnqedConfig, load_config
from burnqed.coordination.brain import BrainOutcome, SessionContext
from burnqed.coordination.control import DaemonPaths, read_state
from burnqed.coordination.daemon import Daemon, IterationSummary, prepare_run_config
from burnqed.coordination.log import read_jsonl


class Crash(BaseException):
    """What a SIGKILL does to the session: nothing after it runs."""


class CountingBrain:
    """Schedules the iteration it is told to, probes (counted), optionally dies mid-session."""

    name = "counting"
    runs: list[int] = []

    def __init__(self, config: Any, *, die: bool = False) -> None:
        self.config = config
        self.die = die

    async def run(self, toolbox: Any, context: SessionContext, log: Any) -> BrainOutcome:
        CountingBrain.runs.append(context.next_iteration)
        store = BlueprintStore(self.config.blueprint.path, self.config.blueprint)
        label = f"iter_{context.next_iteration}"
        if store.read().find(label) is None:
            store.schedule_iteration(IterationSpec(label=label, note="probe rate 0.5"))
        if self.die:
            raise Crash("killed mid-session")
        return BrainOutcome(stop_reason="script_done", turns=3, summary="probed, scheduled", probe_solve_rate=0.5)


class StandInDaemon(Daemon):
    """Executes scheduled iterations by marking them done (optionally crashing first)."""

    def __init__(self, *args: Any, crash_in_iterations: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.crash_in_iterations = crash_in_iterations
        self.executed: list[str] = []

    async def _execute_iterations(self) -> list[IterationSummary]:
        store = BlueprintStore(self.config.blueprint.path, self.config.blueprint)
        pending = store.pending_iterations()
        if pending and self.crash_in_iterations:
            store.update_status(pending[0].label, "running")
            raise Crash("killed mid-iteration")
        done = []
        for entry in pending:
            store.update_status(entry.label, "done", note="stand-in", count_attempt=entry.status != "running")
            self.executed.append(entry.label)
            done.append(IterationSummary(label=entry.label, train_solve_rate=0.5, held_out=0.25))
        return done


async def _crashes(daemon: Daemon) -> None:
    """Run until the simulated kill (it may arrive wrapped in the daemon's task group)."""
    try:
        await daemon.run(handle_signals=False)
    except BaseException as exc:  # noqa: BLE001 - looking for the Crash inside
        found = exc
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        assert isinstance(found, Crash), exc
    else:
        raise AssertionError("the daemon was not killed")


def _config(tmp_path: Path) -> BurnqedConfig:
    return load_config(None, [f"paths.home='{tmp_path / 'home'}'", "coordinator.servers=['blueprint']",
                              "coordinator.max_sessions=1", "coordinator.pause_between_sessions_s=0"])


def _record(run_dir: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in {"started", "seconds"}}
            for r in read_jsonl(DaemonPaths(run_dir=run_dir.resolve()).sessions_file)]


async def _uninterrupted(tmp_path: Path) -> list[dict[str, Any]]:
    run_dir = tmp_path / "calm"
    config = prepare_run_config(_config(tmp_path), run_dir)
    daemon = StandInDaemon(config, run_dir, brain_factory=CountingBrain)
    assert await daemon.run(handle_signals=False) == 0
    return _record(run_dir)


@pytest.mark.anyio
async def test_a_stop_mid_iteration_resumes_the_session_without_its_brain(tmp_path: Path) -> None:
    CountingBrain.runs = []
    with anyio.fail_after(240):
        calm = await _uninterrupted(tmp_path)
        assert CountingBrain.runs == [0]
        CountingBrain.runs = []
        run_dir = tmp_path / "run"
        config = prepare_run_config(_config(tmp_path), run_dir)
        first = StandInDaemon(config, run_dir, brain_factory=CountingBrain, crash_in_iterations=True)
        await _crashes(first)
        # the restart (same state on disk, --sessions 1)
        second = StandInDaemon(config, run_dir, brain_factory=CountingBrain)
        assert await second.run(handle_signals=False) == 0
    assert CountingBrain.runs == [0]  # the brain ran once: no second probe
    assert second.executed == ["iter_0"]  # finished, and nothing extra scheduled
    store = BlueprintStore(config.blueprint.path)
    assert [e.label for e in store.list_entries(kind="iteration")] == ["iter_0"]
    assert read_state(DaemonPaths(run_dir=run_dir.resolve())).sessions_done == 1
    assert _record(run_dir) == calm
    assert not (run_dir / "coordinator" / "session_brain.json").exists()


@pytest.mark.anyio
async def test_a_brain_cut_short_runs_again_with_its_first_iteration_label(tmp_path: Path) -> None:
    CountingBrain.runs = []
    run_dir = tmp_path / "run"
    config = prepare_run_config(_config(tmp_path), run_dir)
    with anyio.fail_after(240):
        first = StandInDaemon(config, run_dir, brain_factory=lambda c: CountingBrain(c, die=True))
        await _crashes(first)
        second = StandInDaemon(config, run_dir, brain_factory=CountingBrain)
        assert await second.run(handle_signals=False) == 0
    # iter_0 was scheduled before the kill: it runs first, then the brain again with label 0, not 1
    assert CountingBrain.runs == [0, 0]
    store = BlueprintStore(config.blueprint.path)
    assert [e.label for e in store.list_entries(kind="iteration")] == ["iter_0"]
    [record] = _record(run_dir)
    assert [it["label"] for it in record["iterations"]] == ["iter_0"]


@pytest.mark.anyio
async def test_a_wall_clock_set_back_mid_session_gives_the_real_session_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: negative session seconds after the clock moved back (then clamped to 0): the
    duration is measured on the monotonic clock."""
    import time
    import types

    import burnqed.coordination.daemon as daemon_module

    calls = {"n": 0}

    def wall() -> float:  # the first reading is the session's start; every later one is an hour earlier
        calls["n"] += 1
        return time.time() - (0 if calls["n"] == 1 else 3600)

    monkeypatch.setattr(daemon_module, "time", types.SimpleNamespace(time=wall, monotonic=time.monotonic))
    CountingBrain.runs = []
    run_dir = tmp_path / "run"
    config = prepare_run_config(_config(tmp_path), run_dir)
    started = time.monotonic()
    with anyio.fail_after(240):
        assert await StandInDaemon(config, run_dir, brain_factory=CountingBrain).run(handle_signals=False) == 0
    elapsed = time.monotonic() - started
    (record,) = read_jsonl(DaemonPaths(run_dir=run_dir.resolve()).sessions_file)
    assert 0 < record["seconds"] <= elapsed + 0.01
