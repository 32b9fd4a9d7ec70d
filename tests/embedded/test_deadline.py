"""The request deadline's SIGALRM is never lost where Python swallows exceptions (destructors, gc callbacks, finalizers)."""

from __future__ import annotations

import gc
import itertools
import time
import weakref

import pytest

from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.repl.deadline import Deadline
from burnqed.embedded.tactics.interpreter import Interrupted, TacticContext


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class _SlowToDie:
    """Spends its time in ``__del__``, as z3's objects do when many are collected at once."""

    def __del__(self) -> None:
        _spin(0.004)


def test_an_alarm_that_lands_in_a_destructor_still_interrupts_the_request() -> None:
    ctx = TacticContext(fresh=itertools.count().__next__, config=EmbeddedConfig())
    # Most of the loop's time is in __del__, where a raised Interrupted would be swallowed
    # (reported as unraisable) and the request would run on past its deadline.
    with pytest.raises(Interrupted), Deadline(ctx, 20):
        for _ in range(500):  # about 3 s without an interrupt
            obj = _SlowToDie()
            del obj
            _spin(0.002)


def test_an_alarm_that_lands_in_a_gc_callback_still_interrupts_the_request() -> None:
    # hypothesis times the collector with a gc callback; an exception raised in one is
    # swallowed like a destructor's (CI once lost a deadline there and failed a test)
    def slow_callback(phase: str, info: dict[str, int]) -> None:
        _spin(0.01)

    ctx = TacticContext(fresh=itertools.count().__next__, config=EmbeddedConfig())
    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(Interrupted), Deadline(ctx, 20):
            for _ in range(300):  # about 3 s without an interrupt
                gc.collect(0)
                _spin(0.0005)
    finally:
        gc.callbacks.remove(slow_callback)


def test_an_alarm_that_lands_in_a_weakref_finalizer_still_interrupts_the_request() -> None:
    ctx = TacticContext(fresh=itertools.count().__next__, config=EmbeddedConfig())
    with pytest.raises(Interrupted), Deadline(ctx, 20):
        for _ in range(300):
            obj = _Target()
            weakref.finalize(obj, _spin, 0.01)
            del obj
            _spin(0.0005)


class _Target:
    """A plain object a finalizer can watch."""
