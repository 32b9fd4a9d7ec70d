"""ChildProcess with real children: lines out and back, the stderr tail after death, the group kill."""

from __future__ import annotations

import sys

import anyio
import pytest

from burnqed.child import PIPE_ERRORS, ChildProcess, resident_mb
from tests.fixtures.lean import pid_alive

pytestmark = pytest.mark.anyio

# echoes each line upper-cased; writes its pid and a grandchild's (same process group) to stderr
_ECHO = """
import subprocess, sys
grandchild = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(300)"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
)
print(f"child {grandchild.pid}", file=sys.stderr, flush=True)
for line in sys.stdin:
    if line == "die\\n":
        print("dying now", file=sys.stderr, flush=True)
        sys.exit(3)
    sys.stdout.write(line.upper())
    sys.stdout.flush()
"""


def _child(script: str = _ECHO, max_line_bytes: int = 1024) -> ChildProcess:
    return ChildProcess([sys.executable, "-c", script], max_line_bytes=max_line_bytes, stderr_tail_bytes=4096)


async def _grandchild(child: ChildProcess) -> int:
    with anyio.fail_after(30):
        while "child " not in child.stderr_tail():
            await anyio.sleep(0.05)
    return int(child.stderr_tail().split("child ", 1)[1].split()[0])


async def test_a_line_goes_out_and_one_comes_back_and_kill_reaches_the_whole_group() -> None:
    child = _child()
    await child.spawn()
    try:
        assert child.running and child.pid is not None
        assert resident_mb(child.pid) is not None
        await child.send(b"hello\n")
        with anyio.fail_after(30):
            assert await child.read_line() == b"HELLO"
        grandchild = await _grandchild(child)
        assert pid_alive(grandchild)
    finally:
        await child.kill()
    assert not child.running
    with anyio.fail_after(30):
        while pid_alive(grandchild):  # the kill went to the group, not only the child
            await anyio.sleep(0.05)
    assert "child " in child.stderr_tail()  # kept after the temporary file is closed


async def test_a_child_that_exits_raises_a_pipe_error_and_keeps_what_it_said() -> None:
    child = _child()
    await child.spawn()
    try:
        grandchild = await _grandchild(child)
        await child.send(b"die\n")
        with anyio.fail_after(30), pytest.raises(PIPE_ERRORS):
            await child.read_line()
    finally:
        await child.kill()
    assert child.returncode == 3
    assert "dying now" in child.stderr_tail()
    with anyio.fail_after(30):
        while pid_alive(grandchild):  # what it started dies with it, in its process group
            await anyio.sleep(0.05)
    await child.kill()  # idempotent


async def test_an_over_long_line_is_refused() -> None:
    child = _child(max_line_bytes=1024)
    await child.spawn()
    try:
        # longer than one pipe read, so the limit is seen before the newline
        await child.send(b"x" * 200_000 + b"\n")
        with anyio.fail_after(30), pytest.raises(anyio.DelimiterNotFound):
            await child.read_line()
    finally:
        await child.kill()


async def test_stop_asks_first_and_kills_a_child_that_ignores_end_of_input() -> None:
    polite = _child()
    await polite.spawn()
    await polite.stop(30)
    assert polite.returncode == 0  # closed stdin ends the echo loop: it exited on its own

    stubborn = _child("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(300)")
    await stubborn.spawn()
    await stubborn.stop(0.5)
    assert stubborn.returncode == -9


async def test_a_program_that_cannot_start_is_an_os_error() -> None:
    child = ChildProcess(["/nonexistent/program"], max_line_bytes=1024, stderr_tail_bytes=1024)
    with pytest.raises(OSError):
        await child.spawn()
    assert not child.spawned and child.stderr_tail() == ""
