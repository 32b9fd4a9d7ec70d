"""The request deadline's SIGALRM is never lost where Python swallows exceptions (destructors, gc
callbacks, finalizers) and never lands inside a library's first import."""

from __future__ import annotations

import gc
import itertools
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.decide import libraries
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


def test_an_alarm_that_lands_in_a_librarys_first_import_waits_for_the_import_to_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sympy and z3 load on first use, inside a request's deadline; an Interrupted raised
    # half-way through the import would leave the library half initialised for good
    (tmp_path / "slow_library_for_deadline.py").write_text(
        "import time\n_end = time.perf_counter() + 0.3\n"
        "while time.perf_counter() < _end:\n    pass\nWHOLE = True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    ctx = TacticContext(fresh=itertools.count().__next__, config=EmbeddedConfig())
    with pytest.raises(Interrupted), Deadline(ctx, 20):
        libraries.load("slow_library_for_deadline")
        _spin(3.0)  # the request goes on after the import; the alarm still ends it
    assert sys.modules["slow_library_for_deadline"].WHOLE
    del sys.modules["slow_library_for_deadline"]


def test_a_checker_that_never_runs_ring_never_imports_sympy() -> None:
    # sympy costs about a second of import; most of a search's workers never need it
    script = (
        "import sys\n"
        "from burnqed.embedded import Checker\n"
        "from burnqed.lean.protocol import GoalStart, GoalTactic, OptionsSet\n"
        "c = Checker()\n"
        "c.run(OptionsSet(timeout=20000))\n"
        "s = c.run(GoalStart(expr='∀ (n : Nat), n + 1 > n'))\n"
        "a = c.run(GoalTactic(state_id=s.state_id, tactic='intro n'))\n"
        "b = c.run(GoalTactic(state_id=a.next_state_id, tactic='omega'))\n"
        "assert b.goals == [], b\n"
        "print('sympy' in sys.modules)\n"
        "s = c.run(GoalStart(expr='∀ (a b : Nat), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2'))\n"
        "a = c.run(GoalTactic(state_id=s.state_id, tactic='intro a b'))\n"
        "b = c.run(GoalTactic(state_id=a.next_state_id, tactic='ring'))\n"
        "assert b.goals == [], b\n"
        "print('sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "True"], out.stderr
