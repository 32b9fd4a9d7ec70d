"""``<;>`` at the start of a line continues the innermost tactic whatever the line's column
(``t <;> t'`` is a trailing parser, lean4 src/Init/Tactics.lean; only a sequence's next item is
checked against the block's column)."""

from __future__ import annotations

from tests.embedded.verdict import verdict

HEADER = "theorem t (x y : ℕ) (h : x + y = 2 ∧ x = y) : x = 1 ∧ y = 1"


def test_then_line_at_outer_column_joins_the_all_goals_body() -> None:
    # `(all_goals constructor-less body) <;> omega` would run omega on the first goal only
    body = "refine ⟨?_, ?_⟩\nall_goals\n  obtain ⟨h1, h2⟩ := h\n<;>\nomega"
    assert verdict(HEADER, body) == "accepted"


def test_then_line_still_needs_a_true_goal() -> None:
    body = "refine ⟨?_, ?_⟩\nall_goals\n  obtain ⟨h1, h2⟩ := h\n<;>\nomega"
    assert verdict("theorem t (x y : ℕ) (h : x + y = 2 ∧ x = y) : x = 1 ∧ y = 2", body) != "accepted"


def test_then_at_block_column_continues_previous_tactic() -> None:
    assert verdict(HEADER, "constructor\n<;> omega") == "accepted"
