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
    assert tactics[:2] == ["obtain ⟨h1, h2⟩ := h", "constructor"]
    assert "assumption" in tactics and len(tactics) == len(set(tactics))
    assert gen.propose("hp : p\n⊢ p")[0] == "exact hp"


def test_intro_uses_the_binders_names_and_fresh_names_for_premises() -> None:
    gen = RuleGenerator()
    assert gen.propose("⊢ ∀ (n : Nat), n + 0 = n")[0] == "intro n"
    assert gen.propose("h : True\n⊢ ∀ (p q : Prop), p → (p → q) → q")[0] == "intro p q h1 h2"
    assert gen.propose("⊢ ∀ {a b : Prop}, a ∧ b ↔ b ∧ a")[0] == "intro a b"
    assert gen.propose("⊢ ¬False")[0] == "intro h"
    # a connective under a binder is not the goal's connective
    assert "constructor" not in gen.propose("⊢ ∀ (a : Nat), a = 1 ∧ a = 2 → False")


def test_hypotheses_are_destructured() -> None:
    gen = RuleGenerator()
    assert gen.propose("k : ℕ\nh : ∃ (n : ℕ), k = 6 * n\n⊢ k % 6 = 0")[0] == "obtain ⟨n, hn⟩ := h"
    assert gen.propose("x : Nat\nh : x = 3 ∨ x = 6\n⊢ x * x ≤ 44")[0] == "rcases h with h | h"
    assert "rw [h]" in gen.propose("x : Nat\nh : x = 3\n⊢ x * x ≤ 44")


def test_generate_is_deterministic_and_respects_n() -> None:
    gen = RuleGenerator()

    async def run() -> tuple[list, list]:
        return await gen.generate([STATE, "⊢ True"], 2), await gen.generate([STATE, "⊢ True"], 2)

    first, second = anyio.run(run)
    assert first == second
    assert [len(c) for c in first] == [2, 2]
    assert first[1][0].tactic == "trivial" and first[0][0].log_prob > first[0][1].log_prob
