"""Search on the real pool with real child processes (the scripted fake REPL, backend "command").

The fake REPL lies on request (``sorry`` closes any goal, ``fake_mvar`` leaves a
metavariable), which is how a false proof is planted; its workers are real processes,
which is how one is killed mid-search.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.lean import LeanPool
from burnqed.lean.target import ProofTarget
from burnqed.policy.types import TacticCandidate
from burnqed.search import BestFirstSearch, RuleGenerator, SearchConfig
from burnqed.trajectory.schema import POSITIVE
from tests.fixtures.lean import fake_config, pid_alive

pytestmark = pytest.mark.anyio

STATEMENT = "∀ (n : Nat), n + 0 = n"


class Scripted:
    """Proposes ``script[k]`` on its k-th call (the last entry afterwards); may run a hook first."""

    def __init__(self, script: Sequence[Sequence[str]], hook: object = None) -> None:
        self.script = [list(s) for s in script]
        self.hook = hook
        self.calls = 0

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        tactics = self.script[min(self.calls, len(self.script) - 1)]
        if self.calls == 0 and callable(self.hook):
            self.hook()
        self.calls += 1
        return [[TacticCandidate(tactic=t, log_prob=-0.1) for t in tactics[:n]] for _ in states]


async def test_rule_policy_proves_on_the_pool_and_the_proof_replays() -> None:
    cfg = SearchConfig(automation_tactics=["rfl"], time_limit_s=20.0)
    with anyio.fail_after(30):
        async with LeanPool(fake_config(num_workers=1)) as pool:
            result = await BestFirstSearch(pool, RuleGenerator(), None, cfg).prove(Theorem(name="t", statement=STATEMENT))
            assert result.proved and result.proof is not None
            verdict = await pool.verify_proof(ProofTarget.of(STATEMENT), result.proof)
    assert verdict.ok
    assert result.backend == "command"
    assert {r.backend for r in result.records} == {"command"}
    path = [r for r in result.records if r.label == POSITIVE]
    assert len(path) == len(result.proof) + 1 and path[0].state.endswith(f"⊢ {STATEMENT}")


@pytest.mark.parametrize("liar", ["sorry", "fake_mvar"])
async def test_replay_gate_rejects_a_planted_false_proof(liar: str) -> None:
    cfg = SearchConfig(automation_tactics=[], time_limit_s=20.0)
    with anyio.fail_after(30):
        async with LeanPool(fake_config(num_workers=1)) as pool:
            search = BestFirstSearch(pool, Scripted([[liar]]), None, cfg)
            result = await search.prove(Theorem(name="lie", statement="False"))
    assert not result.proved and result.proof is None
    if liar == "sorry":
        # a step reporting hasSorry never enters the tree
        assert result.stats.nodes_failed == 1 and result.stats.states == 1
    else:
        # closes the goal but leaves a metavariable: goal.print's root flag refuses it
        assert result.stats.proofs_rejected == 1
    assert all(r.label == 0 for r in result.records)


async def test_worker_killed_mid_search_is_retried_once() -> None:
    # one scripted answer per expansion: no resampling round may consume the script
    cfg = SearchConfig(automation_tactics=[], time_limit_s=20.0, resample_rounds=0)
    with anyio.fail_after(30):
        async with LeanPool(fake_config(num_workers=1)) as pool:
            victims: list[int] = []

            def kill() -> None:
                victims.extend(pool.worker_pids())
                for pid in victims:
                    os.kill(pid, signal.SIGKILL)

            gen = Scripted([["intro n"], ["intro n"], ["rfl"]], hook=kill)
            result = await BestFirstSearch(pool, gen, None, cfg).prove(Theorem(name="k", statement=STATEMENT))
    assert victims and not any(pid_alive(p) for p in victims)
    assert result.proved and result.stats.attempts == 2
    assert result.proof == ["intro n", "rfl"]


async def test_a_worker_that_always_dies_marks_the_theorem_lost() -> None:
    cfg = SearchConfig(automation_tactics=[], time_limit_s=20.0, lost_retries=1)
    with anyio.fail_after(30):
        async with LeanPool(fake_config(num_workers=1)) as pool:
            result = await BestFirstSearch(pool, Scripted([["crash"]]), None, cfg).prove(
                Theorem(name="c", statement=STATEMENT)
            )
    assert result.reason == "lost" and result.stats.attempts == 2 and not result.proved


async def test_invalid_statement_on_the_pool_is_a_result() -> None:
    with anyio.fail_after(30):
        async with LeanPool(fake_config(num_workers=1)) as pool:
            result = await BestFirstSearch(pool, RuleGenerator(), None, SearchConfig()).prove(
                Theorem(name="bad", statement="(((")
            )
    assert result.reason == "invalid_statement"


async def test_tiny_policy_behind_the_generation_service_drives_the_search(tiny_policy: object) -> None:
    from burnqed.policy.service import GenerationService
    from burnqed.search import search_theorems

    cfg = SearchConfig(automation_tactics=["rfl"], max_nodes=3, num_candidates=2, time_limit_s=30.0, concurrency=2)
    theorems = [Theorem(name="a", statement=STATEMENT), Theorem(name="b", statement="False")]
    with anyio.fail_after(120):
        async with LeanPool(fake_config(num_workers=2)) as pool, GenerationService(tiny_policy) as service:
            results = await search_theorems(pool, service, None, theorems, cfg)
    assert [r.theorem.name for r in results] == ["a", "b"]
    assert results[0].proved and not results[1].proved
    assert all(r.stats.generation_s > 0 for r in results)
    assert results[1].stats.nodes_expanded <= 3
    # policy candidates carry the model's log-probs (≤ 0); the root has none
    assert all(r.log_prob is None or r.log_prob <= 0 for r in results[1].records)
