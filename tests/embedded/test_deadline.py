"""The request deadline's SIGALRM is never lost inside a destructor (z3's AstRef.__del__)."""

from __future__ import annotations

import itertools
import time

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
