"""The daemon: start / status / stop as a detached process, back-off, and fatal errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from burnqed.cli import main
from burnqed.config import BurnqedConfig
from burnqed.coordination.config import CoordinatorConfig
from burnqed.coordination.control import (
    ControlError,
    DaemonPaths,
    pid_alive,
    read_state,
    run_lock,
    stop_daemon,
    write_pid,
)
from burnqed.coordination.daemon import Daemon
from burnqed.coordination.log import read_jsonl
from tests.fixtures.fake_anthropic import FakeMessagesServer


def _wait_for(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def test_start_status_stop_in_a_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BURNQED_TEST_KEY", "sk-test")
    run_dir = tmp_path / "run"
    # the API is unreachable (a closed port): every session fails transiently and the daemon backs off
    flags = [
        "--run-dir", str(run_dir), "--brain", "anthropic", "--base-url", "http://127.0.0.1:9",
        "--set", "coordinator.api_key_env='BURNQED_TEST_KEY'", "--set", "coordinator.servers=['blueprint']",
        "--set", "coordinator.backoff_initial_s=60",
    ]
    assert main(["coordinator", "start", *flags]) == 0
    paths = DaemonPaths(run_dir=run_dir.resolve())
    pid = int(paths.pid_file.read_text().split()[0])
    try:
        _wait_for(lambda: read_state(paths).status == "backoff")
        capsys.readouterr()
        assert main(["coordinator", "status", "--run-dir", str(run_dir), "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        assert status["running"] is True and status["pid"] == pid
        assert status["consecutive_failures"] == 1
        assert "APIConnectionError" in status["last_error"] or "Connection" in status["last_error"]
        snapshot = paths.config_file.read_text(encoding="utf-8")
        assert main(["coordinator", "start", *flags, "--set", "coordinator.max_tokens=777"]) == 2  # one per run dir
        assert paths.config_file.read_text(encoding="utf-8") == snapshot  # a refused start changes nothing
        assert main(["coordinator", "run-once", "--run-dir", str(run_dir)]) == 2  # nor a second daemon in the foreground
    finally:
        assert main(["coordinator", "stop", "--run-dir", str(run_dir), "--wait", "30"]) == 0
    assert not pid_alive(pid)
    assert not paths.pid_file.exists()
    assert read_state(paths).status == "stopped"
    turns = read_jsonl(paths.turns_file(0))
    assert turns and turns[0]["event"] == "session_start"


@pytest.mark.anyio
async def test_authentication_error_stops_the_daemon(
    tmp_path: Path, fake_messages_server: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BURNQED_TEST_KEY", "sk-bad")
    fake_messages_server.fail(401, "authentication_error", "invalid x-api-key")
    coordinator = CoordinatorConfig(brain="anthropic", base_url=fake_messages_server.url, api_key_env="BURNQED_TEST_KEY",
                                    servers=["blueprint"], max_sessions=3)
    config = BurnqedConfig(coordinator=coordinator)
    daemon = Daemon(config, tmp_path / "run")
    with anyio.fail_after(120):
        code = await daemon.run(handle_signals=False)
    assert code == 3
    state = read_state(daemon.paths)
    assert state.status == "failed" and "AuthenticationError" in (state.last_error or "")
    assert state.sessions_done == 0
    assert len(fake_messages_server.requests) == 1  # no retry after a fatal error
    assert not daemon.paths.pid_file.exists()
    assert os.getpid() != state.pid


def test_a_second_daemon_on_one_run_dir_is_refused(tmp_path: Path) -> None:
    paths = DaemonPaths(run_dir=tmp_path)
    with run_lock(paths):
        write_pid(paths)
        with pytest.raises(ControlError, match=rf"in use by burnqed coordinator \(pid {os.getpid()}\)"):
            with run_lock(paths):
                pass
    with run_lock(paths):  # released with the first holder
        pass


def test_stop_never_signals_a_process_that_is_not_our_daemon(tmp_path: Path) -> None:
    paths = DaemonPaths(run_dir=tmp_path)
    paths.root.mkdir(parents=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for content in (f"{other.pid}\n", f"{other.pid} 12345\n"):  # no token, or another process's start time
            paths.pid_file.write_text(content)
            assert stop_daemon(paths, wait_s=1) == {"stopped": False, "reason": "not running"}
            assert other.poll() is None and not paths.pid_file.exists()
    finally:
        other.kill()
        other.wait()


def test_stop_kills_a_foreground_daemon_that_ignores_sigterm(tmp_path: Path) -> None:
    """Issue 28: a foreground daemon is no process-group leader; stop --wait must not
    raise ProcessLookupError from killpg, and the process must be gone."""
    from burnqed.writelock import process_token

    paths = DaemonPaths(run_dir=tmp_path)
    paths.root.mkdir(parents=True)
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
         "print('ready', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline().strip() == "ready"
        assert os.getpgid(stubborn.pid) != stubborn.pid  # like `coordinator run` in a terminal
        paths.pid_file.write_text(f"{stubborn.pid} {process_token(stubborn.pid)}\n")
        result = stop_daemon(paths, wait_s=0.5)
        assert result == {"stopped": True, "pid": stubborn.pid, "signal": "SIGKILL"}
        assert stubborn.wait(timeout=30) == -9
    finally:
        if stubborn.poll() is None:
            stubborn.kill()
            stubborn.wait(timeout=30)
        if stubborn.stdout is not None:
            stubborn.stdout.close()


def test_run_once_on_an_empty_blueprint_is_refused_and_counts_no_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "BLUEPRINT.md").write_text("\n", encoding="utf-8")
    assert main(["coordinator", "run-once", "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert "is empty" in err and err.count("\n") == 1
    paths = DaemonPaths(run_dir=run_dir.resolve())
    assert read_state(paths).sessions_done == 0 and not paths.sessions_file.exists()


def test_a_pid_file_of_another_boot_is_stale_even_when_pid_and_start_time_match(tmp_path: Path) -> None:
    """Issue 41: the pid file was not tied to the boot: after a reboot a process with the same pid
    and start tick (early boot services) was taken for the daemon and could be signalled."""
    from burnqed.coordination.control import read_pid
    from burnqed.writelock import boot_id, process_token

    paths = DaemonPaths(run_dir=tmp_path)
    write_pid(paths)
    pid, start, boot = paths.pid_file.read_text().split()
    assert (int(pid), start, boot) == (os.getpid(), process_token(os.getpid()), boot_id())
    assert read_pid(paths) == os.getpid()
    other_boot = "00000000-0000-0000-0000-000000000000"
    assert boot != other_boot
    paths.pid_file.write_text(f"{pid} {start} {other_boot}\n")
    assert read_pid(paths) is None and not paths.pid_file.exists()  # stale: removed, never signalled
    assert stop_daemon(paths, wait_s=1) == {"stopped": False, "reason": "not running"}
