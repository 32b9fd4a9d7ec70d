"""What every actor of a run is built from: one picklable spec (configs, the policy choice) and the host task.

``ActorHost`` is the shape both actors share: Ray constructs an actor synchronously and
runs each method call as its own task on the actor's asyncio loop, so the long-lived
resources (a LeanPool, a generation service) live in one host task, started on the first
call, that holds their ``async with`` blocks open until ``stop``. A restarted actor starts
a fresh host on its next call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Generic, Protocol, Self, TypeVar

import anyio
from pydantic import BaseModel, ConfigDict, Field

from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.errors import HostStopped
from burnqed.lean.config import LeanConfig
from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig
from burnqed.search.components import PolicyChoice
from burnqed.search.config import SearchConfig

__all__ = ["ActorHost", "ClusterSpec", "RunSections"]

T = TypeVar("T")


class RunSections(Protocol):
    """The config sections a cluster run reads: what BurnqedConfig, IterationRunConfig and
    ToolsRunConfig all carry."""

    @property
    def cluster(self) -> ClusterConfig: ...
    @property
    def lean(self) -> LeanConfig: ...
    @property
    def search(self) -> SearchConfig: ...
    @property
    def policy(self) -> PolicyConfig: ...
    @property
    def paths(self) -> PathsConfig: ...


class ClusterSpec(BaseModel):
    """The configs a cluster run hands its actors (picklable, the same on every node)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cluster: ClusterConfig = Field(default_factory=ClusterConfig)
    lean: LeanConfig = Field(default_factory=LeanConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    policy_config: PolicyConfig = Field(default_factory=PolicyConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)
    policy: PolicyChoice = "model"
    model_dir: Path | None = None
    ebm: Path | None = None

    @classmethod
    def of(
        cls,
        sections: RunSections,
        *,
        policy: PolicyChoice = "model",
        model_dir: Path | None = None,
        ebm: Path | None = None,
        search: SearchConfig | None = None,
        cluster: ClusterConfig | None = None,
        lean: LeanConfig | None = None,
    ) -> Self:
        """The one way a run builds its spec: the composed configs' sections (``search``,
        ``cluster``, ``lean`` replace theirs), the policy choice, and the checkpoint paths made
        absolute (an actor on another node or in another directory must find the same files)."""
        return cls(
            cluster=cluster if cluster is not None else sections.cluster,
            lean=lean if lean is not None else sections.lean,
            search=search if search is not None else sections.search,
            policy_config=sections.policy,
            paths=sections.paths,
            policy=policy,
            model_dir=model_dir.resolve() if model_dir is not None else None,
            ebm=ebm.resolve() if ebm is not None else None,
        )

    def placement(self) -> str:
        """``actor`` (one shared policy actor) or ``each`` (every Lean actor opens the policy)."""
        chosen = self.cluster.policy_placement
        if chosen != "auto":
            return chosen
        local_model = self.policy == "model" and self.policy_config.backend == "local"
        return "actor" if local_model else "each"


class ActorHost(Generic[T]):
    """One host task holding ``open_resource()`` open; ``get()`` starts it on first use and waits for it."""

    def __init__(self, open_resource: Callable[[], AbstractAsyncContextManager[T]]) -> None:
        self._open = open_resource
        self._task: asyncio.Task[None] | None = None
        self._events: tuple[anyio.Event, anyio.Event] | None = None  # (ready, stop), made on the loop
        self._value: T | None = None
        self._error: BaseException | None = None

    async def get(self) -> T:
        """The resource, once the host task has opened it (its start-up error re-raised)."""
        if self._events is None:
            self._events = (anyio.Event(), anyio.Event())
            # Ray gives an actor no task group that outlives a call: the host is one loop task
            self._task = asyncio.get_running_loop().create_task(self._run(*self._events))
        await self._events[0].wait()
        if self._error is not None:
            raise self._error
        if self._value is None:
            raise HostStopped("the actor's resources are closed")
        return self._value

    async def _run(self, ready: anyio.Event, stop: anyio.Event) -> None:
        try:
            async with self._open() as value:
                self._value = value
                ready.set()
                await stop.wait()
        except Exception as exc:  # noqa: BLE001 - start-up failures reach every caller of get()
            self._error = exc
        finally:
            self._value = None
            ready.set()

    async def stop(self) -> None:
        """Close the resource (the host task leaves its ``async with``)."""
        if self._events is not None:
            self._events[1].set()
        if self._task is not None:
            await self._task
