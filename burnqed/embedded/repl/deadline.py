"""A request's deadline: the tactic context's clock, and in the main thread a SIGALRM that
interrupts pure-Python work (never a half-done import of z3 or sympy, nor a destructor: there
it fires again a moment later)."""

from __future__ import annotations

import ctypes
import gc
import signal
import threading
import time
import weakref
from types import FrameType
from typing import Any, Self

from burnqed.embedded.decide.libraries import importing
from burnqed.embedded.tactics.interpreter import Interrupted, TacticContext

__all__ = ["Deadline"]


class Deadline:
    """Sets the request's deadline; in the main thread a SIGALRM also interrupts pure-Python work."""

    def __init__(self, ctx: TacticContext, timeout_ms: int) -> None:
        self.ctx = ctx
        self.timeout_ms = timeout_ms
        self.armed = False
        self.previous: Any = None

    def __enter__(self) -> Self:
        if self.timeout_ms > 0:
            self.ctx.deadline = time.monotonic() + self.timeout_ms / 1000
            if threading.current_thread() is threading.main_thread() and hasattr(
                signal, "setitimer"
            ):
                self.previous = signal.signal(signal.SIGALRM, _on_alarm)
                signal.setitimer(signal.ITIMER_REAL, self.timeout_ms / 1000)
                self.armed = True
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous or signal.SIG_DFL)
        # the alarm landed while z3's ctypes converted an argument: ctypes wraps the
        # Interrupted raised by the handler into an ArgumentError; it is still the timeout
        if isinstance(exc, ctypes.ArgumentError) and (
            isinstance(exc.__context__, Interrupted) or "Interrupted" in str(exc)
        ):
            raise Interrupted() from exc


# An exception raised inside a destructor, a garbage-collector callback (hypothesis installs
# one) or a weakref finalizer is swallowed: Python reports it as unraisable and the deadline
# would be lost; one raised inside a library's first import leaves the library half
# initialised. An alarm that lands in either fires again this soon after.
_RETRY_S = 0.001


def _swallowing_codes() -> set[Any]:
    codes: set[Any] = {weakref.finalize.__call__.__code__}
    for callback in gc.callbacks:
        code = getattr(callback, "__code__", None)
        if code is not None:
            codes.add(code)
    return codes


def _in_destructor(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs where a raised exception would be swallowed, not propagated."""
    codes = _swallowing_codes()
    while frame is not None:
        if frame.f_code.co_name == "__del__" or frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    if importing() or _in_destructor(frame):
        signal.setitimer(signal.ITIMER_REAL, _RETRY_S)
        return
    raise Interrupted()
