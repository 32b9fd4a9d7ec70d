"""SignalInterrupt: turn SIGINT / SIGTERM into a cancelled scope, so ``finally`` blocks run;
run_stoppable: blocking work (training) in a worker thread that stops when cancelled.

Without a handler SIGTERM ends the process at once: buffered trajectory rows are lost and a
blueprint entry stays ``running``. With one, the work is cancelled, writers flush and
finalise, the entry is marked ``partial``, and the command exits 130.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio

__all__ = ["INTERRUPTED_EXIT", "SignalInterrupt", "Stopped", "cancel_on_signal", "run_stoppable"]

T = TypeVar("T")

INTERRUPTED_EXIT = 130


class SignalInterrupt:
    """Cancels a scope on SIGINT / SIGTERM and remembers which signal did it."""

    def __init__(self) -> None:
        self.signal: int | None = None

    async def watch(self, scope: anyio.CancelScope) -> None:
        """Wait for a signal, then cancel ``scope``."""
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                self.signal = signum
                scope.cancel()
                return


@asynccontextmanager
async def cancel_on_signal() -> AsyncIterator[SignalInterrupt]:
    """Run the body in a scope that SIGINT / SIGTERM cancel; yields the SignalInterrupt
    (its ``signal`` says whether one arrived). An error of the body propagates as itself,
    not wrapped in an exception group, so callers catch their own error types."""
    interrupt = SignalInterrupt()
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(interrupt.watch, tg.cancel_scope)
            yield interrupt
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


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
