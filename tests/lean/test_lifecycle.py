"""No Lean child outlives its pool: after shutdown, after an exception, after SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import anyio
import pytest

from burnqed.lean import LeanPool
from burnqed.lean.target import ProofTarget
from tests.fixtures.lean import FAKE_REPL, fake_config, pid_alive

pytestmark = pytest.mark.anyio


async def _all_dead(pids: list[int]) -> None:
    while any(pid_alive(p) for p in pids):
        await anyio.sleep(0.02)


async def test_no_child_left_after_shutdown() -> None:
    async with LeanPool(fake_config(num_workers=3)) as pool:
        pids = pool.worker_pids()
        async with pool.start_proof(ProofTarget.of("True")) as proof:
            await proof.run_tactic(proof.state_id, "trivial")
    assert len(pids) == 3 and not any(pid_alive(p) for p in pids)


async def test_no_child_left_after_an_exception_with_open_handles() -> None:
    pids: list[int] = []
    with pytest.raises(RuntimeError, match="boom"):
        async with LeanPool(fake_config(num_workers=2)) as pool:
            pids = pool.worker_pids()
            await pool.open_proof(ProofTarget.of("True"))  # never closed by the caller
            raise RuntimeError("boom")
    assert pids and not any(pid_alive(p) for p in pids)


async def test_no_child_left_after_cancellation_mid_tactic() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        pids = pool.worker_pids()
        with anyio.move_on_after(0.3):
            async with pool.start_proof(ProofTarget.of("True")) as proof:
                await proof.run_tactic(proof.state_id, "hang")
        assert proof.closed and not pid_alive(pids[0])
    assert not any(pid_alive(p) for p in pids)


_RUNNER = textwrap.dedent(
    """
    import json, sys, anyio
    from burnqed.lean import LeanConfig, LeanPool

    async def main():
        config = LeanConfig(backend="command", command=[sys.executable, "-S", {fake!r}], num_workers=2)
        async with LeanPool(config) as pool:
            print(json.dumps(pool.worker_pids()), flush=True)
            await anyio.sleep_forever()

    anyio.run(main)
    """
)


async def test_no_child_left_after_sigterm_of_the_process_running_the_pool() -> None:
    code = _RUNNER.format(fake=str(FAKE_REPL))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        with anyio.fail_after(30):
            line = await anyio.to_thread.run_sync(proc.stdout.readline)  # type: ignore[union-attr]
        pids = json.loads(line)
        assert len(pids) == 2 and all(pid_alive(p) for p in pids)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) != 0
        with anyio.fail_after(10):
            await _all_dead(pids)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
