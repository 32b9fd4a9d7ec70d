"""Issue 41: one token flooding must not raise another token's latency: Lean calls are granted
max-min fair between clients (burnqed/tools/lean/fairness.py), not first come, first served."""

from __future__ import annotations

import anyio
import pytest

from burnqed.tools.lean.fairness import FairLanes

pytestmark = pytest.mark.anyio


async def _settle() -> None:
    for _ in range(20):
        await anyio.sleep(0)


async def test_a_flooding_client_queues_behind_itself_and_the_other_is_served_at_the_next_free_slot() -> None:
    lanes = FairLanes(capacity=4, per_client=3)
    order: list[str] = []
    release = {name: anyio.Event() for name in [f"h{i}" for i in range(32)] + ["g0", "g1"]}

    async def call(client: str, name: str) -> None:
        async with lanes.slot(client):
            order.append(name)
            await release[name].wait()

    async with anyio.create_task_group() as tg:
        for i in range(32):  # the flood: 32 calls in flight at once
            tg.start_soon(call, "hostile", f"h{i}")
        await _settle()
        assert (lanes.running("hostile"), lanes.waiting("hostile")) == (3, 29)  # one worker stays for others
        tg.start_soon(call, "good", "g0")
        await _settle()
        assert order[-1] == "g0"  # the free worker, at once
        tg.start_soon(call, "good", "g1")
        await _settle()
        assert lanes.waiting("good") == 1
        release["h0"].set()
        await _settle()
        # the freed worker goes to the good token, ahead of the 29 queued flood calls
        assert order[-1] == "g1" and (lanes.running("good"), lanes.running("hostile")) == (2, 2)
        release["h1"].set()
        await _settle()
        assert (lanes.running("good"), lanes.running("hostile")) == (2, 2)  # back to the flood: 2 and 2
        for event in release.values():
            event.set()
    assert len(order) == 34 and lanes.running("hostile") == lanes.running("good") == 0


async def test_a_cancelled_call_gives_its_place_or_its_slot_back() -> None:
    lanes = FairLanes(capacity=1, per_client=1)
    hold = anyio.Event()
    got: list[str] = []

    async def call(client: str) -> None:
        async with lanes.slot(client):
            got.append(client)
            await hold.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, "a")
        await _settle()
        with anyio.CancelScope() as scope:
            scope.cancel()
            with pytest.raises(anyio.get_cancelled_exc_class()):
                await call("b")  # cancelled while queued: leaves the queue
        assert lanes.waiting("b") == 0
        tg.start_soon(call, "c")
        await _settle()
        hold.set()
    assert got == ["a", "c"] and lanes.running("c") == 0


async def test_a_client_between_two_calls_keeps_its_share_for_a_moment() -> None:
    """The good token's loop has gaps between calls: a flood meanwhile takes only its fair share,
    so the next good call finds a worker free instead of waiting behind the flood's running calls."""
    now = [0.0]
    lanes = FairLanes(capacity=4, per_client=3, recent_s=2.0, clock=lambda: now[0])
    done = anyio.Event()

    async def flood_call() -> None:
        async with lanes.slot("hostile"):
            await done.wait()

    async with lanes.slot("good"):
        pass  # one call of the good token, ended at t=0
    now[0] = 0.5
    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(flood_call)
        await _settle()
        assert lanes.running("hostile") == 2 and lanes.cap("hostile") == 2  # half: the good token was just here
        async with lanes.slot("good"):  # at once: a worker was kept free
            assert lanes.running("good") == 1
        now[0] = 3.0  # the good token went quiet: the flood may take num_workers - 1 again
        tg.start_soon(flood_call)  # its next call asks again
        await _settle()
        assert lanes.running("hostile") == 3 and lanes.cap("hostile") == 3
        done.set()
