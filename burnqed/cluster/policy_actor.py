"""The shared policy actor and its clients.

``PolicyActor`` is the body of one Ray actor that holds the run's components
(``open_components``: the model behind its generation service, the energy head) and
answers ``generate`` / ``score`` for every Lean actor, so one service batches the requests
of all of them (``stats`` reports the batch sizes). ``RemoteGenerator`` and
``RemoteScorer`` are what a Lean actor's search holds instead of a local policy: they
forward each call and wait out a restarting policy actor (up to ``policy_retry_s``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, Field

from burnqed.cluster.errors import PolicyUnavailable
from burnqed.cluster.ray_support import is_actor_failure
from burnqed.cluster.spec import ActorHost, ClusterSpec
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search.components import Components, open_components
from burnqed.search.protocols import propose

__all__ = ["BatchStats", "PolicyActor", "PolicyInfo", "RemoteGenerator", "RemoteScorer", "call_with_restarts", "policy_info"]

# back-off while the policy actor restarts: first wait, and the longest
_RETRY_FIRST_S = 0.1
_RETRY_MAX_S = 2.0


class PolicyInfo(BaseModel):
    """What reports record of the policy a run used."""

    model_config = ConfigDict(frozen=True)

    policy_id: str
    ebm_id: str | None = None
    label: str
    has_generator: bool = True
    has_scorer: bool = False


class BatchStats(BaseModel):
    """The policy actor's generation-service counters (zero for a model-free policy)."""

    model_config = ConfigDict(frozen=True)

    batches: int = 0
    requests: int = 0
    states: int = 0
    largest_batch: int = 0
    pid: int = Field(default=0, description="the policy actor's process (a restart changes it)")

    @property
    def mean_batch(self) -> float:
        """States per model call."""
        return self.states / self.batches if self.batches else 0.0


def policy_info(comps: Components) -> PolicyInfo:
    """The report ids of opened components."""
    return PolicyInfo(
        policy_id=comps.policy_id,
        ebm_id=comps.ebm_id,
        label=comps.label,
        has_generator=comps.generator is not None,
        has_scorer=comps.scorer is not None,
    )


class PolicyActor:
    """Ray actor body: the run's policy and energy head, shared by every Lean actor."""

    def __init__(self, spec: ClusterSpec) -> None:
        self._spec = spec
        self._host: ActorHost[Components] = ActorHost(self._open)

    def _open(self) -> Any:
        spec = self._spec
        return open_components(
            spec.policy_config, spec.paths, policy=spec.policy, model_dir=spec.model_dir, ebm=spec.ebm
        )

    async def ready(self) -> PolicyInfo:
        """Load the components (first call) and describe them."""
        return policy_info(await self._host.get())

    async def generate(
        self, states: list[str], n: int, contexts: list[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """The policy's candidates per state (batched with every other caller's)."""
        comps = await self._host.get()
        if comps.generator is None:
            return [[] for _ in states]
        return await propose(comps.generator, states, n, contexts)

    async def score(self, states: list[str]) -> list[float]:
        """Energies of ``states`` (zeros without an energy head)."""
        comps = await self._host.get()
        if comps.scorer is None:
            return [0.0] * len(states)
        return [float(e) for e in await comps.scorer.score(states)]

    async def stats(self) -> BatchStats:
        """Batch counters of the generation service since this process started."""
        comps = await self._host.get()
        raw = getattr(comps.generator, "stats", None)
        if raw is None:
            return BatchStats(pid=os.getpid())
        return BatchStats(
            batches=raw.batches,
            requests=raw.requests,
            states=raw.states,
            largest_batch=raw.largest_batch,
            pid=os.getpid(),
        )

    async def stop(self) -> None:
        """Close the components."""
        await self._host.stop()


async def call_with_restarts(actor: Any, method: str, retry_s: float, *args: Any) -> Any:
    """``actor.method.remote(*args)``, again after an actor failure until ``retry_s`` have passed."""
    deadline = anyio.current_time() + retry_s
    delay = _RETRY_FIRST_S
    while True:
        try:
            return await getattr(actor, method).remote(*args)
        except Exception as exc:
            if not is_actor_failure(exc):
                raise
            if anyio.current_time() + delay > deadline:
                raise PolicyUnavailable(f"the policy actor did not come back within {retry_s}s: {exc}") from exc
        await anyio.sleep(delay)
        delay = min(delay * 2, _RETRY_MAX_S)


class RemoteGenerator:
    """A TacticGenerator that forwards to the policy actor."""

    def __init__(self, actor: Any, retry_s: float) -> None:
        self._actor, self._retry_s = actor, retry_s

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """The policy actor's candidates per state."""
        result: list[list[TacticCandidate]] = await call_with_restarts(
            self._actor, "generate", self._retry_s, list(states), n, list(contexts) if contexts else None
        )
        return result


class RemoteScorer:
    """A StateScorer that forwards to the policy actor's energy head."""

    def __init__(self, actor: Any, retry_s: float) -> None:
        self._actor, self._retry_s = actor, retry_s

    async def score(self, states: Sequence[str]) -> list[float]:
        """The policy actor's energies."""
        result: list[float] = await call_with_restarts(self._actor, "score", self._retry_s, list(states))
        return result
