"""A tactic's term may start on the next line when that line is indented past the tactic
(Lean's tokens skip newlines; only the block's `checkColGe` starts the next tactic:
`sepByIndent`, lean4 src/Lean/Parser/Extra.lean)."""

from __future__ import annotations

from tests.embedded.verdict import verdict

HEADER = "theorem t (n : ℕ) (h : 3 ∣ n ^ 3 + 2 * n) (step : ∀ k, 3 ∣ k ^ 3 + 2 * k → 3 ∣ (k + 1) ^ 3 + 2 * (k + 1))"


def test_simpa_using_term_on_next_line() -> None:
    body = "simpa using\n  step n h"
    assert verdict(HEADER + " : 3 ∣ (n + 1) ^ 3 + 2 * (n + 1)", body) == "accepted"


def test_exact_term_on_next_line() -> None:
    assert verdict(HEADER + " : 3 ∣ (n + 1) ^ 3 + 2 * (n + 1)", "exact\n  step n h") == "accepted"


def test_next_line_term_still_checked() -> None:
    assert verdict(HEADER + " : 3 ∣ (n + 2) ^ 3 + 2 * (n + 2)", "simpa using\n  step n h") != "accepted"


def test_line_at_the_tactic_column_is_the_next_tactic() -> None:
    # `using` with nothing after it on its line, the next line at the block's column: no term
    got = verdict(HEADER + " : 3 ∣ (n + 1) ^ 3 + 2 * (n + 1)", "simpa using\nstep n h")
    assert got != "accepted"


def test_by_block_starting_on_the_next_line() -> None:
    # a `by` that ends its line: the block is the following lines indented at least as far as
    # its first tactic (mathd_numbertheory_175's `show … by` ⏎ `norm_num [...]` in a rule list)
    body = "norm_num [show 2 ^ 10 % 10 = 4 by\n    norm_num]"
    assert verdict("theorem t : 2 ^ 10 % 10 = 4", body) == "accepted"
    bad = "norm_num [show 2 ^ 10 % 10 = 5 by\n    norm_num]"
    assert verdict("theorem t : 2 ^ 10 % 10 = 5", bad) != "accepted"
    assert verdict("theorem t (x : ℕ) (h : x = 1) : x + 1 = 2", "have h2 : x = 1 :=\n  by\n    exact h\nomega") == "accepted"
