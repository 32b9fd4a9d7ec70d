"""Worker groups by import set: one pool serves theorems whose headers import different modules.

Lean's imports are fixed per process (PANTOGRAPH.md), so a theorem whose header imports
modules beyond the pool's ``lean.imports`` needs workers started with those imports. Like
Kimina's Lean server, the pool keeps a bounded set of such groups, each a full pool of its
own started on first use; when a new import set arrives and ``lean.max_import_groups`` are
up, the least recently used group with nothing open is shut down to make room.

Each group lives in a task of the owning pool's task group (anyio task groups must be
entered and left by the same task), and is stopped by an event.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Generic, Protocol, TypeVar

import anyio
from anyio.abc import TaskGroup

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import LeanError, PoolClosed, PoolExhausted
from burnqed.lean.results import PoolStatus

__all__ = ["GroupPool", "ImportGroups", "imports_key"]

log = logging.getLogger(__name__)


class GroupPool(Protocol):
    """What a group must be: a pool that can be entered, reports status and lists its pids."""

    def status(self) -> PoolStatus:
        """A snapshot of the group's workers."""
        ...

    def worker_pids(self) -> list[int]:
        """The group's live worker pids."""
        ...


P = TypeVar("P", bound=GroupPool)


def imports_key(imports: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The group key of an import list: sorted, without repeats."""
    return tuple(sorted(set(imports)))


class _Group(Generic[P]):
    def __init__(self) -> None:
        self.pool: P | None = None
        self.ready = anyio.Event()
        self.stop = anyio.Event()
        self.done = anyio.Event()
        self.error: BaseException | None = None


class ImportGroups(Generic[P]):
    """Pools for import sets other than the owner's, least recently used first out."""

    def __init__(self, config: LeanConfig, factory: Callable[[LeanConfig], AbstractAsyncContextManager[P]]) -> None:
        self.config = config
        self._factory = factory
        self._groups: OrderedDict[tuple[str, ...], _Group[P]] = OrderedDict()
        self._tg: TaskGroup | None = None
        self._lock = anyio.Lock()
        self.evictions = 0

    def bind(self, task_group: TaskGroup) -> None:
        """Run the groups in ``task_group`` (the owning pool's)."""
        self._tg = task_group

    def pools(self) -> list[P]:
        """The groups that are up."""
        return [g.pool for g in self._groups.values() if g.pool is not None]

    def keys(self) -> list[tuple[str, ...]]:
        """Import sets with a group, least recently used first."""
        return list(self._groups)

    async def get(self, imports: tuple[str, ...]) -> P:
        """The group for ``imports`` (any order; started in this one), started and another evicted if need be."""
        launch, imports = imports, imports_key(imports)
        async with self._lock:
            group = self._groups.get(imports)
            if group is not None:
                self._groups.move_to_end(imports)
            else:
                if self._tg is None:
                    raise PoolClosed("the Lean pool is not running")
                while len(self._groups) >= self.config.max_import_groups:
                    await self._evict_one(imports)
                group: _Group[P] = _Group()
                self._groups[imports] = group
                self._tg.start_soon(self._run, launch, group)
        await group.ready.wait()
        if group.pool is None:
            self._groups.pop(imports, None)
            error = group.error
            if isinstance(error, LeanError):
                raise error
            raise PoolClosed(f"the worker group for imports {list(imports)} stopped: {error}")
        return group.pool

    async def _evict_one(self, wanted: tuple[str, ...]) -> None:
        for key, group in self._groups.items():
            status = group.pool.status() if group.pool is not None else None
            if status is not None and status.open_handles == 0 and status.waiting == 0 and status.busy == 0:
                log.info("shutting down the worker group for imports %s to make room for %s", list(key), list(wanted))
                del self._groups[key]
                group.stop.set()
                await group.done.wait()
                self.evictions += 1
                return
        raise PoolExhausted(
            f"all {self.config.max_import_groups} import groups are in use (lean.max_import_groups); "
            f"no group free for imports {list(wanted)}"
        )

    async def _run(self, imports: tuple[str, ...], group: _Group[P]) -> None:  # imports in launch order
        config = self.config.model_copy(update={"imports": list(imports)})
        try:
            async with self._factory(config) as pool:
                group.pool = pool
                group.ready.set()
                log.info("worker group for imports %s is up (%d workers)", list(imports), config.num_workers)
                await group.stop.wait()
        except Exception as exc:  # a group that cannot start fails its callers, never the owner
            group.error = exc
            log.warning("worker group for imports %s failed: %s", list(imports), exc)
        finally:
            group.pool = None
            group.ready.set()
            group.done.set()

    async def aclose(self) -> None:
        """Stop every group and wait for them."""
        groups = list(self._groups.values())
        self._groups.clear()
        for group in groups:
            group.stop.set()
        with anyio.CancelScope(shield=True):
            for group in groups:
                if group.ready.is_set() or group.pool is not None:
                    await group.done.wait()
