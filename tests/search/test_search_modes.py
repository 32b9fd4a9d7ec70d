"""Whole-proof and hybrid search on the toy pool: pass@k at the root, and a failed step resuming
the best-first search from the state before it with the proof so far in the policy's prompt."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search import BestFirstSearch, SearchConfig
from tests.search.toy_pool import ToyPool

pytestmark = pytest.mark.anyio

THEOREM = Theorem(name="t", statement="True ∧ (1 = 1)")


class ScriptedProver:
    """Answers whole proofs by the proof so far; records every context it was handed."""

    def __init__(self, script: dict[tuple[str, ...], list[str]]) -> None:
        self.script = script
        self.seen: list[PromptContext] = []

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        assert contexts is not None and len(contexts) == len(states)
        self.seen.extend(contexts)
        return [
            [TacticCandidate(tactic=p, log_prob=-1.0) for p in self.script.get(c.proof_so_far, [])[:n]]
            for c in contexts
        ]


def _cfg(mode: str, **kw: object) -> SearchConfig:
    return SearchConfig.model_validate({"automation_tactics": [], "time_limit_s": 10.0, "mode": mode, **kw})


async def test_whole_mode_checks_each_sampled_proof_and_the_replay_gate_accepts_it() -> None:
    pool = ToyPool()
    prover = ScriptedProver({(): ["constructor\nrfl", "constructor\ntrivial\nrfl"]})
    search = BestFirstSearch(pool, prover, None, _cfg("whole", whole_samples=2))
    with anyio.fail_after(10):
        result = await search.prove(THEOREM)
    assert result.proved and result.proof == ["constructor", "trivial", "rfl"]
    assert pool.verified[-1] == result.proof  # the replay gate, as every proof
    assert result.stats.nodes_expanded == 1  # k proofs at the root, nothing else
    (ctx,) = prover.seen
    assert ctx.want == "proof" and ctx.name == "t" and ctx.declaration.startswith("theorem t : True ∧ (1 = 1) := by")


async def test_whole_mode_does_not_search_beyond_its_k_samples() -> None:
    prover = ScriptedProver({(): ["constructor\ntrivial\nbogus"], ("constructor", "trivial"): ["rfl"]})
    result = await BestFirstSearch(ToyPool(), prover, None, _cfg("whole", whole_samples=4)).prove(THEOREM)
    assert not result.proved and result.reason == "exhausted"
    assert len(prover.seen) == 1 and result.stats.nodes_expanded == 1


async def test_hybrid_resumes_from_the_state_before_the_failed_step_with_the_proof_so_far() -> None:
    prover = ScriptedProver({(): ["constructor\ntrivial\nbogus"], ("constructor", "trivial"): ["rfl"]})
    search = BestFirstSearch(ToyPool(), prover, None, _cfg("hybrid"))
    with anyio.fail_after(10):
        result = await search.prove(THEOREM)
    assert result.proved and result.proof == ["constructor", "trivial", "rfl"]
    resumed = [c for c in prover.seen if c.proof_so_far == ("constructor", "trivial")]
    assert resumed and resumed[0].state.strip().endswith("1 = 1") and resumed[0].want == "proof"
    # the valid prefix entered the tree: both steps' states are recorded
    assert {r.tactic for r in result.records if r.tactic} >= {"constructor", "trivial", "rfl"}


async def test_step_mode_hands_the_proof_so_far_and_asks_for_one_tactic() -> None:
    prover = ScriptedProver({(): ["constructor"], ("constructor",): ["trivial"], ("constructor", "trivial"): ["rfl"]})
    result = await BestFirstSearch(ToyPool(), prover, None, _cfg("step", min_new_children=0)).prove(THEOREM)
    assert result.proved and result.proof == ["constructor", "trivial", "rfl"]
    assert {c.want for c in prover.seen} == {"tactic"}
    assert [c.proof_so_far for c in prover.seen] == [(), ("constructor",), ("constructor", "trivial")]


class CorrectingProver(ScriptedProver):
    """Answers a wrong proof first and, once shown its errors, the right one."""

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        assert contexts is not None
        self.seen.extend(contexts)
        proof = "constructor\ntrivial\nrfl" if contexts[0].corrections else "constructor\ntrivial\nbogus"
        return [[TacticCandidate(tactic=proof, log_prob=-1.0, answer=f"```lean4\n{proof}\n```")]]


async def test_whole_mode_correction_round_feeds_the_errors_back_and_counts_its_budget() -> None:
    without = await BestFirstSearch(ToyPool(), CorrectingProver({}), None, _cfg("whole", whole_samples=1)).prove(THEOREM)
    assert not without.proved and without.stats.corrections == 0
    prover = CorrectingProver({})
    search = BestFirstSearch(ToyPool(), prover, None, _cfg("whole", whole_samples=1, correction_rounds=2))
    with anyio.fail_after(10):
        result = await search.prove(THEOREM)
    assert result.proved and result.proof == ["constructor", "trivial", "rfl"]
    assert result.stats.corrections == 1  # proved in the first correction round: the second is not asked
    assert result.stats.candidates_generated == 2 and result.stats.tactics_run == without.stats.tactics_run + 3
    first, corrected = prover.seen
    assert not first.corrections
    (turn,) = corrected.corrections
    assert turn.answer == "```lean4\nconstructor\ntrivial\nbogus\n```"  # the model's own answer, shown back
    (span,) = turn.errors
    assert turn.code.split("\n")[span.line - 1] == "  bogus" and span.goals_before is not None
    assert span.message  # the checker's refusal of `bogus`


@pytest.mark.parametrize("mode", ["step", "whole", "hybrid"])
async def test_the_lean_call_budget_binds_every_mode(mode: str) -> None:
    prover = ScriptedProver({(): ["bogus1", "constructor\ntrivial\nbogus", "bogus3"]})
    cfg = _cfg(mode, max_lean_calls=2, whole_samples=3, num_candidates=3, max_nodes=50, min_new_children=0)
    result = await BestFirstSearch(ToyPool(), prover, None, cfg).prove(THEOREM)
    assert not result.proved and result.reason == "node_budget" and result.detail == "Lean-call budget"
    assert result.stats.tactics_run == 2
