"""A long-lived task that owns async context managers opened on demand by other tasks.

A context manager that starts a task group (the policy's generation service) must be
exited by the task that entered it, but the search server opens its policy lazily from
whichever request or job first needs it. ``ContextHost.run`` is started in the server's
task group; ``await host.open(key, factory)`` asks it to enter ``factory()`` in its own
task and returns the value (cached per key). Everything is exited, in reverse order, when
the host task ends.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskStatus

__all__ = ["ContextHost"]


@dataclass
class _Request:
    key: Any
    factory: Callable[[], AbstractAsyncContextManager[Any]]
    done: anyio.Event = field(default_factory=anyio.Event)
    value: Any = None
    error: BaseException | None = None


class ContextHost:
    """Opens context managers in one task; start ``run`` with ``task_group.start``."""

    def __init__(self) -> None:
        self._send, self._recv = anyio.create_memory_object_stream[_Request](16)
        self._values: dict[Any, Any] = {}
        self._lock = anyio.Lock()
        self._running = False

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Serve open requests until cancelled, then exit everything opened."""
        async with self._send, self._recv, AsyncExitStack() as stack:
            self._running = True
            task_status.started()
            try:
                async for request in self._recv:
                    try:
                        request.value = await stack.enter_async_context(request.factory())
                    except Exception as exc:  # noqa: BLE001 - handed to the caller, which raises it
                        request.error = exc
                    request.done.set()
            finally:
                self._running = False

    async def open(self, key: Any, factory: Callable[[], AbstractAsyncContextManager[Any]]) -> Any:
        """The value of ``factory()`` entered in the host task (entered once per key)."""
        async with self._lock:
            if key in self._values:
                return self._values[key]
            if not self._running:
                raise RuntimeError("the context host is not running")
            request = _Request(key, factory)
            await self._send.send(request)
            await request.done.wait()
            if request.error is not None:
                raise request.error
            self._values[key] = request.value
            return request.value
