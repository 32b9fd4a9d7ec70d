"""burnqed.cluster: Lean actors across machines, one shared policy, nothing lost when a node dies.

Ray is an optional extra (``pip install 'burnqed[cluster]'``) imported only when a cluster
run starts (``burnqed.cluster.ray_support.import_ray``). ``Campaign`` is the driver;
``LeanActor`` and ``PolicyActor`` are the actor bodies; ``RemotePool`` puts a Lean actor
behind the one Lean interface; each statement's result is committed to the run's
``burnqed.search.store.StatementStore``. ``burnqed.runs.run_statements`` is the one call
that runs a set of statements here or locally. See docs/cluster.md.
"""

from burnqed.cluster.config import ClusterConfig, PolicyPlacement
from burnqed.cluster.errors import (
    ClusterError,
    ClusterStartError,
    HostStopped,
    NoLiveActors,
    PolicyUnavailable,
    RayMissing,
)

__all__ = [
    "ClusterConfig",
    "ClusterError",
    "ClusterStartError",
    "HostStopped",
    "NoLiveActors",
    "PolicyPlacement",
    "PolicyUnavailable",
    "RayMissing",
]
