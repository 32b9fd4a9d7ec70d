"""Ranking quality of the energy head and the policy on hand-built proved searches."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from burnqed.data.theorems import Theorem
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import report_from_results
from burnqed.search.ranking import merge_ranking, ranking_quality
from burnqed.search.results import SearchResult, SearchStats
from burnqed.trajectory.schema import NEGATIVE, POSITIVE, TrajectoryRecord

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _row(node: int, parent: int | None, *, on_path: bool, energy: float | None, log_prob: float | None,
         closed: bool = False, theorem: str = "t") -> TrajectoryRecord:
    return TrajectoryRecord(theorem=theorem, statement_sha="sha", node_id=node, parent_id=parent, state=f"s{node}",
                            tactic=None if parent is None else f"tac{node}", depth=0 if parent is None else 1,
                            label=POSITIVE if on_path else NEGATIVE, log_prob=log_prob, energy=energy,
                            proof_complete=closed, backend="embedded", timestamp=NOW)


def _tree(energies: tuple[float, float, float]) -> list[TrajectoryRecord]:
    """root → {1 (path), 2, 3}; 1 → {4 closed (path), 5}. The policy prefers 2 over 1 at the root."""
    e1, e2, e3 = energies
    return [
        _row(0, None, on_path=True, energy=0.0, log_prob=None),
        _row(1, 0, on_path=True, energy=e1, log_prob=-1.0),
        _row(2, 0, on_path=False, energy=e2, log_prob=-0.5),
        _row(3, 0, on_path=False, energy=e3, log_prob=-3.0),
        _row(4, 1, on_path=True, energy=None, log_prob=-0.1, closed=True),
        _row(5, 1, on_path=False, energy=0.0, log_prob=-0.2),
    ]


def test_a_head_that_puts_the_path_first_scores_one_and_the_policy_is_measured_beside_it() -> None:
    quality = ranking_quality([_tree((-1.0, 2.0, 3.0))])
    # positives: node 1 (root and the closed node 4 are left out); negatives: 2, 3, 5
    assert (quality.theorems, quality.positives, quality.negatives) == (1, 1, 3)
    assert quality.head is not None and quality.head.auc == 1.0 and quality.head.top1 == 1.0
    # the policy (cumulative log-prob): node 1 (−1.0) beats 3 (−3.0) and 5 (−1.0 − 0.2), not 2 (−0.5)
    assert quality.policy.pairs == 3 and quality.policy.wins == 2.0
    assert quality.policy.top1 == 0.0 and quality.policy.groups == 1


def test_ties_count_one_half_and_unproved_searches_are_skipped() -> None:
    tied = _tree((1.0, 1.0, 1.0))
    unproved = [r.model_copy(update={"label": NEGATIVE}) for r in _tree((5.0, -5.0, -5.0))]
    quality = ranking_quality([tied, unproved])
    assert quality.theorems == 1
    assert quality.head is not None and quality.head.pairs == 3
    # node 5 (energy 0.0) ranks above node 1 (energy 1.0); 2 and 3 tie with it
    assert quality.head.wins == pytest.approx(1.0) and quality.head.top1 == 0.0


def test_without_energies_there_is_no_head_and_merging_sums_the_counts() -> None:
    plain = [r.model_copy(update={"energy": None}) for r in _tree((0.0, 0.0, 0.0))]
    quality = ranking_quality([plain])
    assert quality.head is None and quality.policy.pairs == 3
    merged = merge_ranking([quality, ranking_quality([_tree((-1.0, 2.0, 3.0))])])
    assert merged.theorems == 2 and merged.policy.pairs == 6
    assert merged.head is not None and merged.head.pairs == 3 and merged.head.auc == 1.0


def test_an_eval_report_carries_the_ranking_and_the_node_budget_share() -> None:
    stats = SearchStats(nodes_expanded=3)
    theorem = Theorem(name="t", statement="theorem t : True")
    other = Theorem(name="u", statement="theorem u : True")
    third = Theorem(name="v", statement="theorem v : 1 = 1")
    results = [
        SearchResult(theorem=theorem, proved=True, proof=["tac1", "tac4"], stats=stats,
                     records=_tree((-1.0, 2.0, 3.0)), backend="embedded", reason="proved"),
        SearchResult(theorem=other, proved=False, stats=stats, backend="embedded", reason="node_budget"),
        SearchResult(theorem=third, proved=False, stats=stats, backend="embedded", reason="exhausted"),
    ]
    report = report_from_results(results, label="with_ebm", backend="embedded", search=SearchConfig(), policy="p")
    assert report.node_budget_share == 0.5 and report.exhausted_share == 0.5
    assert report.ranking is not None and report.ranking.head is not None and report.ranking.head.auc == 1.0
