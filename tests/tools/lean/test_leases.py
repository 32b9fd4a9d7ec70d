"""Leases: idle expiry closes handles, in-use leases never expire, a cap on live leases."""

from __future__ import annotations

import anyio
import pytest

from burnqed.tools.common.errors import LeaseExpired, TooManyLeases, UnknownLease
from burnqed.tools.lean.leases import HandleRegistry


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Handle:
    def __init__(self) -> None:
        self.closed = 0
        self.closed_event = anyio.Event()

    async def close(self) -> None:
        self.closed += 1
        self.closed_event.set()


class BrokenHandle:
    def close(self) -> None:
        raise RuntimeError("worker already dead")


@pytest.mark.anyio
async def test_idle_lease_expires_and_its_handle_is_closed() -> None:
    clock = FakeClock()
    reg: HandleRegistry[Handle] = HandleRegistry(10.0, 4, clock=clock)
    h = Handle()
    lease = reg.add(h)
    clock.now = 9.9
    assert await reg.sweep() == []
    clock.now = 20.0
    assert await reg.sweep() == [lease.lease_id]
    assert h.closed == 1 and len(reg) == 0
    with pytest.raises(LeaseExpired):
        reg.get(lease.lease_id)


@pytest.mark.anyio
async def test_use_renews_and_a_lease_in_use_never_expires() -> None:
    clock = FakeClock()
    reg: HandleRegistry[Handle] = HandleRegistry(10.0, 4, clock=clock)
    lease = reg.add(Handle())
    async with reg.use(lease.lease_id):
        clock.now = 100.0
        assert await reg.sweep() == []
    clock.now = 105.0  # renewed at 100 when the use ended
    assert await reg.sweep() == []
    clock.now = 110.0
    assert await reg.sweep() == [lease.lease_id]


@pytest.mark.anyio
async def test_cap_on_live_leases_and_release_frees_a_slot() -> None:
    reg: HandleRegistry[Handle] = HandleRegistry(10.0, 2)
    a, b = reg.add(Handle()), reg.add(Handle())
    with pytest.raises(TooManyLeases):
        reg.add(Handle())
    await reg.release(a.lease_id)
    reg.add(Handle())
    with pytest.raises(UnknownLease):
        await reg.release(a.lease_id)
    assert a.lease_id not in reg.lease_ids() and b.lease_id in reg.lease_ids()


@pytest.mark.anyio
async def test_unknown_id_and_close_all() -> None:
    reg: HandleRegistry[Handle] = HandleRegistry(10.0, 4)
    with pytest.raises(UnknownLease):
        reg.get("h-nope")
    handles = [Handle() for _ in range(3)]
    for h in handles:
        reg.add(h)
    await reg.close_all()
    assert [h.closed for h in handles] == [1, 1, 1]
    with pytest.raises(UnknownLease):
        reg.add(Handle())


@pytest.mark.anyio
async def test_a_handle_that_fails_to_close_is_still_released() -> None:
    reg: HandleRegistry[BrokenHandle] = HandleRegistry(10.0, 1)
    lease = reg.add(BrokenHandle())
    await reg.release(lease.lease_id)
    assert len(reg) == 0


@pytest.mark.anyio
async def test_sweeper_task_expires_leases_in_the_background() -> None:
    reg: HandleRegistry[Handle] = HandleRegistry(0.01, 4)
    h = Handle()
    reg.add(h)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(reg.run_sweeper, 0.01)
            await h.closed_event.wait()
            tg.cancel_scope.cancel()
    assert len(reg) == 0
