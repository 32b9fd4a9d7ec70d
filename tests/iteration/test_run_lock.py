"""Issue 28, High: every writer of a run directory holds its one lock (``run.lock``). An
``iterate`` beside another one (or beside a daemon) is refused in one line and writes
nothing; ``coordinator start`` / ``run-once`` beside a foreground holder write nothing, and
``coordinator status`` names the holder; a search server there is refused too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from burnqed.cli import main
from burnqed.config import BurnqedConfig
from burnqed.iteration import RunLayout
from burnqed.writelock import LockHeld, holder
from tests.fixtures.holder import start_holder, stop_holder
from tests.iteration.test_iterate_signals import _config, _iterate


def _snapshot(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.timeout(300)
def test_an_iterate_beside_a_running_iterate_is_refused_and_writes_nothing(tmp_path: Path, tiny_model_dir: Path) -> None:
    config = _config(tmp_path, tiny_model_dir)
    run_dir = tmp_path / "run"
    lock = RunLayout(run_dir).lock
    first = _iterate(config, run_dir)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and first.poll() is None:
            found = holder(lock)
            if found is not None and found.pid == first.pid:
                break
            time.sleep(0.02)
        assert first.poll() is None, first.communicate()
        first.send_signal(signal.SIGSTOP)  # frozen while it holds the run: nothing changes but the second's doing
        before = _snapshot(run_dir)
        second = _iterate(config, run_dir)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 1
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"in use by burnqed iterate (pid {first.pid})" in err
        assert _snapshot(run_dir) == before
    finally:
        first.send_signal(signal.SIGCONT)
        first.send_signal(signal.SIGTERM)
        _, first_err = first.communicate(timeout=120)
    assert first.returncode in (0, 130), first_err


def test_start_and_run_once_beside_a_foreground_holder_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    proc, _ = start_holder(RunLayout(run_dir).lock, "burnqed coordinator run-once")
    try:
        assert main(["coordinator", "start", "--run-dir", str(run_dir)]) == 2
        err = capsys.readouterr().err
        assert f"in use by burnqed coordinator run-once (pid {proc.pid})" in err and err.count("\n") == 1
        assert not (run_dir / "coordinator" / "config.toml").exists()
        assert main(["coordinator", "run-once", "--run-dir", str(run_dir)]) == 2
        assert "in use by burnqed coordinator run-once" in capsys.readouterr().err
        assert not (run_dir / "coordinator").exists()
        # status tells the truth during a run-once: running, with the holder's pid
        assert main(["coordinator", "status", "--run-dir", str(run_dir), "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["running"] is True and info["pid"] == proc.pid and info["holder"] == "burnqed coordinator run-once"
    finally:
        stop_holder(proc)
    assert main(["coordinator", "status", "--run-dir", str(run_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["running"] is False and info["pid"] is None


def test_status_does_not_show_a_dead_daemons_pid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from burnqed.coordination.control import DaemonPaths, DaemonState, write_state

    paths = DaemonPaths(run_dir=tmp_path / "run")
    write_state(paths, DaemonState(status="session", pid=2**22 - 1))  # a killed daemon's last state
    assert main(["coordinator", "status", "--run-dir", str(paths.run_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["running"] is False and info["pid"] is None


def test_a_corrupt_state_file_is_an_error_not_a_new_session_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from burnqed.coordination.control import ControlError, DaemonPaths, read_state

    paths = DaemonPaths(run_dir=tmp_path / "run")
    paths.root.mkdir(parents=True)
    paths.state_file.write_text('{"sessions_done": 3, "status": "idle"', encoding="utf-8")  # torn
    with pytest.raises(ControlError, match="state.json is damaged"):
        read_state(paths)
    assert main(["coordinator", "status", "--run-dir", str(paths.run_dir)]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err and err.count("\n") == 1


@pytest.mark.anyio
async def test_a_search_server_on_a_run_dir_another_process_holds_is_refused(tools_config: BurnqedConfig) -> None:
    from burnqed.tools.search.server import search_lifespan

    run_dir = tools_config.paths.run_dir
    proc, _ = start_holder(RunLayout(run_dir).lock, "burnqed iterate")
    try:
        with anyio.fail_after(60), pytest.raises(LockHeld, match=f"burnqed iterate \\(pid {proc.pid}\\)"):
            async with search_lifespan(tools_config):
                pass
        assert not (Path(run_dir) / "jobs").exists()
    finally:
        stop_holder(proc)
    with anyio.fail_after(120):
        async with search_lifespan(tools_config):
            assert holder(RunLayout(run_dir).lock).pid == os.getpid()  # type: ignore[union-attr]


GUARDIAN = """
import subprocess, sys
from burnqed.writelock import hold
with hold(sys.argv[1], "burnqed coordinator"):
    child = subprocess.Popen([sys.executable, "-m", "burnqed.cli", *sys.argv[2:], "serve", "search"],
                             stdout=subprocess.DEVNULL)
    print(child.pid, flush=True)
    child.wait()
"""


@pytest.mark.timeout(300)
def test_a_search_server_working_under_a_killed_daemons_lock_stops(
    tools_overrides: dict[str, object], tmp_path: Path
) -> None:
    """The daemon's ``serve search`` child borrows its lock; killed, the daemon must not leave
    the child writing jobs beside the next writer (here its stdin stays open, so only the
    holder's death can end it)."""
    from tests.fixtures.holder import env
    from tests.fixtures.tools import as_set_flags

    run_dir = Path(str(tools_overrides["paths.run_dir"]))
    daemon = subprocess.Popen([sys.executable, "-c", GUARDIAN, str(RunLayout(run_dir).lock),
                               *as_set_flags(tools_overrides)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env())
    assert daemon.stdout is not None and daemon.stdin is not None
    child = int(daemon.stdout.readline())
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (run_dir / "jobs").is_dir():  # the server's lifespan runs
            time.sleep(0.05)
        assert (run_dir / "jobs").is_dir()
        daemon.kill()
        daemon.wait(timeout=60)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _alive(child):
            time.sleep(0.05)
        assert not _alive(child), "the search server outlived the daemon whose lock it worked under"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        daemon.stdin.close()
        daemon.stdout.close()


def _alive(pid: int) -> bool:
    from burnqed.coordination.control import pid_alive

    try:
        os.waitpid(pid, os.WNOHANG)  # not our child: raises; a zombie of ours would be reaped
    except ChildProcessError:
        pass
    return pid_alive(pid)
