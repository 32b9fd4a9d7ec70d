"""SearchStats: one statistics object, derived counts never stored twice, ``+`` for totals,
old JSON (with the derived names) still loads."""

from __future__ import annotations

import json

from burnqed.search.results import SearchStats


def test_derived_counts_follow_the_counters_and_are_written_to_json() -> None:
    stats = SearchStats(nodes_pruned=3, failed_tactics=4, tactic_timeouts=2)
    assert stats.nodes_failed == 6 and stats.children_seen == 3
    written = json.loads(stats.model_dump_json())
    assert written["nodes_failed"] == 6 and written["children_seen"] == 3


def test_an_old_file_with_the_derived_names_loads_with_them_recomputed() -> None:
    old = {"nodes_expanded": 5, "nodes_pruned": 2, "nodes_failed": 7, "children_seen": 2,
           "failed_tactics": 6, "tactic_timeouts": 1, "wall_s": 1.5}
    stats = SearchStats.model_validate(old)
    assert (stats.nodes_expanded, stats.nodes_failed, stats.children_seen) == (5, 7, 2)
    assert SearchStats.model_validate_json(stats.model_dump_json()) == stats


def test_plus_adds_counts_and_keeps_the_larger_peak() -> None:
    a = SearchStats(nodes_expanded=2, lean_s=1.0, peak_frontier=5, max_depth_reached=3, frontier_empty_at=2, attempts=1)
    b = SearchStats(nodes_expanded=3, lean_s=0.5, peak_frontier=4, max_depth_reached=7, attempts=2, corrections=1)
    total = a + b
    assert (total.nodes_expanded, total.lean_s, total.attempts, total.corrections) == (5, 1.5, 3, 1)
    assert (total.peak_frontier, total.max_depth_reached, total.frontier_empty_at) == (5, 7, None)
    assert SearchStats.total([a, b]) == total
    assert SearchStats.total([]).nodes_expanded == 0 and SearchStats.total([]).attempts == 0
