"""The arithmetic statement families of the soundness campaign: the oracle proves their
statements false, none is accepted, and attempts are counted per family."""

from __future__ import annotations

import random

import pytest

from burnqed.embedded.soundness.campaign import falsified, run_campaign
from burnqed.embedded.soundness.families import FAMILY_TEMPLATES, family_statements


@pytest.mark.parametrize("name", sorted(FAMILY_TEMPLATES))
def test_each_family_draws_distinct_false_statements(name: str) -> None:
    got = family_statements(name, random.Random(4), 30, falsified)
    assert len(got) == len(set(got)) >= 25
    assert all(falsified(s) is True for s in got)


def test_the_issue_24_statements_are_in_the_zero_divisor_family() -> None:
    got = set(family_statements("dvd_zero", random.Random(0), 400, falsified))
    assert any(s.startswith("(0 : ℤ) ∣") for s in got)
    assert any("x * 0 ∣" in s for s in got)
    assert any("((n - n : ℕ) : ℤ) ∣" in s for s in got)
    assert any("x = 0 → x ∣" in s for s in got)


def test_a_small_family_run_accepts_nothing_and_counts_per_family() -> None:
    # no true sources: with per_source=0 they would only add the alpha-renaming checks, which this
    # test does not assert on (test_soundness_campaign does); the families alone are the campaign here
    tally = run_campaign([], seed=5, per_source=0, workers=1, per_family=4)
    for name in FAMILY_TEMPLATES:
        assert tally.attempts[f"family:{name}"] > 0
    assert tally.false_accepted == []
