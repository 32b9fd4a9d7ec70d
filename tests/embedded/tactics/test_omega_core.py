"""omega's certificate search starts from the hypotheses of z3's unsat core (the facts the
decision used), then all of them: a redundant congruence no longer spends the search's
cut budget. The kernel still checks the certificate; the bounds are counts."""

from __future__ import annotations

from tests.embedded.verdict import verdict

HEADER = (
    "theorem t (a b : ℕ) (h₀ : 0 < a ∧ 0 < b ∧ b ≤ a) (h₁ : (a + b) % 10 = 2) "
    "(h₂ : (2 * a + b) % 10 = 1) (h₃ : a % 10 = 9)"
)


def test_omega_with_a_redundant_congruence() -> None:
    # mathd_numbertheory_110's step: before, the search over all four facts ran out of cuts
    assert verdict(HEADER + " : b % 10 = 3", "omega") == "accepted"


def test_omega_core_false_goal_refused() -> None:
    assert verdict(HEADER + " : b % 10 = 4", "omega") != "accepted"


def test_omega_core_is_deterministic() -> None:
    assert {verdict(HEADER + " : b % 10 = 3", "omega") for _ in range(2)} == {"accepted"}
