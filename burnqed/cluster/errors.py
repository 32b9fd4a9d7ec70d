"""Errors of the cluster layer.

ClusterError
 ├── RayMissing           Ray is not installed: ``pip install 'burnqed[cluster]'``
 ├── ClusterStartError    Ray could not be started or joined at ``cluster.address``
 ├── NoLiveActors         every Lean actor died for good with statements still to search
 ├── HostStopped          an actor's resources (pool, policy) are closed
 └── PolicyUnavailable    the policy actor stayed dead past ``cluster.policy_retry_s``

A statement whose search failed is a result (reason ``lost`` / ``error``), not an error here.
"""

from __future__ import annotations

__all__ = ["ClusterError", "ClusterStartError", "HostStopped", "NoLiveActors", "PolicyUnavailable", "RayMissing"]


class ClusterError(Exception):
    """Base of the cluster layer's errors."""


class RayMissing(ClusterError):
    """The optional extra ``cluster`` (Ray) is not installed."""


class ClusterStartError(ClusterError):
    """Ray could not be started or joined."""


class NoLiveActors(ClusterError):
    """Every Lean actor is dead and will not come back; statements remain."""


class HostStopped(ClusterError):
    """An actor's pool or policy was closed (the actor is shutting down)."""


class PolicyUnavailable(ClusterError):
    """The shared policy actor did not come back within the retry window."""

