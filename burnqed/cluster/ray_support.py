"""Ray, imported lazily: the one place that imports it, starts or joins it, and classifies its errors.

The default install has no Ray; every cluster path calls ``import_ray()`` first, which
raises ``RayMissing`` with the one line that names the extra.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from types import ModuleType
from typing import Any

from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.errors import ClusterStartError, RayMissing

__all__ = [
    "RAY_EXTRA_HINT",
    "RaySession",
    "actor_options",
    "campaign_cpus",
    "import_ray",
    "init_ray",
    "is_actor_failure",
    "task_error_cause",
    "unwrapped",
]

RAY_EXTRA_HINT = "cluster mode needs Ray: pip install 'burnqed[cluster]'"
# Ray's own settings for our processes: no log de-duplication (actors' lines stay whole)
_RAY_ENV = {"RAY_DEDUP_LOGS": "0"}


def import_ray() -> ModuleType:
    """The ``ray`` module, or RayMissing naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise RayMissing(RAY_EXTRA_HINT) from exc
    return ray


def init_ray(config: ClusterConfig, *, cpus_needed: float) -> bool:
    """Start (``local``) or join (``auto``, ``ray://``) Ray unless it is up; True when this call started it."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    for key, value in _RAY_ENV.items():
        os.environ.setdefault(key, value)
    kwargs: dict[str, Any] = {"namespace": config.namespace, "log_to_driver": False}
    if config.address == "local":
        cpus = config.local_cpus or max(os.cpu_count() or 1, int(cpus_needed + 0.999))
        kwargs.update(num_cpus=cpus, include_dashboard=False)
    else:
        kwargs["address"] = config.address
    try:
        ray.init(**kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ClusterStartError(f"cannot start or join Ray at {config.address!r}: {exc}") from exc
    return True


def campaign_cpus(config: ClusterConfig, *, policy_actor: bool = True) -> float:
    """Ray CPUs one campaign's actors reserve: its Lean actors and (when placed) the policy actor."""
    return config.lean_actors * config.lean_actor_cpus + (config.policy_actor_cpus if policy_actor else 0.0)


class RaySession:
    """Ray for a process that runs several campaigns one after another (the iteration's steps) or at
    once (the search server's jobs): started or joined once by ``start``, shut down by ``close`` only
    when this session started it, so one campaign ending never stops Ray under another."""

    def __init__(self, config: ClusterConfig, *, campaigns: int = 1) -> None:
        self.config = config
        self.campaigns = campaigns
        self.started = False

    def start(self) -> None:
        """Start (``local``) or join Ray unless it is up; ClusterStartError / RayMissing otherwise."""
        needed = self.campaigns * campaign_cpus(self.config)
        self.started = init_ray(self.config, cpus_needed=needed) or self.started

    def close(self) -> None:
        """Shut Ray down if ``start`` started it."""
        if self.started:
            import_ray().shutdown()
            self.started = False

    def __enter__(self) -> RaySession:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def actor_options(cpus: float, gpus: float, resources: dict[str, float], max_restarts: int) -> dict[str, Any]:
    """``.options(...)`` of an actor: its resources; restarted by Ray, in-flight calls not retried (we re-queue)."""
    options: dict[str, Any] = {
        "num_cpus": cpus,
        "max_restarts": max_restarts,
        "max_task_retries": 0,
        "max_concurrency": 1000,
    }
    if gpus:
        options["num_gpus"] = gpus
    if resources:
        options["resources"] = dict(resources)
    return options


def is_actor_failure(exc: BaseException) -> bool:
    """The actor (or its node, or its process) died or is unreachable: the call's work is lost, the actor
    may come back. An exception raised inside the method (RayTaskError) or one that failed to cross
    the process boundary is not one."""
    errors = import_ray().exceptions
    lost = (
        errors.RayActorError,
        errors.WorkerCrashedError,
        errors.NodeDiedError,
        errors.LocalRayletDiedError,
        errors.ObjectLostError,
        errors.OutOfMemoryError,
    )
    return isinstance(exc, lost)


def task_error_cause(exc: BaseException) -> BaseException:
    """The exception raised inside an actor's method (RayTaskError unwrapped), else ``exc`` itself."""
    ray = import_ray()
    if isinstance(exc, ray.exceptions.RayTaskError):
        cause = getattr(exc, "cause", None)
        if isinstance(cause, BaseException):
            return cause
    return exc


async def unwrapped(call: Awaitable[Any]) -> Any:
    """Await a remote call; an exception raised inside the actor is raised here as itself."""
    try:
        return await call
    except Exception as exc:
        cause = task_error_cause(exc)
        if cause is not exc:
            raise cause from None
        raise
