"""One writer per run directory and per output file: an ``flock`` held for the writer's life
(imports nothing of ours).

A writer takes ``hold(lock_file, role)``: the lock file records who holds it (pid, the
process's start time, the role, the command line) and a second writer is refused with
``LockHeld``, one line naming the holder. The holder's own descendants (the daemon's
``serve search`` child, the toolbox's servers) are let in without taking the lock: the
holder's pid and start time are found among their ancestors, which an unrelated process
cannot fake. Within one process a lock is re-entrant (the search CLI and its trajectory
writer both hold the output's). The kernel drops an ``flock`` when its holder dies, so a
SIGKILL never leaves a stale lock behind (the file it leaves is taken over by the next
writer); on a clean release the holder removes its lock file.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "RUN_LOCK_NAME",
    "Held",
    "LockHeld",
    "Holder",
    "boot_id",
    "hold",
    "holder",
    "lock_file_for",
    "process_token",
    "refuse_inside_locked_run",
]

# the run directory's lock file (burnqed.rundir.RunDir.lock)
RUN_LOCK_NAME = "run.lock"


class LockHeld(RuntimeError):
    """Another process holds the lock: the writer is refused (the message names the holder)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a lock, as its lock file says."""

    pid: int
    start: str | None
    role: str
    argv: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """``burnqed iterate (pid 123)``."""
        return f"{self.role} (pid {self.pid})"

    def alive(self) -> bool:
        """True while the holder process (same pid, same start time) still runs."""
        return self.start is not None and process_token(self.pid) == self.start


@dataclass(frozen=True)
class Held:
    """What ``hold`` gives the block: ``borrowed`` when this process works under an ancestor's
    lock (then ``holder`` is that ancestor; a borrower should stop when it is gone)."""

    borrowed: bool = False
    holder: Holder | None = None


@dataclass
class _Held:
    fd: int
    count: int


# process-wide: an flock belongs to an open file, so a second open() in this process would
# refuse its own holder; re-entry counts instead
_HELD: dict[str, _Held] = {}


def lock_file_for(output: str | Path) -> Path:
    """The lock file of an output file: ``OUT.lock`` beside ``OUT``."""
    output = Path(output)
    return output.with_name(output.name + ".lock")


def process_token(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot, field 22 of /proc/PID/stat),
    None when it is gone or a zombie: with the pid it names one process, so a pid reused by
    another program is never mistaken for it (the run lock, the daemon's pid file, job owners)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) < 20 or fields[0] == "Z":
        return None
    return fields[19]


def boot_id() -> str | None:
    """This boot's id (/proc/sys/kernel/random/boot_id), None where the kernel gives none: with
    ``process_token`` it ties a pid file to one boot, so after a reboot a pid that starts at the
    same clock tick is never taken for the process that wrote the file."""
    try:
        text = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return None
    return text or None


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[1]) if len(fields) > 1 else None


def _is_ancestor(h: Holder) -> bool:
    """True when the holder (same pid and start time) is this process's parent, grandparent, …"""
    pid = _parent(os.getpid())
    while pid is not None and pid > 1:
        if pid == h.pid:
            return h.start is not None and process_token(pid) == h.start
        pid = _parent(pid)
    return False


def _read_holder(path: Path) -> Holder | None:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        return Holder(pid=int(raw["pid"]), start=raw.get("start"), role=str(raw.get("role", "a writer")),
                      argv=[str(a) for a in raw.get("argv", [])])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def holder(lock_file: str | Path) -> Holder | None:
    """The live holder of a lock (None when nobody holds it): probes the flock, never waits."""
    path = Path(lock_file)
    key = str(path.resolve()) if path.exists() else None
    if key is not None and key in _HELD:
        return _read_holder(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_holder(path) or Holder(pid=0, start=None, role="another process")
    finally:
        os.close(fd)
    return None


@contextmanager
def hold(lock_file: str | Path, role: str, *, what: str | None = None, reentrant: bool = False) -> Iterator[Held]:
    """Hold ``lock_file`` for the block, or raise ``LockHeld`` (a descendant of the holder
    passes without taking it). ``what`` names the guarded thing in the message;
    ``reentrant`` lets this process take a lock it already holds (else it is refused too)."""
    path = Path(lock_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = str(path.resolve())
    if key in _HELD and not reentrant:
        current = _read_holder(path)
        who = current.describe() if current is not None else f"this process (pid {os.getpid()})"
        raise LockHeld(f"{what or path} is in use by {who}; wait for it to finish or stop it")
    if key in _HELD:
        _HELD[key].count += 1
        try:
            yield Held()
        finally:
            _release(key)
        return
    fd = _acquire(path)
    if fd is None:
        current = _read_holder(path)
        if current is not None and _is_ancestor(current):
            yield Held(borrowed=True, holder=current)  # the holder's own child: it works under its parent's lock
            return
        who = current.describe() if current is not None else "another process"
        raise LockHeld(f"{what or path} is in use by {who}; wait for it to finish or stop it")
    record = {"pid": os.getpid(), "start": process_token(os.getpid()), "role": role, "argv": sys.argv[:8]}
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode("utf-8"), 0)
    except OSError:
        path.unlink(missing_ok=True)  # a full disk: no lock, no half-written lock file
        os.close(fd)
        raise
    _HELD[key] = _Held(fd=fd, count=1)
    try:
        yield Held()
    finally:
        _release(key)


def _acquire(path: Path) -> int | None:
    """An open descriptor of ``path`` holding its flock, or None when another process holds it.
    A lock file is removed by its holder on release; a descriptor whose file was removed (or
    replaced) meanwhile is stale, and the lock is taken again on the file now there."""
    for _ in range(100):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        mine = os.fstat(fd)
        if current is not None and (current.st_ino, current.st_dev) == (mine.st_ino, mine.st_dev):
            return fd
        os.close(fd)
    raise LockHeld(f"{path}: the lock file keeps being replaced; is another program deleting it?")


def _release(key: str) -> None:
    held = _HELD[key]
    held.count -= 1
    if held.count == 0:
        del _HELD[key]
        # removed while still held, so a waiter that opened the old file sees it is stale
        Path(key).unlink(missing_ok=True)
        os.close(held.fd)  # closing the descriptor releases the flock


def refuse_inside_locked_run(path: str | Path) -> None:
    """Raise ``LockHeld`` when ``path`` lies in a run directory another process holds
    (a run dir is marked by its ``run.lock``); the holder's descendants and the holder
    itself pass."""
    here = Path(path).resolve().parent
    for directory in (here, *here.parents):
        lock = directory / RUN_LOCK_NAME
        if not lock.is_file():
            continue
        if str(lock.resolve()) in _HELD:
            return
        current = holder(lock)
        if current is not None and not _is_ancestor(current):
            raise LockHeld(f"{path} is inside run directory {directory}, in use by {current.describe()}")
        return
