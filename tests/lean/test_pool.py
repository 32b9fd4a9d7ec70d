"""LeanPool on the fake REPL: concurrency, faults and healing, recycling, fair waiting."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from burnqed.lean import (
    ForeignState,
    HandleLost,
    LeanPool,
    LeanStartupError,
    PoolClosed,
    PoolExhausted,
    ProofHandle,
    TacticStatus,
)
from burnqed.lean.target import ProofTarget
from tests.fixtures.lean import fake_config, pid_alive

pytestmark = pytest.mark.anyio


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (callers bound the wait with fail_after)."""
    while not condition():
        await anyio.sleep(0.01)


async def test_200_concurrent_proofs_on_4_workers_branch_without_cross_talk() -> None:
    config = fake_config(num_workers=4, acquire_timeout_s=60.0)
    errors: list[str] = []

    async def prove(i: int) -> None:
        statement = f"∀ (x{i} : Nat), x{i} + {i} = {i} + x{i}"
        async with pool.start_proof(ProofTarget.of(statement)) as proof:
            a = await proof.run_tactic(proof.state_id, f"intro y{i}")
            b = await proof.run_tactic(proof.state_id, f"intro z{i}")  # branch from the root again
            c = await proof.run_tactic(a.next_state_id, "skip")  # type: ignore[arg-type]
            d = await proof.run_tactic(b.next_state_id, "omega")  # type: ignore[arg-type]
            e = await proof.run_tactic(c.next_state_id, "omega")  # type: ignore[arg-type]
            if a.rendered != f"y{i} : Nat\n⊢ y{i} + {i} = {i} + y{i}":
                errors.append(f"{i}: a={a.rendered!r}")
            if b.rendered != f"z{i} : Nat\n⊢ z{i} + {i} = {i} + z{i}" or c.rendered != a.rendered:
                errors.append(f"{i}: b={b.rendered!r} c={c.rendered!r}")
            if not (d.proof_complete and e.proof_complete):
                errors.append(f"{i}: not complete")
            if len(proof.states) != 6 or len({a.next_state_id, b.next_state_id, c.next_state_id}) != 3:
                errors.append(f"{i}: states {sorted(proof.states)}")

    async with LeanPool(config) as pool:
        with anyio.fail_after(120):
            async with anyio.create_task_group() as tg:
                for i in range(200):
                    tg.start_soon(prove, i)
        status = pool.status()
    assert errors == []
    assert status.restarts == 0 and status.open_handles == 0 and status.workers == 4
    assert status.requests >= 200 * 8


async def test_hung_tactic_worker_replaced_and_other_proofs_continue() -> None:
    config = fake_config(num_workers=2, read_timeout_s=1.0, repl_timeout_margin_s=2.0)
    async with LeanPool(config) as pool:
        other = await pool.open_proof(ProofTarget.of("∀ (n : Nat), n = n"))
        hung = await pool.open_proof(ProofTarget.of("True"))
        hung_pid = hung.worker_pid
        other_successes = 0

        async def keep_proving() -> None:
            nonlocal other_successes
            while not hung.lost:
                out = await other.run_tactic(other.state_id, "intro n")
                other_successes += out.ok
                await anyio.sleep(0.01)

        with anyio.fail_after(config.read_timeout_s + 2.0):
            async with anyio.create_task_group() as tg:
                tg.start_soon(keep_proving)
                out = await hung.run_tactic(hung.state_id, "hang")
            assert out.status is TacticStatus.TIMEOUT and hung.lost
            await until(lambda: pool.status().workers == 2 and pool.status().starting == 0)
        assert other_successes > 0 and (await other.run_tactic(other.state_id, "intro k")).ok
        assert hung_pid is not None and not pid_alive(hung_pid)
        with pytest.raises(HandleLost):
            await hung.run_tactic(hung.state_id, "trivial")
        await hung.close()
        await other.close()
        assert pool.status().restarts == 1
        async with pool.start_proof(ProofTarget.of("True")) as again:
            assert (await again.run_tactic(again.state_id, "trivial")).proof_complete


@pytest.mark.parametrize("tactic", ["crash", "garbage"])
async def test_dead_worker_loses_its_handle_and_pool_heals(tactic: str) -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        with anyio.fail_after(20):
            proof = await pool.open_proof(ProofTarget.of("True"))
            out = await proof.run_tactic(proof.state_id, tactic)
            assert out.status is TacticStatus.LOST and proof.lost and out.error_text
            with pytest.raises(HandleLost):
                await proof.print_root(proof.state_id)
            await proof.close()
            assert (await pool.verify_proof(ProofTarget.of("True"), ["trivial"])).ok
            assert pool.status().restarts == 1 and pool.status().workers == 1


async def test_lean_interrupt_is_a_timeout_that_keeps_the_handle() -> None:
    async with LeanPool(fake_config(num_workers=1, read_timeout_s=1.5, repl_timeout_margin_s=1.2)) as pool:
        with anyio.fail_after(20):
            async with pool.start_proof(ProofTarget.of("True")) as proof:
                out = await proof.run_tactic(proof.state_id, "sleep 5000")
                assert out.status is TacticStatus.TIMEOUT and not proof.lost
                assert (await proof.run_tactic(proof.state_id, "trivial")).proof_complete
            assert pool.status().restarts == 0


async def test_recycling_under_load_only_between_proofs() -> None:
    config = fake_config(num_workers=2, max_requests_per_worker=10)
    results: list[bool] = []

    async def prove(i: int) -> None:
        async with pool.start_proof(ProofTarget.of(f"∀ (n : Nat), n + {i} = {i} + n")) as proof:
            state = proof.state_id
            for _ in range(12):  # longer than the recycling limit: must still finish on one worker
                out = await proof.run_tactic(state, "skip")
                state = out.next_state_id  # type: ignore[assignment]
            results.append((await proof.run_tactic(state, "intro n")).ok and not proof.lost)

    async with LeanPool(config) as pool:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for i in range(12):
                    tg.start_soon(prove, i)
            await until(lambda: pool.status().starting == 0)
        status = pool.status()
    assert results == [True] * 12
    # a worker past its limit serves on while its replacement starts, so fewer restarts than proofs
    assert status.restarts >= 2 and status.workers == 2


async def test_worker_age_limit_recycles_between_proofs() -> None:
    async with LeanPool(fake_config(num_workers=1, max_worker_age_s=0.05)) as pool:
        with anyio.fail_after(20):
            first = pool.worker_pids()
            async with pool.start_proof(ProofTarget.of("True")) as proof:
                await anyio.sleep(0.1)  # let the worker grow old mid-proof
                assert (await proof.run_tactic(proof.state_id, "trivial")).ok
            # the old worker serves on until its replacement is ready, then leaves
            await until(lambda: pool.status().starting == 0 and pool.worker_pids() != first)
            assert pool.status().workers == 1 and pool.status().restarts == 1


async def test_waiting_is_fifo_and_bounded() -> None:
    async with LeanPool(fake_config(num_workers=1, acquire_timeout_s=0.3)) as pool:
        holder = await pool.open_proof(ProofTarget.of("True"))
        with anyio.fail_after(10):
            with pytest.raises(PoolExhausted):
                await pool.open_proof(ProofTarget.of("True"))
            assert pool.status().waiting == 0
        await holder.close()
        with anyio.fail_after(10):  # the timed-out waiter must not block an idle worker
            holder = await pool.open_proof(ProofTarget.of("True"))
        order: list[int] = []
        pool.config = pool.config.model_copy(update={"acquire_timeout_s": 10.0})

        async def take(i: int) -> None:
            async with pool.start_proof(ProofTarget.of("True")):
                order.append(i)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(take, i)
                    await until(lambda n=i: pool.status().waiting == n + 1)
                await holder.close()
        assert order == [0, 1, 2, 3]


async def test_idle_worker_that_died_is_replaced_on_acquire() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        with anyio.fail_after(20):
            (pid,) = pool.worker_pids()
            os.kill(pid, signal.SIGKILL)
            await until(lambda: not pid_alive(pid))
            assert (await pool.verify_proof(ProofTarget.of("True"), ["trivial"])).ok
            assert pool.worker_pids() != [pid]


@pytest.mark.parametrize(
    ("flag", "fields"),
    [("--fake-startup-fail", {}), ("--fake-startup-hang", {"startup_timeout_s": 0.5})],
)
async def test_pool_startup_failure_raises_and_leaves_no_child(flag: str, fields: dict[str, float]) -> None:
    pool = LeanPool(fake_config(flag, **fields))
    with anyio.fail_after(20), pytest.raises(LeanStartupError):
        await pool.start()
    assert pool.closed and pool.worker_pids() == []


async def test_pool_whose_replacements_cannot_start_says_exhausted(tmp_path: Path) -> None:
    marker = tmp_path / "broken"
    async with LeanPool(fake_config(f"--fake-fail-if-exists={marker}", num_workers=1, restart_attempts=2)) as pool:
        with anyio.fail_after(20):
            marker.touch()
            async with pool.start_proof(ProofTarget.of("True")) as proof:
                assert (await proof.run_tactic(proof.state_id, "crash")).status is TacticStatus.LOST
            with pytest.raises(PoolExhausted, match="no live Lean workers"):
                await pool.open_proof(ProofTarget.of("True"))
            assert pool.status().workers == 0


async def test_closed_pool_refuses_new_proofs(fake_pool: LeanPool) -> None:
    handle: ProofHandle = await fake_pool.open_proof(ProofTarget.named("Nat.add_zero"))
    assert handle.goals[0].target.pp == "∀ (n : Nat), n + 0 = n"
    await fake_pool.aclose()
    assert handle.closed
    with pytest.raises(PoolClosed):
        await fake_pool.open_proof(ProofTarget.of("True"))


async def test_release_states_deletes_only_own_non_root_states(fake_pool: LeanPool) -> None:
    with anyio.fail_after(20):
        async with fake_pool.start_proof(ProofTarget.of("∀ (n : Nat), n + 0 = n")) as proof:
            assert fake_pool.handles() == [proof]
            first = await proof.run_tactic(proof.state_id, "intro n")
            second = await proof.run_tactic(proof.state_id, "intro m")
            assert first.next_state_id is not None and second.next_state_id is not None
            await proof.release_states([first.next_state_id])
            assert proof.states == {proof.state_id, second.next_state_id}
            with pytest.raises(ForeignState):
                await proof.run_tactic(first.next_state_id, "omega")
            with pytest.raises(ForeignState):
                await proof.release_states([proof.state_id])
            assert (await proof.run_tactic(second.next_state_id, "omega")).proof_complete


async def test_a_recycled_worker_serves_on_until_its_replacement_is_ready() -> None:
    async with LeanPool(fake_config(num_workers=1, max_requests_per_worker=2)) as pool:
        with anyio.fail_after(20):
            first = pool.worker_pids()
            async with pool.start_proof(ProofTarget.of("True")) as proof:
                for _ in range(3):
                    assert (await proof.run_tactic(proof.state_id, "skip")).ok
            status = pool.status()
            # the replacement is starting, and the pool is not a worker short meanwhile
            assert status.starting == 1 and status.workers == 1 and status.idle == 1
            async with pool.start_proof(ProofTarget.of("True")) as proof:  # served at once, by the old worker or the new
                assert (await proof.run_tactic(proof.state_id, "trivial")).ok
            await until(lambda: pool.status().starting == 0 and pool.worker_pids() != first)
            assert pool.status().workers == 1
