"""SignalInterrupt: turn SIGINT / SIGTERM into a cancelled scope, so ``finally`` blocks run.

Without a handler SIGTERM ends the process at once: buffered trajectory rows are lost and a
blueprint entry stays ``running``. With one, the work is cancelled, writers flush and
finalise, the entry is marked ``partial``, and the command exits 130.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

__all__ = ["INTERRUPTED_EXIT", "SignalInterrupt", "cancel_on_signal"]

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
