"""The hostile-certificate campaign: its oracle is Lean's arithmetic, a small run accepts
no false sequent, and it has teeth (a kernel weakened the two ways issue 24 found is
caught)."""

from __future__ import annotations

import pytest

from burnqed.embedded import kernel as k
from burnqed.embedded.kernel import App, Entry, Free, Lit, Sequent
from burnqed.embedded.soundness import kernel_attacks as ka
from burnqed.embedded.soundness.lean_semantics import satisfiable, value

X, M = Free(1), Free(3)


@pytest.mark.parametrize(
    ("term", "want"),
    [
        (App("/", (Lit(-7, "Int"), Lit(2, "Int")), "Int"), -4),
        (App("%", (Lit(-7, "Int"), Lit(2, "Int")), "Int"), 1),
        (App("/", (Lit(7, "Int"), Lit(-2, "Int")), "Int"), -3),
        (App("%", (Lit(7, "Int"), Lit(-2, "Int")), "Int"), 1),
        (App("/", (Lit(-7, "Int"), Lit(-2, "Int")), "Int"), 4),
        (App("%", (Lit(-7, "Int"), Lit(0, "Int")), "Int"), -7),
        (App("/", (Lit(-7, "Int"), Lit(0, "Int")), "Int"), 0),
        (App("-", (Lit(2, "Nat"), Lit(5, "Nat")), "Nat"), 0),
        (App("^", (Lit(0, "Int"), Lit(0, "Nat")), "Int"), 1),
        (App("∣", (Lit(0, "Int"), Lit(-1, "Int")), "Prop"), False),
        (App("∣", (Lit(0, "Int"), Lit(0, "Int")), "Prop"), True),
        (App("∣", (Lit(-3, "Int"), Lit(6, "Int")), "Prop"), True),
    ],
)
def test_the_oracle_is_leans_arithmetic(term: k.Term, want: object) -> None:
    assert value(term, {}) == want


def test_satisfiable_finds_counterexamples_only_for_false_sequents() -> None:
    def seq(*hyps: k.Term) -> Sequent:
        return Sequent((Entry(1, "Int"), Entry(3, "Nat"), *(Entry(10 + i, h) for i, h in enumerate(hyps))), ka.FALSE)

    assert satisfiable(seq(App("<", (X, Lit(0, "Int")), "Prop"))) == {1: -3, 3: 0}
    assert satisfiable(seq(App("<", (M, Lit(0, "Nat")), "Prop"))) is None


def test_a_small_hostile_run_accepts_nothing_false() -> None:
    tally = ka.run_hostile(seed=3, count=600)
    assert sum(tally.attempts.values()) >= 600
    assert tally.false_sequents > 0 and tally.attempts["random"] > 0
    assert tally.false_accepted == []
    assert tally.refused == sum(tally.attempts.values())


def test_the_campaign_catches_a_kernel_that_trusts_certificate_atoms(monkeypatch: pytest.MonkeyPatch) -> None:
    def credulous(seq: Sequent, x: k.Term) -> str:
        return x.sort if isinstance(x, App) else k.sort_of(seq, x)

    monkeypatch.setattr(k.arith, "atom_sort", credulous)
    tally = ka.run_hostile(seed=1, count=1000)  # seed 1 catches it from 500 on
    assert tally.false_accepted


def test_the_campaign_catches_the_old_negated_divisibility(monkeypatch: pytest.MonkeyPatch) -> None:
    def old(a: k.Term, b: k.Term, kk: int, positive: bool, sort: str) -> object:
        r = k.poly(App("%", (b, a), sort))
        return k.Lin(r, True) if positive else k.Lin(r.add(k.Poly.const(-1)), False)

    monkeypatch.setattr(k.arith, "_dvd", old)
    tally = ka.run_hostile(seed=2, count=2000)  # seed 2 catches it from 1500 on
    assert tally.false_accepted
