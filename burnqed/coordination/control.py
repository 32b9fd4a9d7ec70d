"""Process control of the coordinator daemon: pid file, detached start, stop, status.

Layout under ``<run_dir>/coordinator/``: ``daemon.pid`` (written by the daemon itself once
it runs), ``daemon.log`` (its stderr), ``state.json`` (current session, last iteration, best
held-out solve rate; replaced atomically), ``sessions.jsonl`` (one line per session) and
``turns/session_<N>.jsonl`` (every turn and tool call).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from burnqed.env import environment
from burnqed.rundir import RunDir
from burnqed.writelock import Holder, LockHeld, boot_id, holder, process_token

__all__ = [
    "COORDINATOR_DIR",
    "BlueprintDamaged",
    "clock_mark",
    "ControlError",
    "DaemonPaths",
    "DaemonState",
    "describe",
    "lock_holder",
    "pid_alive",
    "read_pid",
    "read_state",
    "run_lock",
    "seconds_since",
    "start_detached",
    "stop_daemon",
    "write_pid",
    "write_state",
]


# the coordination layer's folder in a run directory (burnqed.rundir.RunDir)
COORDINATOR_DIR = "coordinator"


class ControlError(RuntimeError):
    """The daemon could not be started, stopped or found."""


class BlueprintDamaged(ControlError):
    """BLUEPRINT.md fails validation or its statement locks (a hand edit): the daemon stops (exit 2)."""


class DaemonPaths(BaseModel):
    """Where a run's coordinator keeps its files."""

    model_config = ConfigDict(frozen=True)

    run_dir: Path

    @property
    def root(self) -> Path:
        """The coordinator's folder in the run dir."""
        return Path(self.run_dir) / COORDINATOR_DIR

    @property
    def pid_file(self) -> Path:
        """The daemon's pid file."""
        return self.root / "daemon.pid"

    @property
    def log_file(self) -> Path:
        """The detached daemon's stderr."""
        return self.root / "daemon.log"

    @property
    def state_file(self) -> Path:
        """The daemon's current state (JSON)."""
        return self.root / "state.json"

    @property
    def sessions_file(self) -> Path:
        """One JSON line per finished session."""
        return self.root / "sessions.jsonl"

    @property
    def config_file(self) -> Path:
        """The config snapshot the daemon and its MCP servers run with."""
        return self.root / "config.toml"

    def turns_file(self, session: int) -> Path:
        """The turn log of one session."""
        return self.root / "turns" / f"session_{session}.jsonl"


class DaemonState(BaseModel):
    """What ``burnqed coordinator status`` shows."""

    status: str = "idle"  # idle | session | iteration | backoff | stopped | failed
    pid: int | None = None
    session: int = 0
    sessions_done: int = 0
    last_iteration: str | None = None
    best_held_out: float | None = None
    best_held_out_iteration: str | None = None
    consecutive_failures: int = 0
    last_error: str | None = None
    updated: float = 0.0


def write_state(paths: DaemonPaths, state: DaemonState) -> None:
    """Replace state.json atomically."""
    paths.root.mkdir(parents=True, exist_ok=True)
    tmp = paths.state_file.with_suffix(".tmp")
    tmp.write_text(state.model_copy(update={"updated": time.time()}).model_dump_json(indent=2), encoding="utf-8")
    os.replace(tmp, paths.state_file)


def read_state(paths: DaemonPaths) -> DaemonState:
    """The last written state (a default one when none exists). A state.json that cannot be
    read is a ``ControlError``: resetting it would restart the session count at 0."""
    try:
        text = paths.state_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DaemonState()
    except (OSError, UnicodeDecodeError) as exc:
        raise ControlError(f"{paths.state_file} cannot be read ({exc}); repair or remove it") from None
    try:
        return DaemonState.model_validate_json(text)
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        raise ControlError(f"{paths.state_file} is damaged ({first}); repair or remove it") from None


def clock_mark() -> str:
    """Now on this boot's monotonic clock, ``BOOT:SECONDS``: a duration measured from it never
    goes negative (nor shrinks) when the wall clock is set back."""
    return f"{boot_id() or '-'}:{time.monotonic()}"


def seconds_since(mark: str | None, wall_started: float) -> float:
    """Seconds since ``mark`` (``clock_mark``) on the monotonic clock while it is this boot's
    (a daemon restarted in the same boot too); else by the wall clock, never negative."""
    boot, _, mono = (mark or "").rpartition(":")
    if mark and boot == (boot_id() or "-"):
        return max(0.0, time.monotonic() - float(mono))
    return max(0.0, time.time() - wall_started)


def pid_alive(pid: int) -> bool:
    """True when a process of that pid exists (and is not a zombie we reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def write_pid(paths: DaemonPaths) -> None:
    """Record this process as the run's daemon: ``PID START BOOT`` (its start time, field 22 of
    /proc/PID/stat, and this boot's id), so that neither a reused pid nor a reboot is mistaken for it."""
    paths.root.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    paths.pid_file.write_text(f"{pid} {process_token(pid) or '-'} {boot_id() or '-'}\n")


def read_pid(paths: DaemonPaths) -> int | None:
    """The running daemon's pid, or None. A pid file whose process is gone, whose pid now
    names another process (start time differs, or no token to check), or that was written in
    another boot, is stale and removed: nothing is ever signalled on its word."""
    try:
        parts = paths.pid_file.read_text().split()
        pid = int(parts[0])
    except (FileNotFoundError, ValueError, IndexError):
        return None
    token = parts[1] if len(parts) > 1 else None
    # a file of an older burnqed has no boot id: its start time alone decides
    boot = parts[2] if len(parts) > 2 else None
    current = process_token(pid)
    ours = token is not None and (token == current or (token == "-" and current is None))
    same_boot = boot is None or boot == (boot_id() or "-")
    if ours and same_boot and pid_alive(pid):
        return pid
    paths.pid_file.unlink(missing_ok=True)
    return None


@contextmanager
def run_lock(paths: DaemonPaths, role: str = "burnqed coordinator") -> Iterator[None]:
    """Hold the run directory's writer lock (``RunDir.hold``) for as long as the block
    runs: a second daemon, a ``run-once`` or an ``iterate`` on the same run dir is refused
    with the holder's role and pid."""
    try:
        with RunDir(paths.run_dir).hold(role):
            yield
    except LockHeld as exc:
        raise ControlError(str(exc)) from None


def lock_holder(paths: DaemonPaths) -> Holder | None:
    """Who holds the run directory now (daemon, run-once, iterate, a search server), or None."""
    return holder(RunDir(paths.run_dir).lock)


def start_detached(paths: DaemonPaths, argv: list[str], *, wait_s: float = 30.0) -> int:
    """Start the daemon in its own session (detached), wait until it wrote its pid file."""
    existing = read_pid(paths)
    if existing is not None:
        raise ControlError(f"a coordinator is already running for {paths.run_dir} (pid {existing})")
    paths.root.mkdir(parents=True, exist_ok=True)
    log_fd = os.open(paths.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # posix_spawn with setsid: detached in its own session, and no Popen object that
        # would complain about a child still running when it is collected
        pid = os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", "burnqed.cli", *argv],
            environment(),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, log_fd, 1),
                (os.POSIX_SPAWN_DUP2, log_fd, 2),
            ],
            setsid=True,
        )
    finally:
        os.close(log_fd)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if read_pid(paths) == pid:
            return pid
        if not pid_alive(pid):
            raise ControlError(f"the daemon exited at once; see {paths.log_file}")
        time.sleep(0.05)
    os.kill(pid, signal.SIGTERM)
    raise ControlError(f"the daemon did not start within {wait_s:.0f} s; see {paths.log_file}")


def stop_daemon(paths: DaemonPaths, *, wait_s: float = 60.0) -> dict[str, Any]:
    """Send SIGTERM and wait for the daemon to exit (SIGKILL after ``wait_s``)."""
    pid = read_pid(paths)
    if pid is None:
        return {"stopped": False, "reason": "not running"}
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        paths.pid_file.unlink(missing_ok=True)
        return {"stopped": True, "pid": pid, "signal": None}
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            paths.pid_file.unlink(missing_ok=True)
            return {"stopped": True, "pid": pid, "signal": "SIGTERM"}
        time.sleep(0.05)
    # a detached daemon leads its own process group; a foreground one (`coordinator run`)
    # does not, and only the process itself is killed
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    paths.pid_file.unlink(missing_ok=True)
    return {"stopped": True, "pid": pid, "signal": "SIGKILL"}


def describe(paths: DaemonPaths) -> dict[str, Any]:
    """Status as a dict: running or not, and the last state."""
    pid = read_pid(paths)
    state = read_state(paths)
    current = lock_holder(paths)
    # the live pid wins over the one the state file last recorded (None after a clean stop)
    info = {**json.loads(state.model_dump_json()), "running": pid is not None, "pid": pid}
    if current is not None:
        # run-once and iterate hold the run dir without a pid file; state.json's pid may be an old daemon's
        info |= {"running": True, "pid": current.pid, "holder": current.role}
    elif pid is None:
        info["pid"] = None
    return info
