"""Leases on proof handles: the MCP client holds a lease id, the server holds the handle.

A client may vanish at any moment (a crashed agent, a closed editor), so a handle is
never owned by the client: it is leased. Every use renews the lease; a lease idle past
ToolsConfig.handle_idle_timeout_s is expired by the sweeper, which closes the handle so
its worker goes back to the pool. A lease in use (a tactic running) never expires under
the caller. The number of live leases is capped, in all and per client (over HTTP a client
is a bearer token); when the server-wide cap is reached, the least recently used idle lease
is evicted to make room, so clients that left handles behind cannot lock out the next one.
A lease belongs to the client that opened it: only that client (or an operator) uses or
closes it. Expired ids are remembered for a while so that a late caller is told "expired"
rather than "unknown".
"""

from __future__ import annotations

import inspect
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import anyio

from burnqed.tools.common.errors import LeaseExpired, Refused, TooManyLeases, UnknownLease

__all__ = ["ClosableHandle", "HandleRegistry", "Lease"]

log = logging.getLogger(__name__)

_CLOSE_TIMEOUT_S = 10.0


class ClosableHandle(Protocol):
    """Anything with a ``close()`` (sync or async) that releases its resources."""

    def close(self) -> Any:
        """Release the handle's resources."""
        ...


H = TypeVar("H", bound=ClosableHandle)


@dataclass
class Lease(Generic[H]):
    """One live lease: the handle, its bookkeeping and free-form info for the tools."""

    lease_id: str
    handle: H
    created: float
    last_used: float
    in_use: int = 0
    client: str | None = None  # who opened it (an HTTP token's name, or "stdio"): caps and ownership
    info: dict[str, Any] = field(default_factory=dict)
    ended: str | None = None  # why the lease ended (set when its handle starts closing)


class HandleRegistry(Generic[H]):
    """Live leases by id, with idle expiry and a cap on their number."""

    def __init__(
        self,
        idle_timeout_s: float,
        max_live: int,
        expired_memory: int = 1024,
        clock: Callable[[], float] = time.monotonic,
        prefix: str = "h-",
        max_per_client: int | None = None,
        operators: frozenset[str] = frozenset(),
    ) -> None:
        self.idle_timeout_s = idle_timeout_s
        self.max_live = max_live
        self.max_per_client = max_per_client
        self.operators = operators
        self.evicted_total = 0
        self._expired_memory = expired_memory
        self._clock = clock
        self._prefix = prefix
        self._leases: dict[str, Lease[H]] = {}
        self._expired: OrderedDict[str, str] = OrderedDict()  # id -> reason it ended
        self._closed = False
        self.expired_total = 0

    # ------------------------------------------------------------------ queries

    def __len__(self) -> int:
        return len(self._leases)

    def lease_ids(self) -> list[str]:
        """Ids of the live leases (including any whose handle is being closed)."""
        return list(self._leases)

    def _lookup(self, lease_id: str) -> Lease[H]:
        lease = self._leases.get(lease_id)
        if lease is not None and lease.ended is None:
            return lease
        reason = lease.ended if lease is not None else self._expired.get(lease_id)
        if reason == "expired":
            raise LeaseExpired(f"proof handle {lease_id} expired after {self.idle_timeout_s:g} s idle and was closed")
        if reason is not None:
            raise UnknownLease(f"proof handle {lease_id} is {reason}")
        raise UnknownLease(f"unknown proof handle {lease_id!r}")

    def _check_owner(self, lease: Lease[H], client: str | None) -> None:
        if client is None or lease.client is None or lease.client == client or client in self.operators:
            return
        raise Refused("ownership", f"proof handle {lease.lease_id} belongs to another client")

    def get(self, lease_id: str, client: str | None = None) -> Lease[H]:
        """The live lease of ``client`` (renewed), else UnknownLease / LeaseExpired / Refused."""
        lease = self._lookup(lease_id)
        self._check_owner(lease, client)
        lease.last_used = self._clock()
        return lease

    # ------------------------------------------------------------------ lifecycle

    async def make_room(self) -> str | None:
        """At the server-wide cap, evict the least recently used idle lease; returns its id (None: none evicted)."""
        if len(self._leases) < self.max_live:
            return None
        idle = [lease for lease in self._leases.values() if lease.in_use == 0 and lease.ended is None]
        if not idle:
            return None
        oldest = min(idle, key=lambda lease: lease.last_used)
        log.info("proof handle %s evicted: the handle pool is full", oldest.lease_id)
        await self._end(oldest, "evicted (the handle pool was full and it was the least recently used)")
        self.evicted_total += 1
        return oldest.lease_id

    def check_capacity(self, client: str | None = None, *, total: bool = True) -> None:
        """Raise TooManyLeases if no new lease can be added now (for ``client``, if given; with
        ``total=False`` only the client's own cap is checked)."""
        if self._closed:
            raise UnknownLease("the handle registry is closed")
        if client is not None and self.max_per_client is not None:
            held = sum(1 for lease in self._leases.values() if lease.client == client)
            if held >= self.max_per_client:
                raise TooManyLeases(
                    f"this client holds {held} proof handles (the cap per client is {self.max_per_client}); "
                    "close one with close_proof"
                )
        if total and len(self._leases) >= self.max_live:
            raise TooManyLeases(
                f"{len(self._leases)} proof handles are open (the cap is {self.max_live}); close one with close_proof"
            )

    def add(self, handle: H, client: str | None = None, **info: Any) -> Lease[H]:
        """Lease ``handle`` to ``client``; raises TooManyLeases at a cap (the caller still owns the handle then)."""
        self.check_capacity(client)
        now = self._clock()
        lease_id = self._prefix + secrets.token_hex(6)
        lease = Lease(lease_id=lease_id, handle=handle, created=now, last_used=now, client=client, info=dict(info))
        self._leases[lease_id] = lease
        return lease

    @asynccontextmanager
    async def use(self, lease_id: str, client: str | None = None) -> AsyncIterator[Lease[H]]:
        """Hold ``client``'s lease for one operation: it cannot expire meanwhile, and is renewed after."""
        lease = self.get(lease_id, client)
        lease.in_use += 1
        try:
            yield lease
        finally:
            lease.in_use -= 1
            lease.last_used = self._clock()

    async def release(self, lease_id: str, reason: str = "closed", client: str | None = None) -> Lease[H]:
        """End ``client``'s lease and close its handle; raises UnknownLease / LeaseExpired if not live."""
        lease = self._lookup(lease_id)
        self._check_owner(lease, client)
        await self._end(lease, reason)
        return lease

    async def discard(self, lease_id: str, reason: str) -> None:
        """End the lease if it is live (no error if it is not)."""
        lease = self._leases.get(lease_id)
        if lease is not None:
            await self._end(lease, reason)

    async def _end(self, lease: Lease[H], reason: str) -> None:
        if lease.ended is not None or lease.lease_id not in self._leases:
            return
        lease.ended = reason
        try:
            # the lease stays counted until its handle is closed and the worker is back
            await _close_quietly(lease.handle)
        finally:
            self._leases.pop(lease.lease_id, None)
            self._expired[lease.lease_id] = reason
            while len(self._expired) > self._expired_memory:
                self._expired.popitem(last=False)

    async def sweep(self) -> list[str]:
        """Expire and close every lease idle past the timeout and not in use; returns their ids."""
        now = self._clock()
        stale = [
            lease
            for lease in self._leases.values()
            if lease.in_use == 0 and lease.ended is None and now - lease.last_used >= self.idle_timeout_s
        ]
        for lease in stale:
            log.info("proof handle %s expired after %.1f s idle", lease.lease_id, now - lease.last_used)
            await self._end(lease, "expired")
        self.expired_total += len(stale)
        # a handle that can hand back a worker between calls (DetachedProof) does so when idle
        for lease in list(self._leases.values()):
            release = getattr(lease.handle, "release_if_idle", None)
            if lease.in_use == 0 and lease.ended is None and release is not None:
                await release()
        return [lease.lease_id for lease in stale]

    async def run_sweeper(self, interval_s: float) -> None:
        """Sweep every ``interval_s`` seconds until cancelled (run it in the server's task group)."""
        while True:
            await anyio.sleep(interval_s)
            await self.sweep()

    async def close_all(self) -> None:
        """Close every live lease and refuse new ones."""
        self._closed = True
        for lease in list(self._leases.values()):
            await self._end(lease, "closed (server shut down)")


async def _close_quietly(handle: ClosableHandle) -> None:
    """Close a handle, shielded from cancellation; a failure is logged, not raised."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_TIMEOUT_S):
        try:
            result = handle.close()
            if inspect.isawaitable(result):
                await result
        except Exception:  # a worker that already died cannot release its states; the pool replaces it
            log.warning("closing a proof handle failed", exc_info=True)
