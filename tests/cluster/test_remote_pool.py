"""A Lean actor behind the one Lean interface: the search and the replay gate run on it unchanged."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from burnqed.cluster.campaign import Campaign
from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.remote import RemotePool
from burnqed.cluster.spec import ClusterSpec
from burnqed.data.theorems import Theorem
from burnqed.lean import InvalidStatement, LeanConfig, TacticStatus
from burnqed.lean.interface import ProofPool
from burnqed.lean.target import ProofTarget
from burnqed.search import BestFirstSearch, RuleGenerator, SearchConfig

pytestmark = pytest.mark.anyio

SPEC = ClusterSpec(
    cluster=ClusterConfig(lean_actors=1, workers_per_actor=1, lean_actor_cpus=1),
    lean=LeanConfig(backend="embedded"),
    search=SearchConfig(max_nodes=20, time_limit_s=20.0),
    policy="none",
)


async def test_a_search_runs_unchanged_on_a_remote_pool(local_ray: Any) -> None:
    with anyio.fail_after(120):
        async with Campaign(SPEC) as campaign:
            pool: ProofPool = campaign.remote_pool(0)
            assert isinstance(pool, RemotePool) and pool.backend == "embedded"
            theorem = Theorem(name="and_comm", statement="∀ (p q : Prop), p ∧ q → q ∧ p")
            result = await BestFirstSearch(pool, RuleGenerator(), None, SPEC.search).prove(theorem)
            assert result.proved and result.backend == "embedded"
            verdict = await pool.verify_proof(ProofTarget.of(theorem.statement), result.proof or [])
            assert verdict.ok and verdict.checked_by == "kernel"
            status = await campaign.remote_pool(0).refresh_status()
            assert status.workers == 1 and status.open_handles == 0


async def test_the_actors_errors_and_outcomes_come_through_as_themselves(local_ray: Any) -> None:
    with anyio.fail_after(120):
        async with Campaign(SPEC) as campaign:
            pool = campaign.remote_pool(0)
            with pytest.raises(InvalidStatement):
                await pool.open_proof(ProofTarget.of("∀ (n : Nat), n +"))
            async with pool.start_proof(ProofTarget.of("∀ (n : Nat), n + 0 = n")) as proof:
                failed = await proof.run_tactic(proof.state_id, "exact foo")
                assert failed.status is TacticStatus.FAILED and not proof.lost
                out = await proof.run_tactic(proof.state_id, "intro n")
                assert out.ok and "⊢ n + 0 = n" in out.rendered
                printed = await proof.print_root(out.next_state_id or 0)
                assert not printed.root_has_sorry
            assert pool.worker_pids() == [] and proof.worker_pid is None
