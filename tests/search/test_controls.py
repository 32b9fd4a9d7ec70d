"""The non-learned frontier priorities a head is compared against (connective count, depth bonus)."""

from __future__ import annotations

import anyio
import pytest

from burnqed.data.theorems import Theorem
from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.target import ProofTarget
from burnqed.search import RuleGenerator, SearchConfig, search_theorems
from burnqed.search.controls import ConnectiveScorer, connective_count
from burnqed.search.engine import BestFirstSearch

pytestmark = pytest.mark.anyio

DEPTH_STATE = "n : ℕ\n⊢ (∃ (m : ℕ), m > n + 3) ∧ (n + 2) * (n + 2) = n * n + 4 * n + 4 ∧ (∃ (k : ℕ), k ≥ n)"


def test_connective_count_is_exists_plus_and_plus_goals_of_the_targets() -> None:
    assert connective_count(DEPTH_STATE) == 2 + 2 + 1
    two_goals = "case left\nn : ℕ\n⊢ ∃ (m : ℕ), m > n\n\ncase right\nn : ℕ\nh : ∃ (j : ℕ), j = n ∧ True\n⊢ n = n"
    assert connective_count(two_goals) == 1 + 2  # the hypothesis' ∃ and ∧ are not left to prove
    assert connective_count("no goals") == 0


async def test_connective_scorer_scores_states_in_order() -> None:
    assert await ConnectiveScorer().score([DEPTH_STATE, "no goals", "⊢ True ∧ True"]) == [5.0, 0.0, 2.0]


def test_a_control_replaces_a_head_and_refuses_to_stand_beside_one() -> None:
    config = SearchConfig(priority_control="connectives")
    assert isinstance(BestFirstSearch(object(), None, None, config).scorer, ConnectiveScorer)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="replaces the energy head"):
        BestFirstSearch(object(), None, ConnectiveScorer(), config)  # type: ignore[arg-type]
    assert BestFirstSearch(object(), None, None, SearchConfig()).scorer is None  # type: ignore[arg-type]


THEOREMS = [
    Theorem(name="and3", statement="∀ (n : Nat), n + 0 = n ∧ 0 + n = n ∧ n ≤ n + 1"),
    Theorem(name="and_swap", statement="∀ (p q : Prop), p ∧ q → q ∧ p"),
    Theorem(name="false", statement="∀ (n : Nat), n + 1 = n"),
]


async def test_controls_search_on_the_embedded_checker() -> None:
    lean = LeanConfig(backend="embedded", num_workers=2, read_timeout_s=20.0, startup_timeout_s=60.0)
    found = {}
    with anyio.fail_after(180):
        async with LeanPool(lean) as pool:
            for control in ("connectives", "depth_bonus"):
                cfg = SearchConfig(max_nodes=12, time_limit_s=30.0, concurrency=2, priority_control=control)
                found[control] = await search_theorems(pool, RuleGenerator(), None, THEOREMS, cfg)
                for r in found[control]:
                    if r.proved:
                        assert (await pool.verify_proof(ProofTarget.of(r.theorem.statement), r.proof or [])).ok
    for control, results in found.items():
        by_name = {r.theorem.name: r for r in results}
        assert not by_name["false"].proved, control
        assert by_name["and_swap"].proved, control
    # the connective control's energy is the count of each state it scored (the depth bonus scores nothing)
    scored = [x for r in found["connectives"] for x in r.records if x.energy is not None]
    assert scored and all(x.energy == connective_count(x.state) for x in scored)
    assert all(x.energy is None for r in found["depth_bonus"] for x in r.records)
