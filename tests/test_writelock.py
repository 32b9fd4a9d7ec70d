"""burnqed.writelock (issue 28): one writer per lock across processes, the holder's children
pass, an unrelated process (the holder's own parent included) is refused in one line, and
a SIGKILLed holder frees the lock. Every test uses real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from burnqed.writelock import LockHeld, hold, holder, lock_file_for, refuse_inside_locked_run

from tests.fixtures.holder import CHILD, env as _env, start_holder as _start_holder, stop_holder as _stop


def test_a_second_process_is_refused_with_the_holders_role_and_pid(tmp_path: Path) -> None:
    lock = tmp_path / "run" / "run.lock"
    proc, _ = _start_holder(lock, "burnqed iterate")
    try:
        with pytest.raises(LockHeld, match=rf"in use by burnqed iterate \(pid {proc.pid}\)") as caught:
            with hold(lock, "burnqed coordinator"):
                pass
        assert "\n" not in str(caught.value)
        found = holder(lock)
        assert found is not None and found.pid == proc.pid and found.role == "burnqed iterate"
    finally:
        _stop(proc)
    assert holder(lock) is None and not lock.exists()  # released and removed on a clean exit
    with hold(lock, "burnqed coordinator"):
        assert holder(lock) is not None


def test_a_sigkilled_holder_frees_the_lock_it_leaves_behind(tmp_path: Path) -> None:
    lock = tmp_path / "out.parquet.lock"
    proc, _ = _start_holder(lock, "burnqed search")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    _stop(proc)
    assert lock.exists()  # the file stays, the flock does not
    assert holder(lock) is None
    with hold(lock, "burnqed search"):
        pass


def test_the_holders_child_passes_and_its_parent_does_not(tmp_path: Path) -> None:
    # the test process is the holder's parent: not a descendant, so refused like any stranger
    lock = tmp_path / "run.lock"
    proc, lines = _start_holder(lock, "burnqed coordinator", CHILD)
    try:
        assert lines[0].startswith("child: 0 passed"), lines
        with pytest.raises(LockHeld, match="burnqed coordinator"):
            with hold(lock, "burnqed iterate"):
                pass
        refused = subprocess.run([sys.executable, "-c", CHILD, str(lock)], capture_output=True, text=True,
                                 env=_env(), timeout=120)
        assert refused.returncode != 0 and "LockHeld" in refused.stderr and "passed" not in refused.stdout
    finally:
        _stop(proc)


def test_reentry_only_when_asked(tmp_path: Path) -> None:
    lock = lock_file_for(tmp_path / "out.parquet")
    assert lock.name == "out.parquet.lock"
    with hold(lock, "burnqed search", reentrant=True):
        with hold(lock, "a trajectory writer", reentrant=True):
            assert holder(lock) is not None
        assert lock.exists()  # still held by the outer block
        with pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
            with hold(lock, "burnqed search"):
                pass
    assert not lock.exists()


def test_an_output_inside_a_run_dir_another_process_holds_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    proc, _ = _start_holder(run / "run.lock", "burnqed coordinator")
    try:
        with pytest.raises(LockHeld, match=r"inside run directory .* burnqed coordinator"):
            refuse_inside_locked_run(run / "trajectories" / "iter_0.parquet")
        refuse_inside_locked_run(tmp_path / "elsewhere.parquet")  # outside: fine
    finally:
        _stop(proc)
    refuse_inside_locked_run(run / "trajectories" / "iter_0.parquet")
