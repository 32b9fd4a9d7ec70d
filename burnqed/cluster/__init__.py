"""burnqed.cluster: Lean actors across machines, one shared policy, nothing lost when a node dies.

Ray is an optional extra (``pip install 'burnqed[cluster]'``) imported only when a cluster
run starts (``burnqed.cluster.ray_support.import_ray``). ``Campaign`` is the driver;
``LeanActor`` and ``PolicyActor`` are the actor bodies; ``RemotePool`` puts a Lean actor
behind the one Lean interface; each statement's result is committed to the run's
``burnqed.search.store.StatementStore``. ``burnqed.runs.run_statements`` is the one call
that runs a set of statements here or locally. See docs/cluster.md.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.cluster.config": ("ClusterConfig", "PolicyPlacement"),
    "burnqed.cluster.errors": (
        "ClusterError", "ClusterStartError", "HostStopped", "NoLiveActors", "PolicyUnavailable",
        "RayMissing",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
