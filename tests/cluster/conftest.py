"""Ray for the cluster tests: a local instance per module, or a cluster of raylets on this machine.

Every test here skips cleanly when Ray (the ``cluster`` extra) is not installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

# logical CPUs of the local Ray: scheduling tokens, not cores (CI has 2)
LOCAL_CPUS = 8
# a dead raylet is noticed within about half a second
FAST_HEALTH_CHECKS = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 100,
    "health_check_timeout_ms": 100,
    "health_check_failure_threshold": 5,
}


def _ray() -> Any:
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    return pytest.importorskip("ray")


@pytest.fixture
def local_ray_absent() -> Iterator[Any]:
    """Ray installed and not initialised in this process (a command starts its own)."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def local_ray() -> Any:
    """The local Ray of this directory's tests: started by the first test that asks for it and
    kept for the next one that does (a start is seconds of the lane and a set of worker
    processes); ``pytest_runtest_teardown`` shuts it down before any other test."""
    ray = _ray()
    if not ray.is_initialized():
        ray.init(num_cpus=LOCAL_CPUS, include_dashboard=False, log_to_driver=False, namespace="burnqed-tests")
    return ray


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Shut the shared local Ray down unless the next test asks for it as well."""
    if nextitem is not None and "local_ray" in getattr(nextitem, "fixturenames", ()):
        return
    if "local_ray" in getattr(item, "fixturenames", ()):
        import ray

        if ray.is_initialized():
            ray.shutdown()


LEAN_NODES = 3


@pytest.fixture(scope="module")
def _module_cluster() -> Iterator[Any]:
    """A head (no Lean resources) and raylets that each hold one Lean actor, on this machine, for a module."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2, "include_dashboard": False, "_system_config": FAST_HEALTH_CHECKS},
    )
    cluster.lean_nodes = []
    ray.init(address=cluster.address, log_to_driver=False, namespace="burnqed-tests")
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def ray_cluster(_module_cluster: Any) -> Any:
    """The module's cluster with LEAN_NODES live Lean raylets: a node an earlier test removed is
    replaced (starting a cluster is most of a fault test's time; its state is the raylets)."""
    cluster = _module_cluster
    cluster.lean_nodes = [n for n in cluster.lean_nodes if n in cluster.worker_nodes]
    while len(cluster.lean_nodes) < LEAN_NODES:
        cluster.lean_nodes.append(cluster.add_node(num_cpus=1, resources={"lean": 1}))
    cluster.wait_for_nodes()
    return cluster
