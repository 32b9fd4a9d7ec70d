"""Configuration of the Ray cluster mode (``[cluster]``): where Ray is, how many Lean actors, where the policy runs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ClusterConfig", "PolicyPlacement"]

PolicyPlacement = Literal["auto", "actor", "each"]


class ClusterConfig(BaseModel):
    """Ray address, Lean actors and their resources, the shared policy actor, fault handling."""

    model_config = ConfigDict(extra="forbid")

    address: str = Field(
        default="local",
        description='"local" starts a Ray instance in this process; "auto" joins the cluster this node belongs '
        'to; "ray://host:port" joins one through Ray Client',
    )
    lean_actors: int = Field(default=2, ge=1, le=4096, description="Lean actors (each owns a LeanPool)")
    workers_per_actor: int = Field(default=2, ge=1, le=256, description="Lean worker processes per actor")
    searches_per_actor: int = Field(
        default=2, ge=1, le=1024, description="statements one actor searches at once (≤ workers_per_actor is sensible)"
    )
    lean_actor_cpus: float = Field(default=1.0, ge=0, description="Ray CPUs reserved per Lean actor")
    lean_actor_resources: dict[str, float] = Field(
        default_factory=dict, description='custom Ray resources per Lean actor, e.g. {"lean": 1} to pin them to Lean nodes'
    )
    policy_placement: PolicyPlacement = Field(
        default="auto",
        description="actor: one shared policy actor holds the model (and the energy head) and batches every Lean "
        "actor's requests; each: every Lean actor opens the policy itself (the rule policy, or policy.backend = "
        '"openai", whose server batches); auto: actor for a local model, each otherwise',
    )
    policy_actor_cpus: float = Field(default=1.0, ge=0, description="Ray CPUs reserved for the policy actor")
    policy_actor_gpus: float = Field(default=0.0, ge=0, description="GPUs for the policy actor (1 on a GPU node)")
    policy_actor_resources: dict[str, float] = Field(default_factory=dict, description="custom Ray resources of the policy actor")
    actor_max_restarts: int = Field(
        default=-1, ge=-1, description="restarts of a dead actor (Ray's max_restarts; -1 = without limit)"
    )
    statement_retries: int = Field(
        default=3, ge=0, description="re-queues of a statement whose actor or node died mid-search"
    )
    restart_wait_s: float = Field(
        default=120.0, gt=0, description="how long a dead actor may take to come back before its slots retire"
    )
    policy_retry_s: float = Field(
        default=300.0, gt=0, description="how long a policy call waits out a restarting policy actor"
    )
    local_cpus: int | None = Field(
        default=None, ge=1, description='address = "local": logical CPUs of the local Ray (default: enough for the actors)'
    )
    namespace: str = Field(default="burnqed", description="Ray namespace of the run's actors")
