"""SignalInterrupt: turn SIGINT / SIGTERM / SIGHUP into a cancelled scope, so ``finally``
blocks run; run_stoppable: blocking work (training) in a worker thread that stops when cancelled.

Without a handler SIGTERM ends the process at once: buffered trajectory rows are lost and a
blueprint entry stays ``running``. With one, the work is cancelled, writers flush and
finalise, the entry is marked ``partial``, and the command exits 130. A second signal
during that clean-up is noted and ignored (``shield_cleanup``), so an impatient operator or
a closing terminal cannot cut the clean-up short; SIGKILL remains for that.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio

__all__ = [
    "INTERRUPTED_EXIT",
    "STOP_SIGNALS",
    "SignalInterrupt",
    "Stopped",
    "cancel_on_signal",
    "run_stoppable",
    "shield_cleanup",
]

T = TypeVar("T")

INTERRUPTED_EXIT = 130

# what stops a command cleanly: Ctrl-C, kill / systemd, a closed terminal
STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

log = logging.getLogger(__name__)


def _noted(signum: int, _frame: Any) -> None:
    log.warning("received %s while stopping; finishing the clean-up first", signal.Signals(signum).name)


def shield_cleanup() -> dict[int, Any]:
    """From now on a stop signal is logged, not obeyed (the process is already stopping);
    returns the handlers it replaced (``SignalInterrupt.restore`` puts them back)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {int(s): signal.signal(s, _noted) for s in STOP_SIGNALS}


def _restore(previous: dict[int, Any]) -> None:
    """Put back the handlers ``shield_cleanup`` replaced."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)


class SignalInterrupt:
    """Cancels a scope on SIGINT / SIGTERM / SIGHUP and remembers which signal did it."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._previous: dict[int, Any] = {}

    async def watch(self, scope: anyio.CancelScope, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Wait for a signal, then cancel ``scope`` (later signals are shielded until ``restore``).
        Started with ``TaskGroup.start``, it returns once the handlers are in place."""
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            task_status.started()
            async for signum in signals:
                self.signal = signum
                scope.cancel()
                break
        if self.signal is not None:
            # the receiver is gone (it put the defaults back): a second SIGTERM would kill the clean-up
            self._previous = shield_cleanup()

    def restore(self) -> None:
        """The signal handlers as they were before a signal arrived."""
        _restore(self._previous)
        self._previous = {}


@asynccontextmanager
async def cancel_on_signal() -> AsyncIterator[SignalInterrupt]:
    """Run the body in a scope that SIGINT / SIGTERM cancel; yields the SignalInterrupt
    (its ``signal`` says whether one arrived). An error of the body propagates as itself,
    not wrapped in an exception group, so callers catch their own error types."""
    interrupt = SignalInterrupt()
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(interrupt.watch, tg.cancel_scope)  # a signal from here on is ours
            yield interrupt
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
    finally:
        interrupt.restore()


class Stopped(Exception):
    """Raised inside a worker thread when its caller was cancelled (see run_stoppable)."""


async def run_stoppable(work: Callable[[Callable[[], None]], T]) -> T:
    """Run blocking ``work(check)`` in a worker thread, keeping the event loop free (signal
    handlers, MCP requests). ``work`` calls ``check()`` often (every training step); once the
    caller is cancelled ``check`` raises Stopped, the thread unwinds, and the cancellation
    goes on. The caller waits for the thread, so nothing it writes is left half done."""
    stop = threading.Event()
    outcome: list[Any] = []
    done = anyio.Event()

    def check() -> None:
        if stop.is_set():
            raise Stopped("cancelled")

    async def in_thread() -> None:
        with anyio.CancelScope(shield=True):
            try:
                outcome.append(("ok", await anyio.to_thread.run_sync(work, check)))
            except BaseException as exc:  # handed to the caller below
                outcome.append(("error", exc))
            finally:
                done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(in_thread)
        try:
            await done.wait()
        except anyio.get_cancelled_exc_class():
            stop.set()
            with anyio.CancelScope(shield=True):
                await done.wait()
            raise
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value  # type: ignore[no-any-return]
