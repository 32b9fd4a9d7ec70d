"""The one paired comparison: evaluation B against evaluation A on the same statements.

Every "A against B" in burnqed is this module: ``burnqed compare`` (two eval reports),
``burnqed report`` (an iteration against iteration 0, with against without the energy head,
pooled over seeds) and the stats tool ``compare_iterations`` the coordinator agent reads.
Pure Python, no scipy.

Two evaluations of the same statements are paired: each statement is solved or not by A (the
baseline) and by B (the candidate). What tells them apart are the discordant statements:
``b`` solved only by A, ``c`` solved only by B.

- ``mcnemar_exact(b, c)``: the two-sided exact McNemar test, i.e. a binomial test of
  ``min(b, c)`` out of ``b + c`` at p = 1/2 (p = 1 when there is no discordant pair).
- ``paired_bootstrap(a, b)``: the difference in solve rate, B − A, with a percentile
  interval from resampling statements (both outcomes of a statement travel together;
  each resample is drawn as its multinomial counts, see ``_bootstrap_mean``).
- ``pair_reports(report_a, report_b)`` / ``pair_outcomes(a, b)``: line two evaluations up by
  statement name as ``PairedOutcomes``; ``compare_pairs`` turns them into a
  ``PairedComparison``, and ``compare_reports`` does both for two ``EvalReport``s.
  Statements ``outside_fragment`` (the checker cannot express them; never searched) are
  left out and counted; ``time_limit`` outcomes stay in (unsolved at this budget) but are
  counted apart, because a wall-clock limit depends on the machine's load rather than on
  the policy alone. Strict pairing (the default) refuses two reports of different
  statements; ``common_only`` pairs the statements both hold and counts the rest.

Seeds pooled (``pool_pairs``): several runs that evaluated the *same* statements give
several pairs per statement, which are not independent (one statement, one difficulty). The
pooled sample therefore keeps each statement as one cluster: the difference is the mean over
all pairs (each statement weighted by its pairs), the interval is a **cluster bootstrap**
(statements are resampled, each with every seed's outcomes), and the p-value is the exact
**paired sign-flip (permutation) test** on the per-statement sums of differences
(``signflip_exact``): under "no difference" A and B are exchangeable within a statement, so
each statement's sum flips sign with probability 1/2. With one pair per statement (one seed,
or seeds on disjoint statements, which are independent and simply concatenate) it is exactly
McNemar's test. A ``PairedComparison`` names its test in ``test``.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, exp, lgamma, log, log1p

from pydantic import BaseModel, ConfigDict, Field

from burnqed.search.evaluation import EvalReport

__all__ = [
    "ComparisonError",
    "PairedComparison",
    "PairedOutcomes",
    "StatementSetMismatch",
    "bootstrap_rate",
    "compare_pairs",
    "compare_reports",
    "mcnemar_exact",
    "pair_outcomes",
    "pair_reports",
    "paired_bootstrap",
    "pool_pairs",
    "signflip_exact",
]


class ComparisonError(Exception):
    """Two evaluations cannot be compared (nothing left to pair, or their statements differ)."""


class StatementSetMismatch(ComparisonError):
    """Two evaluation reports cannot be paired: their statements differ."""

    def __init__(self, baseline: str, candidate: str, only_a: list[str], only_b: list[str], changed: list[str]) -> None:
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} only in {baseline} (e.g. {only_a[0]})")
        if only_b:
            parts.append(f"{len(only_b)} only in {candidate} (e.g. {only_b[0]})")
        if changed:
            parts.append(f"{len(changed)} with a different statement under the same name (e.g. {changed[0]})")
        super().__init__(f"cannot pair {baseline} with {candidate}: " + "; ".join(parts))
        self.only_a = only_a
        self.only_b = only_b
        self.changed = changed


# outcomes that are not the policy failing: a worker died, an error, an interrupted run
_INFRASTRUCTURE = ("lost", "error", "cancelled")


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` pairs solved only by A and ``c`` only by B.

    p = min(1, 2 · P[X ≤ min(b, c)]) with X ~ Binomial(b + c, 1/2), computed exactly.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be ≥ 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between order statistics."""
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class _Binomial:
    """Draws from Binomial(N, p) by inverting its CDF; one table per (N, p), built once."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tables: dict[tuple[int, float], list[float]] = {}

    def draw(self, trials: int, p: float) -> int:
        if trials == 0 or p <= 0.0:
            return 0
        if p >= 1.0:
            return trials
        cdf = self.tables.get((trials, p))
        if cdf is None:
            log_p, log_q = log(p), log1p(-p)
            head = lgamma(trials + 1)
            total = 0.0
            cdf = []
            for k in range(trials + 1):
                total += exp(head - lgamma(k + 1) - lgamma(trials - k + 1) + k * log_p + (trials - k) * log_q)
                cdf.append(total)
            self.tables[(trials, p)] = cdf
        return min(bisect_left(cdf, self.rng.random() * cdf[-1]), trials)


def _bootstrap_mean(values: Sequence[int], resamples: int, seed: int, level: float) -> tuple[float, float, float]:
    """Mean of ``values`` and the percentile interval of the means of resamples with replacement."""
    return _bootstrap_clusters([(v, 1) for v in values], resamples, seed, level)


def _bootstrap_clusters(
    clusters: Sequence[tuple[int, int]], resamples: int, seed: int, level: float
) -> tuple[float, float, float]:
    """Ratio Σ sums / Σ sizes over clusters (sum, size), and its percentile cluster-bootstrap interval.

    Each resample draws ``len(clusters)`` clusters with replacement (a statement keeps every
    seed's outcomes). A resample is, in distribution, its multinomial counts of each distinct
    (sum, size); they are drawn as successive binomials (kind 1 of n, kind 2 of the rest, …),
    the same bootstrap as drawing n indices at a cost per resample that does not grow with n
    (the clusters take a handful of distinct values here). With every size 1 this is the
    plain bootstrap of the mean, draw for draw.
    """
    n = len(clusters)
    if n == 0:
        raise ValueError("nothing to resample: no statements")
    if resamples < 1:
        raise ValueError(f"resamples must be ≥ 1, got {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if any(size < 1 for _, size in clusters):
        raise ValueError("every cluster needs at least one outcome")
    ratio = sum(v for v, _ in clusters) / sum(m for _, m in clusters)
    counts = sorted(Counter(clusters).items())
    if len(counts) == 1:
        return ratio, ratio, ratio  # every resample has the same ratio
    binomial = _Binomial(random.Random(seed))
    ratios = []
    for _ in range(resamples):
        left, remaining, total, size = n, n, 0, 0
        for (value, m), count in counts[:-1]:
            drawn = binomial.draw(left, count / remaining)
            total += value * drawn
            size += m * drawn
            left -= drawn
            remaining -= count
        (value, m), _ = counts[-1]
        total += value * left
        size += m * left
        ratios.append(total / size)
    ratios.sort()
    alpha = (1 - level) / 2
    return ratio, _quantile(ratios, alpha), _quantile(ratios, 1 - alpha)


def signflip_exact(sums: Sequence[int]) -> float:
    """Two-sided exact sign-flip p-value of per-statement sums of differences (B − A).

    Under "no difference" each statement's sum is as likely to be +s as −s; the p-value is
    P[|Σ ±s_k| ≥ |Σ s_k|] over all 2^K sign vectors, counted exactly by dynamic programming
    on the (integer) totals. Statements with sum 0 do not move the total. With every sum in
    {−1, 0, +1} this is the exact McNemar test.
    """
    observed = abs(sum(sums))
    ways: dict[int, int] = {0: 1}
    flips = 0
    for s in sums:
        if s == 0:
            continue
        flips += 1
        step: dict[int, int] = {}
        for total, count in ways.items():
            for moved in (total + s, total - s):
                step[moved] = step.get(moved, 0) + count
        ways = step
    if flips == 0:
        return 1.0
    extreme = sum(count for total, count in ways.items() if abs(total) >= observed)
    return float(min(Fraction(1), Fraction(extreme, 2**flips)))


def paired_bootstrap(
    a: Sequence[bool], b: Sequence[bool], *, resamples: int = 10000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """Difference in solve rate (B − A, a fraction) and its percentile bootstrap interval.

    ``a[i]`` and ``b[i]`` are one statement's outcomes; each resample draws ``len(a)``
    statements with replacement and keeps both outcomes of each, so the interval accounts
    for the pairing. Deterministic for a given ``seed``.
    """
    if len(a) != len(b):
        raise ValueError(f"paired outcomes differ in length: {len(a)} vs {len(b)}")
    return _bootstrap_mean([int(y) - int(x) for x, y in zip(a, b, strict=True)], resamples, seed, level)


def bootstrap_rate(
    solved: Sequence[bool],
    *,
    resamples: int = 10000,
    seed: int = 0,
    level: float = 0.95,
    clusters: Sequence[str] | None = None,
) -> tuple[float, float, float]:
    """Solve rate of one evaluation and its percentile bootstrap interval (fractions).

    ``clusters`` (the statement of each outcome, when seeds are pooled): resample statements,
    each with all of its outcomes, rather than outcomes.
    """
    if clusters is None:
        return _bootstrap_mean([int(x) for x in solved], resamples, seed, level)
    return _bootstrap_clusters(_cluster_sums([int(x) for x in solved], clusters), resamples, seed, level)


def _cluster_sums(values: Sequence[int], clusters: Sequence[str]) -> list[tuple[int, int]]:
    """(sum, size) of the values of each cluster, in first-seen order."""
    if len(values) != len(clusters):
        raise ValueError(f"{len(values)} outcomes but {len(clusters)} cluster labels")
    grouped: dict[str, list[int]] = {}
    for value, label in zip(values, clusters, strict=True):
        grouped.setdefault(label, [0, 0])
        grouped[label][0] += value
        grouped[label][1] += 1
    return [(total, size) for total, size in grouped.values()]


@dataclass(frozen=True)
class PairedOutcomes:
    """Two evaluations lined up statement by statement (statements outside the fragment removed)."""

    baseline: str
    candidate: str
    a: tuple[bool, ...]
    b: tuple[bool, ...]
    names: tuple[str, ...] | None = None  # the statement of each pair; None once seeds are pooled
    # pooled seeds: the statement (cluster) of each pair; pairs of one statement are resampled together
    clusters: tuple[str, ...] | None = None
    outside_fragment: int = 0
    not_paired: int = 0
    time_limit_a: int = 0
    time_limit_b: int = 0
    infrastructure_a: int = 0
    infrastructure_b: int = 0


class PairedComparison(BaseModel):
    """Candidate B against baseline A on the same statements."""

    model_config = ConfigDict(frozen=True)

    baseline: str = Field(description="label of A")
    candidate: str = Field(description="label of B")
    n: int = Field(description="statements compared (outside_fragment left out)")
    rate_a: float = Field(description="A's solve rate on the n statements")
    rate_b: float = Field(description="B's solve rate on the n statements")
    diff_points: float = Field(description="100 · (rate_b − rate_a)")
    ci_lo: float = Field(description="lower end of the paired bootstrap interval, in points")
    ci_hi: float = Field(description="upper end of the paired bootstrap interval, in points")
    level: float = Field(default=0.95, description="coverage of the interval")
    b: int = Field(description="statements solved by A only")
    c: int = Field(description="statements solved by B only")
    p_value: float = Field(description="two-sided p-value of the test named in ``test``")
    test: str = Field(default="McNemar exact", description="the test behind p_value (and the interval's resampling)")
    statements: int | None = Field(
        default=None, description="distinct statements (clusters) when seeds are pooled; n counts the pairs"
    )
    outside_fragment: int = Field(default=0, description="statements left out: the checker cannot express them")
    not_paired: int = Field(
        default=0, description="statements left out because only one side has them (or a different statement)"
    )
    time_limit_a: int = Field(default=0, description="A's outcomes that ran out of wall-clock time (counted unsolved)")
    time_limit_b: int = Field(default=0, description="B's outcomes that ran out of wall-clock time (counted unsolved)")
    infrastructure_a: int = Field(default=0, description="A's outcomes lost, errored or cancelled (counted unsolved)")
    infrastructure_b: int = Field(default=0, description="B's outcomes lost, errored or cancelled (counted unsolved)")
    only_a: list[str] | None = Field(default=None, description="the b statements solved by A only, by name")
    only_b: list[str] | None = Field(default=None, description="the c statements solved by B only, by name")

    def without_names(self) -> PairedComparison:
        """The same comparison with counts, rates, interval and p-value only (no statement names)."""
        return self.model_copy(update={"only_a": None, "only_b": None})

    def summary(self) -> str:
        """One line: rates, difference with its interval, discordant counts and p-value."""
        return (
            f"{self.candidate} {self.rate_b:.1%} vs {self.baseline} {self.rate_a:.1%} on {self.n}: "
            f"{self.diff_points:+.1f} points [{self.ci_lo:+.1f}, {self.ci_hi:+.1f}] ({self.level:.0%}), "
            f"{self.b} only {self.baseline} / {self.c} only {self.candidate}, {self.test} p={self.p_value:.3g}"
        )


def pair_reports(
    report_a: EvalReport,
    report_b: EvalReport,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    common_only: bool = False,
) -> PairedOutcomes:
    """Line two reports up by theorem name (in A's order).

    Strict (the default): StatementSetMismatch unless they cover the same statements, by name
    and statement hash. ``common_only``: pair the statements both hold unchanged and count the
    others in ``not_paired``.
    """
    name_a = baseline or report_a.label
    name_b = candidate or report_b.label
    by_a = {o.name: o for o in report_a.outcomes}
    by_b = {o.name: o for o in report_b.outcomes}
    only_a = sorted(set(by_a) - set(by_b))
    only_b = sorted(set(by_b) - set(by_a))
    changed = sorted(n for n in set(by_a) & set(by_b) if by_a[n].statement_sha != by_b[n].statement_sha)
    if (only_a or only_b or changed) and not common_only:
        raise StatementSetMismatch(name_a, name_b, only_a, only_b, changed)
    left_out = {*only_a, *changed}
    names = [o.name for o in report_a.outcomes if o.name not in left_out]
    outside = {n for n in names if "outside_fragment" in (by_a[n].reason, by_b[n].reason)}
    kept = [n for n in names if n not in outside]
    return PairedOutcomes(
        baseline=name_a,
        candidate=name_b,
        a=tuple(by_a[n].proved for n in kept),
        b=tuple(by_b[n].proved for n in kept),
        names=tuple(kept),
        outside_fragment=len(outside),
        not_paired=len(only_a) + len(only_b) + len(changed),
        time_limit_a=sum(by_a[n].reason == "time_limit" for n in kept),
        time_limit_b=sum(by_b[n].reason == "time_limit" for n in kept),
        infrastructure_a=sum(by_a[n].reason in _INFRASTRUCTURE for n in kept),
        infrastructure_b=sum(by_b[n].reason in _INFRASTRUCTURE for n in kept),
    )


def pair_outcomes(a: Mapping[str, bool], b: Mapping[str, bool], *, baseline: str, candidate: str) -> PairedOutcomes:
    """Line up two name → solved maps on the names both hold (sorted); the rest count in ``not_paired``."""
    common = sorted(set(a) & set(b))
    return PairedOutcomes(
        baseline=baseline,
        candidate=candidate,
        a=tuple(a[n] for n in common),
        b=tuple(b[n] for n in common),
        names=tuple(common),
        not_paired=len(set(a) ^ set(b)),
    )


def pool_pairs(parts: Sequence[PairedOutcomes], *, baseline: str, candidate: str) -> PairedOutcomes:
    """The pairs of several runs (seeds), each pair labelled with its statement (its cluster).

    Pairs of the same statement name in several runs form one cluster (``compare_pairs``
    then resamples and tests statements, not pairs); statements only one run holds are
    clusters of one, so seeds on disjoint statements simply concatenate. Pairs without
    names are labelled by run and position (independent).
    """
    clusters = tuple(
        label
        for k, p in enumerate(parts)
        for label in (p.names if p.names is not None else (f"#{k}:{i}" for i in range(len(p.a))))
    )
    return PairedOutcomes(
        baseline=baseline,
        candidate=candidate,
        a=tuple(x for p in parts for x in p.a),
        b=tuple(x for p in parts for x in p.b),
        clusters=clusters,
        outside_fragment=sum(p.outside_fragment for p in parts),
        not_paired=sum(p.not_paired for p in parts),
        time_limit_a=sum(p.time_limit_a for p in parts),
        time_limit_b=sum(p.time_limit_b for p in parts),
        infrastructure_a=sum(p.infrastructure_a for p in parts),
        infrastructure_b=sum(p.infrastructure_b for p in parts),
    )


def compare_pairs(
    pairs: PairedOutcomes, *, resamples: int = 10000, seed: int = 0, level: float = 0.95
) -> PairedComparison:
    """Rates, paired bootstrap interval and McNemar p-value of lined-up outcomes (ComparisonError if none)."""
    n = len(pairs.a)
    if n == 0:
        raise ComparisonError(
            f"cannot compare {pairs.baseline} with {pairs.candidate}: no statement inside the fragment"
            + (f" ({pairs.not_paired} in only one of them)" if pairs.not_paired else "")
        )
    b = sum(x and not y for x, y in zip(pairs.a, pairs.b, strict=True))
    c = sum(y and not x for x, y in zip(pairs.a, pairs.b, strict=True))
    differences = [int(y) - int(x) for x, y in zip(pairs.a, pairs.b, strict=True)]
    sums = _cluster_sums(differences, pairs.clusters) if pairs.clusters is not None else None
    if sums is not None and len(sums) < n:  # some statement holds pairs of several seeds
        diff, lo, hi = _bootstrap_clusters(sums, resamples, seed, level)
        p_value, test, statements = signflip_exact([s for s, _ in sums]), "sign-flip exact, by statement", len(sums)
    else:
        diff, lo, hi = paired_bootstrap(pairs.a, pairs.b, resamples=resamples, seed=seed, level=level)
        p_value, test, statements = mcnemar_exact(b, c), "McNemar exact", None
    names = pairs.names
    return PairedComparison(
        baseline=pairs.baseline,
        candidate=pairs.candidate,
        n=n,
        rate_a=sum(pairs.a) / n,
        rate_b=sum(pairs.b) / n,
        diff_points=100 * diff,
        ci_lo=100 * lo,
        ci_hi=100 * hi,
        level=level,
        b=b,
        c=c,
        p_value=p_value,
        test=test,
        statements=statements,
        outside_fragment=pairs.outside_fragment,
        not_paired=pairs.not_paired,
        time_limit_a=pairs.time_limit_a,
        time_limit_b=pairs.time_limit_b,
        infrastructure_a=pairs.infrastructure_a,
        infrastructure_b=pairs.infrastructure_b,
        only_a=None if names is None else [n for n, x, y in zip(names, pairs.a, pairs.b, strict=True) if x and not y],
        only_b=None if names is None else [n for n, x, y in zip(names, pairs.a, pairs.b, strict=True) if y and not x],
    )


def compare_reports(
    report_a: EvalReport,
    report_b: EvalReport,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    common_only: bool = False,
    resamples: int = 10000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedComparison:
    """Compare report B (candidate) with report A (baseline) statement by statement.

    Raises StatementSetMismatch when the two reports do not cover the same statements (by
    name and statement hash) unless ``common_only``, and ComparisonError when no statement
    is left to compare.
    """
    pairs = pair_reports(report_a, report_b, baseline=baseline, candidate=candidate, common_only=common_only)
    return compare_pairs(pairs, resamples=resamples, seed=seed, level=level)
