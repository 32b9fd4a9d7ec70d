"""The rule-based policy reads the first goal and proposes structural tactics deterministically."""

from __future__ import annotations

import anyio

from burnqed.search import RuleGenerator, TacticGenerator
from burnqed.search.rules import first_goal

STATE = "p q : Prop\nh : p ∧ q\nhq : q\n⊢ q ∧ p\n\ncase two\n⊢ True"


def test_first_goal_reads_hypotheses_and_target() -> None:
    hyps, target = first_goal(STATE)
    assert hyps == [("p", "Prop"), ("q", "Prop"), ("h", "p ∧ q"), ("hq", "q")]
    assert target == "q ∧ p"


def test_rules_propose_structural_tactics_best_first() -> None:
    gen = RuleGenerator()
    assert isinstance(gen, TacticGenerator)
    tactics = gen.propose(STATE)
    assert tactics[:2] == ["constructor", "obtain ⟨h1, h2⟩ := h"]
    assert "assumption" in tactics and len(tactics) == len(set(tactics))
    assert gen.propose("⊢ ∀ (n : Nat), n + 0 = n")[:2] == ["intro", "intros"]
    assert gen.propose("hp : p\n⊢ p")[0] == "exact hp"


def test_generate_is_deterministic_and_respects_n() -> None:
    gen = RuleGenerator()

    async def run() -> tuple[list, list]:
        return await gen.generate([STATE, "⊢ True"], 2), await gen.generate([STATE, "⊢ True"], 2)

    first, second = anyio.run(run)
    assert first == second
    assert [len(c) for c in first] == [2, 2]
    assert first[1][0].tactic == "trivial" and first[0][0].log_prob > first[0][1].log_prob
