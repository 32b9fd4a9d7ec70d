"""ContextHost enters and exits context managers in its own task; latest_checkpoint picks iter_N."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from burnqed.tools.search.host import ContextHost
from burnqed.tools.search.tools import latest_checkpoint

pytestmark = pytest.mark.anyio


async def test_values_are_opened_once_per_key_and_closed_in_the_host_task() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def resource(name: str) -> AsyncIterator[str]:
        # a task group inside: must be entered and exited by the same task
        async with anyio.create_task_group():
            events.append(f"open {name}")
            try:
                yield name.upper()
            finally:
                events.append(f"close {name}")

    host = ContextHost()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            await tg.start(host.run)

            async def user() -> None:
                assert await host.open("a", lambda: resource("a")) == "A"

            async with anyio.create_task_group() as users:
                users.start_soon(user)
                users.start_soon(user)
            assert await host.open("b", lambda: resource("b")) == "B"
            tg.cancel_scope.cancel()
    assert events == ["open a", "open b", "close b", "close a"]


async def test_a_failing_factory_raises_in_the_caller() -> None:
    @asynccontextmanager
    async def broken() -> AsyncIterator[None]:
        raise OSError("no model here")
        yield

    host = ContextHost()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            await tg.start(host.run)
            with pytest.raises(OSError, match="no model"):
                await host.open("x", broken)
            tg.cancel_scope.cancel()


def test_latest_checkpoint(tmp_path: Path) -> None:
    assert latest_checkpoint(tmp_path / "missing") is None
    for name in ("iter_2", "iter_10", "iter_9", "notes"):
        (tmp_path / name).mkdir()
    assert latest_checkpoint(tmp_path) == tmp_path / "iter_10"
