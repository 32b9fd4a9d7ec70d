"""burnqed.interrupt (issue 28): SIGHUP stops a command like SIGTERM, and a second stop
signal during the clean-up is noted, not obeyed (real processes signal themselves)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    import anyio
    from burnqed.interrupt import cancel_on_signal

    first, second = (getattr(signal, name) for name in sys.argv[1:3])

    async def main():
        async with cancel_on_signal() as interrupt:
            try:
                os.kill(os.getpid(), first)
                await anyio.sleep(60)
            finally:
                with anyio.CancelScope(shield=True):
                    os.kill(os.getpid(), second)  # the operator again, mid clean-up
                    await anyio.sleep(0.5)
                    print("cleaned up", flush=True)
        print("stopped by", signal.Signals(interrupt.signal).name, flush=True)

    anyio.run(main)
    """
)


@pytest.mark.parametrize(("first", "second"), [("SIGTERM", "SIGTERM"), ("SIGHUP", "SIGINT"), ("SIGINT", "SIGHUP")])
def test_a_second_signal_during_clean_up_does_not_cut_it_short(first: str, second: str) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, first, second], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    assert done.stdout.splitlines() == ["cleaned up", f"stopped by {first}"]
    assert "while stopping" in done.stderr  # the second one was noted


def test_the_handlers_are_put_back_after_the_block() -> None:
    script = SCRIPT.replace('print("stopped by"', 'os.kill(os.getpid(), signal.SIGTERM); print("stopped by"')
    done = subprocess.run([sys.executable, "-c", script, "SIGTERM", "SIGTERM"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -signal.SIGTERM  # outside the block SIGTERM is the default again
