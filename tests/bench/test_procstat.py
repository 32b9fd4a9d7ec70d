"""CPU seconds and memory of process groups from /proc: a child's spent CPU is found under its parent."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from burnqed.bench import procstat

pytestmark = pytest.mark.skipif(not procstat.available(), reason="needs Linux /proc")

# spins until it has spent 0.3 CPU seconds, says so, then waits (sleeping) for its stdin to close
_BURNER = (
    "import sys, time\n"
    "while time.process_time() < 0.3: pass\n"
    "print('burnt', flush=True)\n"
    "sys.stdin.read()\n"
)


def test_a_childs_cpu_seconds_and_memory_are_found_below_its_parent() -> None:
    before = procstat.take()
    with subprocess.Popen(
        [sys.executable, "-c", _BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        try:
            assert child.stdout.readline() == "burnt\n"
            after = procstat.take()
        finally:
            child.stdin.close()
            child.wait(timeout=30)
    assert child.pid in procstat.descendants(after, [os.getpid()])
    assert os.getpid() not in procstat.descendants(after, [os.getpid()])
    spent = procstat.cpu_between(before, after, {"child": [child.pid], "gone": [2**22 + 7]})
    assert spent["child"] is not None and spent["child"] >= 0.29
    assert spent["gone"] == 0
    assert after.machine_busy_s - before.machine_busy_s >= 0.29


def test_resident_memory_counts_live_processes_and_skips_ended_ones() -> None:
    alone = procstat.rss_mb([os.getpid()])
    assert alone is not None and alone > 1.0
    assert procstat.rss_mb([os.getpid(), 2**22 + 7]) == alone
    available = procstat.available_mb()
    assert available is not None and available > alone
