"""Best-first search on the toy pool: proofs, labels, budgets, pruning, replay gate, lost workers."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.policy.types import TacticCandidate
from burnqed.search import BestFirstSearch, RuleGenerator, SearchConfig
from burnqed.trajectory.schema import NEGATIVE, POSITIVE
from tests.search.toy_pool import ToyPool

pytestmark = pytest.mark.anyio


class FixedGenerator:
    """Proposes the same tactics for every state."""

    def __init__(self, tactics: Sequence[str]) -> None:
        self.tactics = list(tactics)
        self.calls = 0

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        self.calls += 1
        return [[TacticCandidate(tactic=t, log_prob=-0.5) for t in self.tactics[:n]] for _ in states]


class PreferScorer:
    """Energy 0 for states containing ``word``, 5 otherwise."""

    def __init__(self, word: str) -> None:
        self.word = word

    async def score(self, states: Sequence[str]) -> list[float]:
        return [0.0 if self.word in s else 5.0 for s in states]


def _cfg(**kw: object) -> SearchConfig:
    base: dict[str, object] = {"automation_tactics": [], "time_limit_s": 10.0}
    base.update(kw)
    return SearchConfig.model_validate(base)


async def test_conjunction_is_proved_and_path_is_labelled_positive() -> None:
    pool = ToyPool()
    search = BestFirstSearch(pool, FixedGenerator(["constructor", "trivial", "rfl"]), None, _cfg())
    thm = Theorem(name="t", statement="True ∧ (1 = 1)")
    with anyio.fail_after(10):
        result = await search.prove(thm, iteration=3)
    assert result.proved and result.reason == "proved"
    assert result.proof == ["constructor", "trivial", "rfl"]
    assert pool.verified[-1] == result.proof
    positives = sorted((r for r in result.records if r.label == POSITIVE), key=lambda r: r.depth)
    assert [r.remaining_depth for r in positives] == [3, 2, 1, 0]
    assert positives[-1].proof_complete and positives[0].parent_id is None
    assert all(r.remaining_depth is None for r in result.records if r.label == NEGATIVE)
    assert {r.iteration for r in result.records} == {3}
    assert {r.backend for r in result.records} == {"toy"}
    assert len(result.records) == result.stats.states


async def test_unproved_theorem_records_are_all_negative() -> None:
    search = BestFirstSearch(ToyPool(), FixedGenerator(["constructor", "left"]), None, _cfg())
    result = await search.prove(Theorem(name="f", statement="False ∧ False"))
    assert not result.proved and result.reason == "exhausted" and result.proof is None
    assert result.records and all(r.label == NEGATIVE for r in result.records)


async def test_duplicate_states_are_pruned() -> None:
    search = BestFirstSearch(ToyPool(), FixedGenerator(["noop", "left", "right"]), None, _cfg())
    result = await search.prove(Theorem(name="d", statement="False ∨ False"))
    # noop repeats the root; left and right both give `False`: one state kept, two pruned
    assert result.stats.nodes_pruned >= 2
    states = [r.state for r in result.records]
    assert len(states) == len(set(states))


async def test_node_budget_is_respected() -> None:
    search = BestFirstSearch(ToyPool(), FixedGenerator(["step"]), None, _cfg(max_nodes=5))
    result = await search.prove(Theorem(name="loop", statement="Loop 0"))
    assert result.reason == "node_budget"
    assert result.stats.nodes_expanded == 5


async def test_depth_limit_is_respected() -> None:
    search = BestFirstSearch(ToyPool(), FixedGenerator(["step"]), None, _cfg(max_depth=3))
    result = await search.prove(Theorem(name="loop", statement="Loop 0"))
    assert result.reason == "exhausted"
    assert max(r.depth for r in result.records) == 3


async def test_time_limit_ends_the_search() -> None:
    pool = ToyPool(latency_s=0.01)
    search = BestFirstSearch(pool, FixedGenerator(["step"]), None, _cfg(time_limit_s=0.1, max_nodes=10_000))
    with anyio.fail_after(10):
        result = await search.prove(Theorem(name="loop", statement="Loop 0"))
    assert result.reason == "time_limit"
    assert result.stats.nodes_expanded < 10_000


async def test_replay_gate_rejects_a_planted_false_proof() -> None:
    pool = ToyPool(lie=True)
    search = BestFirstSearch(pool, FixedGenerator(["trust_me"]), None, _cfg())
    result = await search.prove(Theorem(name="lie", statement="False"))
    assert not result.proved and result.reason == "proof_rejected"
    assert result.stats.proofs_rejected == 1
    assert pool.verified == [["trust_me"]]
    assert all(r.label == NEGATIVE for r in result.records)


async def test_energy_steers_the_search() -> None:
    # both sides open; the scorer prefers the right one, which is provable
    gen = FixedGenerator(["left", "right", "trivial"])
    search = BestFirstSearch(ToyPool(), gen, PreferScorer("True"), _cfg(energy_weight=1.0))
    result = await search.prove(Theorem(name="e", statement="(False ∧ False) ∨ True"))
    assert result.proof == ["right", "trivial"]
    assert result.stats.nodes_expanded == 2
    energies = {r.state: r.energy for r in result.records}
    assert energies["⊢ True"] == 0.0


async def test_automation_tactics_are_tried_after_the_policy() -> None:
    search = BestFirstSearch(ToyPool(), None, None, _cfg(automation_tactics=["trivial"]))
    result = await search.prove(Theorem(name="a", statement="True"))
    assert result.proof == ["trivial"]
    assert result.records[-1].log_prob == SearchConfig().automation_log_prob


async def test_lost_worker_is_retried_once_then_proves() -> None:
    pool = ToyPool(die_on="constructor", die_times=1)
    search = BestFirstSearch(pool, FixedGenerator(["constructor", "trivial"]), None, _cfg())
    result = await search.prove(Theorem(name="l", statement="True ∧ True"))
    assert result.proved and result.stats.attempts == 2
    assert pool.started == 2


async def test_worker_lost_twice_marks_the_theorem_lost() -> None:
    pool = ToyPool(die_on="constructor", die_times=5, die_as_error=True)
    search = BestFirstSearch(pool, FixedGenerator(["constructor"]), None, _cfg())
    result = await search.prove(Theorem(name="l", statement="True ∧ True"))
    assert result.reason == "lost" and not result.proved
    assert result.stats.attempts == 2 and pool.started == 2


async def test_invalid_statement_is_reported_not_raised() -> None:
    search = BestFirstSearch(ToyPool(), RuleGenerator(), None, _cfg())
    result = await search.prove(Theorem(name="bad", statement="Bad syntax"))
    assert result.reason == "invalid_statement" and "elaborate" in (result.detail or "")
    assert result.records == []


async def test_a_statement_outside_the_embedded_fragment_is_its_own_outcome() -> None:
    search = BestFirstSearch(ToyPool(), RuleGenerator(), None, _cfg())
    result = await search.prove(Theorem(name="r", statement="Real x"))
    assert result.reason == "outside_fragment" and not result.proved
    assert "outside the embedded fragment" in (result.detail or "")


async def test_a_repl_error_on_one_tactic_is_a_failed_tactic_not_a_failed_search() -> None:
    pool = ToyPool(error_on="boom")
    search = BestFirstSearch(pool, FixedGenerator(["boom", "trivial"]), None, _cfg())
    result = await search.prove(Theorem(name="r", statement="True"))
    assert result.proved and result.proof == ["trivial"]
    assert result.stats.nodes_failed == 1
