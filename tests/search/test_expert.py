"""The expert generator: the policy's candidates widened by the rules' structural tactics."""

from __future__ import annotations

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.target import ProofTarget
from burnqed.search import RuleGenerator, SearchConfig, search_theorems
from burnqed.search.expert import ExpertGenerator

pytestmark = pytest.mark.anyio

STATE = "p q : Prop\n⊢ p ∧ q → q ∧ p"


async def test_the_policys_candidates_come_first_and_rule_tactics_are_not_repeated() -> None:
    expert = ExpertGenerator(RuleGenerator(), rule_log_prob=-2.0)
    (cands,) = await expert.generate([STATE], 4)
    policy_part = (await RuleGenerator().generate([STATE], 4))[0]
    assert cands[: len(policy_part)] == policy_part
    assert len({" ".join(c.tactic.split()) for c in cands}) == len(cands)
    mute = ExpertGenerator(RuleGenerator(rules=[]), rule_log_prob=-2.0)
    (only_rules,) = await mute.generate([STATE], 4)
    assert [c.tactic for c in only_rules] == RuleGenerator().propose(STATE)
    assert all(c.log_prob == -2.0 for c in only_rules)


async def test_a_policy_that_proposes_nothing_proves_structural_goals_with_the_expert() -> None:
    theorems = [Theorem(name="and_swap", statement="∀ (p q : Prop), p ∧ q → q ∧ p"),
                Theorem(name="false", statement="∀ (n : Nat), n + 1 = n")]  # fmt: skip
    cfg = SearchConfig(max_nodes=12, concurrency=1, automation_tactics=["assumption"])
    lean = LeanConfig(backend="embedded", num_workers=2, startup_timeout_s=60.0)
    with anyio.fail_after(120):
        async with LeanPool(lean) as pool:
            alone = await search_theorems(pool, RuleGenerator(rules=[]), None, theorems, cfg)
            widened = await search_theorems(
                pool, ExpertGenerator(RuleGenerator(rules=[]), rule_log_prob=-2.0), None, theorems, cfg
            )
            proved = {r.theorem.name: r for r in widened if r.proved}
            for r in proved.values():
                assert (await pool.verify_proof(ProofTarget.of(r.theorem.statement), r.proof or [])).ok
    assert not any(r.proved for r in alone)
    assert set(proved) == {"and_swap"}
