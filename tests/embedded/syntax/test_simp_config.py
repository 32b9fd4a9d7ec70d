"""``simp_all (config := {decide := true})`` parses (the option adds nothing the embedded simp
does not do with closed comparisons); every other simp configuration is refused."""

from __future__ import annotations

from tests.embedded.verdict import verdict

HEADER = "theorem t (n : ℕ) (h₀ : n ≤ 2) (h₁ : 3 ∣ 10 * n + 1) : n = 2"


def test_decide_config_accepted() -> None:
    assert verdict(HEADER, "interval_cases n <;> simp_all (config := {decide := true})") == "accepted"


def test_decide_config_false_goal_refused() -> None:
    bad = "theorem t (n : ℕ) (h₀ : n ≤ 2) (h₁ : 3 ∣ 10 * n + 2) : n = 2"
    assert verdict(bad, "interval_cases n <;> simp_all (config := {decide := true})") != "accepted"


def test_other_config_refused() -> None:
    got = verdict(HEADER, "interval_cases n <;> simp_all (config := {arith := true})")
    assert "configuration" in got
