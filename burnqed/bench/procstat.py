"""CPU time and resident memory of process groups, read from Linux ``/proc`` (no psutil).

A benchmark takes a ``Snapshot`` before and after the work and asks ``cpu_between`` how many
CPU seconds each named group of processes spent; ``descendants`` finds the processes a
parent started (Ray's raylet and workers, a Lean actor's checker children). Where ``/proc``
is missing (not Linux) every figure is ``None`` rather than a guess.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Snapshot", "available", "available_mb", "cpu_between", "descendants", "machine_busy_s", "rss_mb", "take"]

_PROC = Path("/proc")
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_UTIME, _STIME = 11, 12  # fields 14 and 15 of /proc/PID/stat, counted after the ")" of the name
_PPID = 1


@dataclass(frozen=True, slots=True)
class Snapshot:
    """CPU seconds (user + system) per live process, each process's parent, and the machine's busy seconds."""

    cpu_s: Mapping[int, float] = field(default_factory=dict)
    parent: Mapping[int, int] = field(default_factory=dict)
    machine_busy_s: float = 0.0


def available() -> bool:
    """True where ``/proc`` can be read (Linux)."""
    return (_PROC / "stat").is_file()


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except OSError:  # the process ended between listing and reading
        return None
    return raw[raw.rfind(")") + 2 :].split()


def machine_busy_s() -> float:
    """CPU seconds every core of the machine spent not idle since boot (any process, ours or not)."""
    first = (_PROC / "stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(v) for v in first[:8]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / _TICKS


def take() -> Snapshot:
    """Every process's CPU seconds and parent now (empty where /proc is missing)."""
    if not available():
        return Snapshot()
    cpu: dict[int, float] = {}
    parent: dict[int, int] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is None:
            continue
        pid = int(entry.name)
        cpu[pid] = (int(fields[_UTIME]) + int(fields[_STIME])) / _TICKS
        parent[pid] = int(fields[_PPID])
    return Snapshot(cpu, parent, machine_busy_s())


def descendants(snapshot: Snapshot, roots: Iterable[int]) -> set[int]:
    """The processes below ``roots`` (not the roots themselves) in ``snapshot``."""
    children: dict[int, list[int]] = {}
    for pid, ppid in snapshot.parent.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def cpu_between(before: Snapshot, after: Snapshot, groups: Mapping[str, Iterable[int]]) -> dict[str, float | None]:
    """CPU seconds each group spent from ``before`` to ``after`` (processes alive at ``after``;
    one started in between counts from zero). None for every group where /proc is missing."""
    if not after.cpu_s:
        return dict.fromkeys(groups)
    return {
        name: round(sum(after.cpu_s.get(p, 0.0) - before.cpu_s.get(p, 0.0) for p in pids if p in after.cpu_s), 3)
        for name, pids in groups.items()
    }


def rss_mb(pids: Iterable[int]) -> float | None:
    """Resident memory of ``pids`` together, in MiB (processes already gone count 0); None without /proc."""
    if not available():
        return None
    total = 0
    for pid in pids:
        try:
            total += int((_PROC / str(pid) / "statm").read_text().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return round(total / (1024 * 1024), 1)


def available_mb() -> float | None:
    """The machine's memory still available (``MemAvailable``), in MiB; None without /proc."""
    try:
        for line in (_PROC / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except (OSError, IndexError, ValueError):
        return None
    return None
