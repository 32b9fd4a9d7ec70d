"""Search on the embedded checker (a real child process speaking Pantograph's protocol)."""

from __future__ import annotations

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.target import ProofTarget
from burnqed.search import RuleGenerator, SearchConfig, search_theorems
from burnqed.trajectory.schema import POSITIVE

pytestmark = pytest.mark.anyio

THEOREMS = [
    Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n"),
    Theorem(name="and_swap", statement="∀ (p q : Prop), p ∧ q → q ∧ p"),
    Theorem(name="lin", statement="∀ (a b : Nat), a ≤ b → a < b + 1"),
    Theorem(name="false", statement="∀ (n : Nat), n + 1 = n"),
]


def _lean() -> LeanConfig:
    return LeanConfig(backend="embedded", num_workers=2, read_timeout_s=20.0, startup_timeout_s=60.0)


async def test_rule_policy_proves_on_the_embedded_checker_and_never_a_false_statement() -> None:
    cfg = SearchConfig(max_nodes=12, time_limit_s=30.0, concurrency=2)
    with anyio.fail_after(120):
        async with LeanPool(_lean()) as pool:
            results = await search_theorems(pool, RuleGenerator(), None, THEOREMS, cfg)
            for r in results:
                if r.proved:
                    assert (await pool.verify_proof(ProofTarget.of(r.theorem.statement), r.proof or [])).ok
    by_name = {r.theorem.name: r for r in results}
    assert by_name["add_zero"].proved and by_name["lin"].proved
    assert not by_name["false"].proved
    assert all(r.backend == "embedded" for r in results)
    for r in results:
        assert r.stats.nodes_expanded <= 12
        path = [x for x in r.records if x.label == POSITIVE]
        assert len(path) == (len(r.proof) + 1 if r.proof is not None else 0)


async def test_tiny_policy_searches_on_the_embedded_checker(tiny_policy: object) -> None:
    from burnqed.policy.service import GenerationService

    cfg = SearchConfig(max_nodes=3, num_candidates=2, time_limit_s=30.0, concurrency=2)
    with anyio.fail_after(180):
        async with LeanPool(_lean()) as pool, GenerationService(tiny_policy) as service:
            results = await search_theorems(pool, service, None, THEOREMS[:2], cfg)
    assert all(r.stats.generation_s > 0 and r.stats.nodes_expanded <= 3 for r in results)
    assert results[0].proved  # omega / simp / rfl among the automation tactics
    assert all(r.records[0].state.endswith(f"⊢ {r.theorem.statement}") for r in results)


REPRO_THEOREMS = [
    *THEOREMS,
    Theorem(name="mul_comm", statement="∀ (a b : Nat), a * b = b * a"),
    Theorem(name="or_swap", statement="∀ (p q : Prop), p ∨ q → q ∨ p"),
]


async def test_same_checkpoint_and_seed_give_the_same_search_at_any_concurrency(tiny_policy: object) -> None:
    # samples are seeded per state, not by batch composition: concurrency 1 and 3 batch
    # different states together, and every search must still go exactly the same way
    from burnqed.policy.service import GenerationService

    # one pool (a worker per concurrent search) serves both runs: the searches' records come from
    # the policy's samples and the checker's answers, neither of which depends on the pool's past
    runs = []
    with anyio.fail_after(240):
        async with LeanPool(_lean().model_copy(update={"num_workers": 3})) as pool:
            for concurrency in (1, 3):
                cfg = SearchConfig(max_nodes=4, num_candidates=3, concurrency=concurrency, automation_tactics=["intro x", "rfl"])
                async with GenerationService(tiny_policy, max_wait_s=0.02) as service:
                    runs.append(await search_theorems(pool, service, None, REPRO_THEOREMS, cfg))
    one, three = runs
    for a, b in zip(one, three, strict=True):
        assert (a.theorem.name, a.proved, a.proof, a.reason) == (b.theorem.name, b.proved, b.proof, b.reason)
        assert [(r.node_id, r.parent_id, r.tactic, r.state) for r in a.records] == [
            (r.node_id, r.parent_id, r.tactic, r.state) for r in b.records
        ]
        assert a.stats.candidates_generated == b.stats.candidates_generated > 0
    # deeper states were expanded, so the policy was asked about states unique to each search
    assert any(r.stats.nodes_expanded > 1 for r in one) and any(r.stats.resamples > 0 for r in one)
