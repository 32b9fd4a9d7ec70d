"""Ray kept up for a process that runs several cluster runs (the iteration's steps, the search
server's jobs): started or joined once, shut down only by whoever started it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from burnqed.cluster.config import ClusterConfig

if TYPE_CHECKING:
    from burnqed.cluster.ray_support import RaySession

__all__ = ["RayAccess", "ray_session"]


class RayAccess:
    """Ray for several campaigns: ``start`` (idempotent) starts or joins it, ``close`` shuts it
    down if ``start`` started it. RayMissing / ClusterStartError when it cannot be had."""

    def __init__(self, config: ClusterConfig, *, campaigns: int = 1) -> None:
        self.config = config
        self.campaigns = campaigns
        self._session: RaySession | None = None
        self._lock = anyio.Lock()

    async def start(self) -> None:
        """Ray up (once; later calls find it up)."""
        from burnqed.cluster.ray_support import RaySession, import_ray

        import_ray()
        async with self._lock:
            if self._session is None:
                session = RaySession(self.config, campaigns=self.campaigns)
                # a thread: starting Ray takes seconds, and Ray leaves the main thread's signal handlers alone
                await anyio.to_thread.run_sync(session.start)
                self._session = session

    def close(self) -> None:
        """Shut Ray down if ``start`` started it (after the campaigns have stopped)."""
        if self._session is not None:
            self._session.close()
            self._session = None


@asynccontextmanager
async def ray_session(config: ClusterConfig, *, enabled: bool = True) -> AsyncIterator[None]:
    """Ray up for the body when ``enabled`` (started here, or joined; shut down only if started here)."""
    if not enabled:
        yield
        return
    access = RayAccess(config)
    await access.start()
    try:
        yield
    finally:
        access.close()
