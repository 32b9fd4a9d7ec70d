"""LeanWorker against the fake REPL: start-up, one line per request, and every way a child fails."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from burnqed.lean import (
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanStartupError,
    LeanTimeout,
    LeanWorker,
)
from burnqed.lean.protocol import (
    GoalStart,
    GoalTactic,
    GoalTacticResult,
    Stat,
    StatResult,
)
from burnqed.child import resident_mb
from tests.fixtures.lean import fake_config, pid_alive

pytestmark = pytest.mark.anyio


async def _started(*flags: str, **fields: object) -> LeanWorker:
    worker = LeanWorker(fake_config(*flags, **fields))
    with anyio.fail_after(20):
        await worker.start()
    return worker


async def test_worker_starts_and_answers_one_line_per_request() -> None:
    worker = await _started()
    try:
        with anyio.fail_after(10):
            started = await worker.request(GoalStart(expr="∀ (n : Nat), n + 0 = n"))
            out = await worker.request(GoalTactic(state_id=started.state_id, tactic="intro n"))
            stat = await worker.request(Stat())
        assert isinstance(out, GoalTacticResult) and out.next_state_id == 1
        assert isinstance(stat, StatResult) and stat.n_goals == 2
        assert worker.requests == 4  # options.set + the three above
    finally:
        await worker.close()
    assert not worker.alive


async def test_child_runs_in_own_session_with_an_opt_in_address_space_limit() -> None:
    worker = await _started(address_space_limit_mb=1536, cpu_limit_s=600)
    try:
        pid = worker.pid
        assert pid is not None
        assert os.getsid(pid) == pid and os.getpgid(pid) == pid
        limits = Path(f"/proc/{pid}/limits").read_text(encoding="utf-8")
        line_as = next(line for line in limits.splitlines() if line.startswith("Max address space"))
        assert str(1536 * 1024 * 1024) in line_as
        line_cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
        assert "600" in line_cpu
    finally:
        await worker.close()
    assert not pid_alive(pid)


async def test_startup_timeout_kills_the_child() -> None:
    worker = LeanWorker(fake_config("--fake-startup-hang", startup_timeout_s=0.5))
    with anyio.fail_after(10), pytest.raises(LeanStartupError, match="ready"):
        await worker.start()
    assert worker.pid is not None and not pid_alive(worker.pid)


async def test_slow_startup_within_timeout_is_fine() -> None:
    worker = await _started("--fake-startup-delay=0.3", "--fake-noise")
    try:
        assert worker.alive
    finally:
        await worker.close()


async def test_startup_failure_reports_stderr() -> None:
    worker = LeanWorker(fake_config("--fake-startup-fail"))
    with anyio.fail_after(10), pytest.raises(LeanStartupError, match="unknown package 'Mathlib'"):
        await worker.start()


async def test_startup_io_error_line_is_a_startup_error() -> None:
    worker = LeanWorker(fake_config("--fake-startup-io-error"))
    with anyio.fail_after(10), pytest.raises(LeanStartupError, match="io"):
        await worker.start()


async def test_missing_program_is_a_startup_error() -> None:
    worker = LeanWorker(fake_config(command=["/nonexistent/repl-binary"]))
    with anyio.fail_after(10), pytest.raises(LeanStartupError, match="cannot execute"):
        await worker.start()


async def test_lean_interrupt_keeps_the_process_usable() -> None:
    # timeout option = 1.5 - 1.2 = 0.3 s: Lean answers internal/interrupt before our read time-out
    worker = await _started(read_timeout_s=1.5, repl_timeout_margin_s=1.2)
    try:
        with anyio.fail_after(10):
            start = await worker.request(GoalStart(expr="True"))
            with pytest.raises(LeanReplError) as info:
                await worker.request(GoalTactic(state_id=start.state_id, tactic="sleep 5000"))
            assert (info.value.error, info.value.desc) == ("internal", "interrupt")
            assert worker.alive
            assert (await worker.request(Stat())).n_goals == 1
    finally:
        await worker.close()


@pytest.mark.parametrize(
    ("tactic", "error", "fields"),
    [
        ("hang", LeanTimeout, {"read_timeout_s": 0.5, "repl_timeout_margin_s": 2.0}),
        ("crash", LeanProcessDied, {}),
        ("garbage", LeanProtocolError, {}),
        ("wrong_shape", LeanProtocolError, {}),
        ("big", LeanProtocolError, {"max_line_bytes": 1024 * 1024}),
    ],
)
async def test_fault_kills_the_child_and_raises_typed_error(
    tactic: str, error: type[Exception], fields: dict[str, float]
) -> None:
    worker = await _started(**fields)
    pid = worker.pid
    assert pid is not None
    try:
        with anyio.fail_after(10):
            start = await worker.request(GoalStart(expr="True"))
            with pytest.raises(error):
                await worker.request(GoalTactic(state_id=start.state_id, tactic=tactic))
            assert not worker.alive and worker.death
            assert not pid_alive(pid)
            with pytest.raises(LeanProcessDied):
                await worker.request(Stat())
    finally:
        await worker.close()


async def test_ten_megabyte_answer_line_is_read_whole() -> None:
    worker = await _started()
    try:
        with anyio.fail_after(20):
            start = await worker.request(GoalStart(expr="True"))
            out = await worker.request(GoalTactic(state_id=start.state_id, tactic="big"))
            assert out.messages is not None and len(out.messages[0].data) == 10 * 1024 * 1024
            assert (await worker.request(Stat())).n_goals == 1
    finally:
        await worker.close()


async def test_cancelled_request_kills_the_child() -> None:
    worker = await _started()
    try:
        start = await worker.request(GoalStart(expr="True"))
        with anyio.move_on_after(0.3):
            await worker.request(GoalTactic(state_id=start.state_id, tactic="hang"))
        assert not worker.alive  # the pipe was out of step: never reused
    finally:
        await worker.close()


async def test_the_memory_limit_is_resident_memory_not_address_space() -> None:
    """Issue 26: a Mathlib worker maps its .olean files (far more address space than resident
    memory); lean.memory_limit_mb limits resident memory and sets no RLIMIT_AS."""
    worker = await _started(memory_limit_mb=1536)
    try:
        assert worker.pid is not None
        limits = Path(f"/proc/{worker.pid}/limits").read_text(encoding="utf-8")
        line_as = next(line for line in limits.splitlines() if line.startswith("Max address space"))
        assert "unlimited" in line_as
        used = resident_mb(worker.pid)
        assert used is not None and 0 < used < 1536
    finally:
        await worker.close()


async def test_short_requests_read_the_childs_memory_once_per_poll_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    import burnqed.lean.worker as worker_module

    reads: list[int] = []

    def counted(pid: int) -> float | None:
        reads.append(pid)
        return resident_mb(pid)

    monkeypatch.setattr(worker_module, "resident_mb", counted)
    worker = await _started(memory_limit_mb=512, memory_poll_s=30.0)
    try:
        start = await worker.request(GoalStart(expr="1 = 1"))
        for _ in range(10):
            await worker.request(GoalTactic(state_id=start.state_id, tactic="rfl"))
        # the first request reads /proc; the next ten fall inside the same 30 s interval
        assert reads == [worker.pid]
    finally:
        await worker.close()


async def test_a_child_over_its_resident_memory_limit_is_killed_mid_request() -> None:
    worker = await _started(memory_limit_mb=150, memory_poll_s=0.05)
    try:
        start = await worker.request(GoalStart(expr="1 = 1"))
        with anyio.fail_after(20), pytest.raises(LeanProcessDied, match="lean.memory_limit_mb=150"):
            await worker.request(GoalTactic(state_id=start.state_id, tactic="alloc 400"))
        assert not worker.alive
    finally:
        await worker.close()
    small = await _started(memory_limit_mb=512, memory_poll_s=0.05)
    try:  # under the limit nothing happens
        start = await small.request(GoalStart(expr="1 = 1"))
        out = await small.request(GoalTactic(state_id=start.state_id, tactic="alloc 50"))
        assert out.next_state_id is not None and small.alive
    finally:
        await small.close()
