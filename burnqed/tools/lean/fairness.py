"""Lean calls shared fairly between clients (tokens): max-min fair admission to the workers.

Each client's calls wait in its own queue; a server-wide budget (the pool's workers) says how
many calls run at once. When a slot frees, it goes to the waiting client with the fewest calls
running (ties: the one whose oldest call has waited longest), never to one already at its own
cap (``workers - 1``: one worker always stays for the others). While other clients are active
(a call running or queued, or one ended within ``recent_s``), a client's cap is its fair share,
``workers // active clients`` (at least one): the workers a client between two calls will need
again are not taken by a flood meanwhile, so its next call does not wait behind the flood's
running calls. So a token that floods queues behind its own calls, another token's call is
admitted at once or at the next free slot, ahead of every queued call of the flood, and two busy
tokens have half the workers each.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

__all__ = ["FairLanes"]


@dataclass
class _Waiter:
    seq: int
    granted: anyio.Event = field(default_factory=anyio.Event)


class FairLanes:
    """At most ``capacity`` calls at once, at most ``per_client`` of one client, granted max-min fair."""

    def __init__(
        self, capacity: int, per_client: int, recent_s: float = 0.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.capacity = max(1, capacity)
        self.per_client = max(1, min(per_client, self.capacity))
        self.recent_s = recent_s
        self._clock = clock
        self._running: dict[str, int] = {}
        self._waiting: dict[str, deque[_Waiter]] = {}
        self._seen: dict[str, float] = {}  # client -> when its last call was asked for or ended
        self._seq = itertools.count()

    def cap(self, client: str) -> int:
        """The calls ``client`` may run now: its fair share while others are active, else per_client."""
        now = self._clock()
        for gone in [c for c, t in self._seen.items() if now - t > self.recent_s and c not in self._running
                     and c not in self._waiting]:
            del self._seen[gone]
        others = sum(1 for c in self._seen if c != client)
        return self.per_client if not others else max(1, min(self.per_client, self.capacity // (others + 1)))

    def running(self, client: str) -> int:
        """How many calls of ``client`` hold a slot now."""
        return self._running.get(client, 0)

    def waiting(self, client: str) -> int:
        """How many calls of ``client`` wait for a slot."""
        return len(self._waiting.get(client, ()))

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        """Hold one of the slots for the block (waiting in ``client``'s queue for it)."""
        waiter = _Waiter(next(self._seq))
        self._seen[client] = self._clock()
        self._waiting.setdefault(client, deque()).append(waiter)
        self._dispatch()
        try:
            await waiter.granted.wait()
        except BaseException:
            # cancelled while queued; or granted and cancelled before it ran: the slot goes on
            if waiter.granted.is_set():
                self._release(client)
            else:
                self._forget(client, waiter)
            raise
        try:
            yield
        finally:
            self._release(client)

    def _forget(self, client: str, waiter: _Waiter) -> None:
        queue = self._waiting.get(client)
        if queue is not None:
            queue.remove(waiter)
            if not queue:
                del self._waiting[client]

    def _release(self, client: str) -> None:
        self._seen[client] = self._clock()
        left = self._running[client] - 1
        if left:
            self._running[client] = left
        else:
            del self._running[client]
        self._dispatch()

    def _dispatch(self) -> None:
        """Grant free slots: each to the waiting client with the fewest calls running."""
        while sum(self._running.values()) < self.capacity:
            eligible = [(self.running(c), q[0].seq, c) for c, q in self._waiting.items()
                        if self.running(c) < self.cap(c)]
            if not eligible:
                return
            _, _, client = min(eligible)
            queue = self._waiting[client]
            waiter = queue.popleft()
            if not queue:
                del self._waiting[client]
            self._running[client] = self.running(client) + 1
            waiter.granted.set()
