"""The one paired comparison: exact McNemar, paired bootstrap, and the pairing of two evaluations."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb, sqrt

import pytest

from burnqed.search.comparison import (
    ComparisonError,
    PairedOutcomes,
    StatementSetMismatch,
    bootstrap_rate,
    compare_pairs,
    compare_reports,
    mcnemar_exact,
    pair_outcomes,
    pair_reports,
    paired_bootstrap,
    pool_pairs,
    signflip_exact,
)
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import EvalReport, TheoremOutcome
from burnqed.search.results import SearchStats


def _binomial_two_sided(b: int, c: int) -> float:
    """The reference: 2 · P[X ≤ min(b, c)], X ~ Binomial(b + c, 1/2), summed term by term, capped at 1."""
    n = b + c
    tail = sum(Fraction(comb(n, i), 2**n) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), 2 * tail))


def test_mcnemar_known_values() -> None:
    assert mcnemar_exact(0, 6) == pytest.approx(0.03125)
    assert mcnemar_exact(6, 0) == pytest.approx(0.03125)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)  # 2·(1 + 10)/2^10
    assert mcnemar_exact(2, 8) == pytest.approx(0.109375)


@pytest.mark.parametrize("k", [1, 2, 5, 17, 40])
def test_mcnemar_is_one_when_discordant_pairs_balance(k: int) -> None:
    assert mcnemar_exact(k, k) == 1.0


@pytest.mark.parametrize(("b", "c"), [(0, 1), (3, 7), (10, 25), (31, 18), (100, 130), (4, 5)])
def test_mcnemar_matches_a_direct_binomial_sum(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(_binomial_two_sided(b, c), rel=1e-12)
    assert mcnemar_exact(b, c) == mcnemar_exact(c, b)


def test_mcnemar_refuses_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def _paired_sample(n: int, p_a: float, p_b: float, seed: int) -> tuple[list[bool], list[bool]]:
    rng = random.Random(seed)
    a, b = [], []
    for _ in range(n):
        u = rng.random()  # correlated outcomes: both read the same uniform
        a.append(u < p_a)
        b.append(u < p_b)
    return a, b


def test_bootstrap_is_deterministic_under_its_seed() -> None:
    a, b = _paired_sample(200, 0.5, 0.6, seed=1)
    first = paired_bootstrap(a, b, resamples=2000, seed=7)
    assert paired_bootstrap(a, b, resamples=2000, seed=7) == first
    # with many resamples the ends sit on the same points of the 1/n grid whatever the seed;
    # with few, the seed shows
    assert len({paired_bootstrap(a, b, resamples=20, seed=s) for s in range(6)}) > 1


def test_bootstrap_interval_contains_the_observed_and_the_true_difference() -> None:
    a, b = _paired_sample(400, 0.5, 0.6, seed=3)
    diff, lo, hi = paired_bootstrap(a, b, resamples=4000, seed=0)
    assert diff == pytest.approx((sum(b) - sum(a)) / 400)
    assert lo < diff < hi
    assert lo < 0.1 < hi  # the population difference


def test_bootstrap_interval_covers_the_true_difference_in_most_samples() -> None:
    covered = 0
    for seed in range(20):
        a, b = _paired_sample(150, 0.55, 0.65, seed=100 + seed)
        _, lo, hi = paired_bootstrap(a, b, resamples=800, seed=seed)
        covered += lo <= 0.1 <= hi
    assert covered >= 17  # 95% nominal: 19 expected


def test_bootstrap_interval_matches_the_normal_approximation() -> None:
    a, b = _paired_sample(600, 0.4, 0.5, seed=5)
    n = len(a)
    d = [int(y) - int(x) for x, y in zip(a, b)]
    mean = sum(d) / n
    se = sqrt(sum((x - mean) ** 2 for x in d) / n / n)
    _, lo, hi = paired_bootstrap(a, b, resamples=5000, seed=1)
    assert lo == pytest.approx(mean - 1.96 * se, abs=0.01)
    assert hi == pytest.approx(mean + 1.96 * se, abs=0.01)


def test_bootstrap_agrees_with_resampling_indices_directly() -> None:
    """The multinomial draw is the same bootstrap as drawing n statement indices with replacement."""
    a, b = _paired_sample(250, 0.45, 0.55, seed=9)
    d = [int(y) - int(x) for x, y in zip(a, b)]
    rng = random.Random(4)
    naive = sorted(sum(rng.choices(d, k=len(d))) / len(d) for _ in range(4000))
    _, lo, hi = paired_bootstrap(a, b, resamples=4000, seed=2)
    assert lo == pytest.approx(naive[int(0.025 * 3999)], abs=0.008)
    assert hi == pytest.approx(naive[int(0.975 * 3999)], abs=0.008)
    _, rate_lo, rate_hi = bootstrap_rate(b, resamples=4000, seed=2)
    naive_rate = sorted(sum(rng.choices(b, k=len(b))) / len(b) for _ in range(4000))
    assert rate_lo == pytest.approx(naive_rate[int(0.025 * 3999)], abs=0.01)
    assert rate_hi == pytest.approx(naive_rate[int(0.975 * 3999)], abs=0.01)


def test_bootstrap_without_discordant_pairs_is_a_point() -> None:
    assert paired_bootstrap([True, False, True], [True, False, True]) == (0.0, 0.0, 0.0)
    assert bootstrap_rate([True, True]) == (1.0, 1.0, 1.0)


def test_bootstrap_refuses_unpaired_or_empty_input() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([True], [True, False])
    with pytest.raises(ValueError):
        paired_bootstrap([], [])
    with pytest.raises(ValueError):
        paired_bootstrap([True, False], [False, True], level=1.0)


def _report(label: str, outcomes: dict[str, str], sha: dict[str, str] | None = None) -> EvalReport:
    """An EvalReport whose outcomes are name → reason ("proved", "exhausted", "time_limit", …)."""
    rows = [
        TheoremOutcome(name=name, statement_sha=(sha or {}).get(name, f"sha-{name}"), proved=reason == "proved",
                       nodes=1, wall_s=0.1, reason=reason)  # type: ignore[arg-type]
        for name, reason in outcomes.items()
    ]
    solved = sum(o.proved for o in rows)
    return EvalReport(label=label, backend="embedded", total=len(rows), solved=solved,
                      solve_rate=solved / len(rows), outcomes=rows, budget=SearchStats(), search=SearchConfig(),
                      policy="test")


def test_compare_reports_counts_discordant_statements_and_leaves_out_the_fragment() -> None:
    a = _report("A", {"t1": "proved", "t2": "proved", "t3": "exhausted", "t4": "time_limit", "t5": "outside_fragment",
                      "t6": "exhausted", "t7": "lost"})
    b = _report("B", {"t1": "proved", "t2": "exhausted", "t3": "proved", "t4": "proved", "t5": "outside_fragment",
                      "t6": "time_limit", "t7": "proved"})
    cmp = compare_reports(a, b, resamples=500)
    assert (cmp.baseline, cmp.candidate) == ("A", "B")
    assert cmp.n == 6 and cmp.outside_fragment == 1
    assert cmp.rate_a == pytest.approx(2 / 6) and cmp.rate_b == pytest.approx(4 / 6)
    assert cmp.diff_points == pytest.approx(100 * 2 / 6)
    assert (cmp.b, cmp.c) == (1, 3)
    assert cmp.p_value == pytest.approx(mcnemar_exact(1, 3)) == pytest.approx(0.625)
    assert cmp.ci_lo <= cmp.diff_points <= cmp.ci_hi
    assert (cmp.time_limit_a, cmp.time_limit_b) == (1, 1)
    assert (cmp.infrastructure_a, cmp.infrastructure_b) == (1, 0)
    assert cmp.only_a == ["t2"] and cmp.only_b == ["t3", "t4", "t7"] and cmp.not_paired == 0
    assert "only_a" not in cmp.without_names().model_dump(exclude_none=True)


def test_compare_reports_six_gains_and_no_losses_is_significant() -> None:
    names = [f"t{i}" for i in range(10)]
    a = _report("A", {n: "proved" if i < 3 else "exhausted" for i, n in enumerate(names)})
    b = _report("B", {n: "proved" if i < 9 else "exhausted" for i, n in enumerate(names)})
    cmp = compare_reports(a, b, baseline="iter_0", candidate="iter_1", resamples=1000)
    assert (cmp.baseline, cmp.candidate, cmp.b, cmp.c) == ("iter_0", "iter_1", 0, 6)
    assert cmp.p_value == pytest.approx(0.03125)
    assert cmp.diff_points == pytest.approx(60.0)


def test_compare_reports_refuses_different_statement_sets() -> None:
    a = _report("A", {"t1": "proved", "t2": "proved"})
    with pytest.raises(StatementSetMismatch, match="only in A") as info:
        compare_reports(a, _report("B", {"t1": "proved"}))
    assert info.value.only_a == ["t2"]
    with pytest.raises(StatementSetMismatch, match="different statement"):
        compare_reports(a, _report("B", {"t1": "proved", "t2": "proved"}, sha={"t2": "other"}))


def test_compare_reports_refuses_when_nothing_is_inside_the_fragment() -> None:
    a = _report("A", {"t1": "outside_fragment"})
    with pytest.raises(ComparisonError, match="no statement inside the fragment"):
        compare_reports(a, a)


def test_pooled_pairs_keep_each_statement_as_one_cluster() -> None:
    a = _report("A", {"t1": "proved", "t2": "exhausted"})
    b = _report("B", {"t1": "proved", "t2": "proved"})
    one = pair_reports(a, b)
    pooled = pool_pairs([one, one, one], baseline="A", candidate="B")
    assert pooled.a == one.a * 3 and pooled.b == one.b * 3
    assert pooled.clusters == ("t1", "t2") * 3


def _seeds_on_the_same_statements(copies: int) -> list:
    """``copies`` seeds that agree statement by statement: 40 statements, B gains 8, loses 2."""
    names = [f"s{i}" for i in range(40)]
    a = {n: i < 10 or 18 <= i < 20 for i, n in enumerate(names)}  # s18, s19: solved by A only
    b = {n: i < 18 for i, n in enumerate(names)}  # s10..s17: solved by B only
    one = pair_outcomes(a, b, baseline="A", candidate="B")
    return [one] * copies


def test_pooling_by_statement_does_not_narrow_the_interval_like_concatenation() -> None:
    single = compare_pairs(_seeds_on_the_same_statements(1)[0], resamples=4000)
    pooled = compare_pairs(pool_pairs(_seeds_on_the_same_statements(2), baseline="A", candidate="B"), resamples=4000)
    # naive: 80 "independent" pairs, what pooling used to do
    naive_pairs = pool_pairs(_seeds_on_the_same_statements(2), baseline="A", candidate="B")
    naive = compare_pairs(PairedOutcomes(baseline="A", candidate="B", a=naive_pairs.a, b=naive_pairs.b),
                          resamples=4000)
    assert pooled.diff_points == single.diff_points == naive.diff_points == 15.0
    # two identical seeds carry no more information than one: same interval, same p-value
    assert (pooled.ci_lo, pooled.ci_hi) == (single.ci_lo, single.ci_hi)
    assert pooled.p_value == pytest.approx(single.p_value) == pytest.approx(mcnemar_exact(2, 8))
    assert naive.ci_hi - naive.ci_lo < 0.8 * (pooled.ci_hi - pooled.ci_lo)  # concatenation: too narrow
    assert naive.p_value < pooled.p_value / 2  # and overconfident
    assert (pooled.n, pooled.statements, pooled.test) == (80, 40, "sign-flip exact, by statement")
    assert (naive.statements, naive.test) == (None, "McNemar exact")


def test_seeds_on_disjoint_statements_concatenate() -> None:
    first = pair_outcomes({"x1": False, "x2": True}, {"x1": True, "x2": True}, baseline="A", candidate="B")
    second = pair_outcomes({"y1": False, "y2": False}, {"y1": True, "y2": False}, baseline="A", candidate="B")
    pooled = compare_pairs(pool_pairs([first, second], baseline="A", candidate="B"), resamples=500)
    flat = compare_pairs(PairedOutcomes(baseline="A", candidate="B", a=(False, True, False, False),
                                        b=(True, True, True, False)), resamples=500)
    assert (pooled.diff_points, pooled.ci_lo, pooled.ci_hi, pooled.p_value) == (
        flat.diff_points, flat.ci_lo, flat.ci_hi, flat.p_value)
    assert pooled.test == "McNemar exact" and pooled.statements is None


def test_signflip_counts_every_sign_vector_exactly() -> None:
    # sums +2, +2, −1: totals over the 8 sign vectors: ±2±2±1 → |total| ≥ 3 in 4 of 8
    assert signflip_exact([2, 2, -1]) == 0.5
    assert signflip_exact([2, 2, 2]) == 0.25  # only all-plus or all-minus reach |6|
    assert signflip_exact([0, 0]) == 1.0
    for b, c in ((0, 5), (3, 9), (4, 4), (1, 12)):
        assert signflip_exact([-1] * b + [1] * c + [0] * 3) == pytest.approx(mcnemar_exact(b, c))


def test_pooled_rate_interval_resamples_statements() -> None:
    solved = [True, False, True, False] * 10
    labels = [f"s{i}" for i in range(20)] * 2  # the same 20 statements in two seeds
    rate, lo, hi = bootstrap_rate(solved[:20], resamples=2000)
    pooled = bootstrap_rate(solved[:20] * 2, resamples=2000, clusters=labels)
    assert pooled == (rate, lo, hi)
    assert bootstrap_rate(solved[:20] * 2, resamples=2000)[1] > lo  # concatenated: narrower


def test_common_only_pairs_what_both_reports_hold_and_counts_the_rest() -> None:
    a = _report("A", {"t1": "proved", "t2": "exhausted", "t3": "proved", "t4": "exhausted"})
    b = _report("B", {"t1": "proved", "t2": "proved", "t3": "proved", "t5": "proved"}, sha={"t3": "other"})
    cmp = compare_reports(a, b, common_only=True, resamples=200)
    # t1, t2 paired; t3 is another statement under the same name; t4 only in A, t5 only in B
    assert cmp.n == 2 and cmp.not_paired == 3
    assert (cmp.b, cmp.c, cmp.only_b) == (0, 1, ["t2"])
    with pytest.raises(ComparisonError, match="2 in only one of them"):
        compare_reports(_report("A", {"t1": "proved"}), _report("B", {"t2": "proved"}), common_only=True)


def test_pair_outcomes_lines_up_named_maps_on_their_common_names() -> None:
    pairs = pair_outcomes({"x": True, "y": False, "z": False}, {"y": True, "z": False, "w": True},
                          baseline="iter_0", candidate="iter_1")
    assert pairs.names == ("y", "z") and (pairs.a, pairs.b) == ((False, False), (True, False))
    assert pairs.not_paired == 2
    cmp = compare_pairs(pairs, resamples=200)
    assert (cmp.b, cmp.c, cmp.only_b) == (0, 1, ["y"]) and cmp.summary().startswith("iter_1 50.0% vs iter_0 0.0% on 2")
