"""A certificate is untrusted input: every polynomial, atom, index and number in it is
checked by the kernel (issue 24's ill-sorted ``x / 2`` attack, and its relatives); proofs
and sequents that are malformed are refused with KernelError, never a crash."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify import Budget, _search, refutation
from burnqed.embedded.kernel import App, Entry, Free, KernelError, Lit, Poly, Proof, Sequent
from burnqed.embedded.soundness.kernel_attacks import _Credulous, _ill_atoms

X, M = Free(1), Free(3)
FALSE = App("False", (), "Prop")


def neg(p: k.Term) -> App:
    return App("→", (p, FALSE), "Prop")


def seq_of(*hyps: k.Term) -> Sequent:
    ctx = (Entry(1, "Int"), Entry(2, "Int"), Entry(3, "Nat"), Entry(4, "Nat"))
    return Sequent(ctx + tuple(Entry(100 + i, h) for i, h in enumerate(hyps)), FALSE)


def arith(seq: Sequent, cert: Any) -> Proof:
    hyps = tuple(k.Hyp(e.uid) for e in seq.ctx if not isinstance(e.ty, str))
    return k.Arith(hyps, cert)


def refused(seq: Sequent, cert: Any) -> str:
    with pytest.raises(KernelError) as exc:
        k.check(seq, arith(seq, cert), [])
    return str(exc.value)


def test_the_ill_sorted_atom_attack_of_issue_24_is_refused() -> None:
    """``∀ x : ℤ, 0 ≤ x`` by contradiction: with ``x / 2`` read as a Nat atom (≥ 0) over the
    Int ``x``, its defining facts give ``x = 2q + r ≥ 0``. The attack is real (a fact set
    that believes the atom refutes the sequent) and the kernel refuses it."""
    seq = seq_of(neg(App("≤", (Lit(0, "Int"), X), "Prop")))
    half = App("/", (X, Lit(2, "Nat")), "Nat")
    fs = _Credulous(seq)
    fs.add(k.nnf(seq.ctx[4].ty, True, seq))  # type: ignore[arg-type]
    p = Poly.atom(half)
    fs.add(k.Lin(p.mul(p), False))
    sub = _search(fs, frozenset(), Budget())
    assert sub is not None  # the credulous kernel would have accepted this
    assert "ill-sorted" in refused(seq, ("square", p, sub))
    assert "ill-sorted" in refused(seq, ("cut", p, -1, sub, sub))


def test_zero_divisor_statements_are_not_refuted() -> None:
    """``¬ (0 : ℤ) ∣ -1`` is true: the search finds no refutation of it and no certificate
    of the falsehood ``(0 : ℤ) ∣ -1`` exists (its negation is a satisfiable fact)."""
    dvd = App("∣", (Lit(0, "Int"), Lit(-1, "Int")), "Prop")
    assert refutation(seq_of(neg(dvd)), [neg(dvd)]) is None
    for zero in (App("*", (X, Lit(0, "Int")), "Int"), App("cast", (App("-", (M, M), "Nat"),), "Int")):
        d = App("∣", (zero, Lit(-1, "Int")), "Prop")
        assert refutation(seq_of(neg(d)), [neg(d)], nonlinear=True) is None


@pytest.mark.parametrize("atom", _ill_atoms(), ids=repr)
def test_every_ill_formed_atom_is_refused_in_a_square_and_a_cut(atom: k.Term) -> None:
    # a branch whose facts are already contradictory: only the atom check can refuse
    seq = seq_of(App("<", (Lit(1, "Int"), Lit(0, "Int")), "Prop"))
    p = Poly.atom(atom)
    refused(seq, ("square", p, ("false", 0)))
    refused(seq, ("cut", p, 0, ("false", 0), ("false", 0)))
    assert k.check(seq, arith(seq, ("false", 0)), []) is None


@pytest.mark.parametrize(
    "poly",
    [
        {((X, 0),): Fraction(1)},
        {((X, -1),): Fraction(1)},
        {((X, 65),): Fraction(1)},
        {((X, True),): Fraction(1)},
        {((X, 1),): 0.5},
        {((X, 1),): True},
        {((X, 1),): "1"},
        {((X, 1),): float("inf")},
        {(X,): Fraction(1)},
        {"x": Fraction(1)},
        [(((X, 1),), Fraction(1))],
    ],
    ids=repr,
)
def test_malformed_certificate_polynomials_are_refused(poly: Any) -> None:
    seq = seq_of(App("<", (Lit(1, "Int"), Lit(0, "Int")), "Prop"))
    refused(seq, ("square", poly, ("false", 0)))
    refused(seq, ("cut", poly, 0, ("false", 0), ("false", 0)))


def test_a_cut_needs_integer_coefficients_and_constant() -> None:
    seq = seq_of(App("<", (Lit(1, "Int"), Lit(0, "Int")), "Prop"))
    half = Poly({((X, 1),): Fraction(1, 2)})
    refused(seq, ("cut", half, 0, ("false", 0), ("false", 0)))
    for c in (Fraction(1, 2), 0.5, True, "0"):
        refused(seq, ("cut", Poly.atom(X), c, ("false", 0), ("false", 0)))


@pytest.mark.parametrize(
    "cert",
    [
        ("false", True),
        ("false", -1),
        ("false", 5),
        ("false", slice(0, 1)),
        ("false", 0, 0),
        ("farkas", ((0, 0.5),)),
        ("farkas", ((0, "1"),)),
        ("farkas", ((True, 1),)),
        ("farkas", [(0, 1)]),
        ("farkas", ((0,),)),
        ("split", 0),
        ("prod", 0, 0),
        ["farkas", ((0, 1),)],
        ("nonsense",),
        (),
        "unsat",
    ],
    ids=repr,
)
def test_malformed_certificate_steps_are_refused(cert: Any) -> None:
    # x < 0 with x a Nat: refutable, but not by these
    seq = seq_of(App("<", (M, Lit(0, "Nat")), "Prop"))
    refused(seq, cert)


def test_valid_certificates_still_pass() -> None:
    seq = seq_of(App("<", (M, Lit(0, "Nat")), "Prop"))
    cert = refutation(seq, [seq.ctx[4].ty])  # type: ignore[list-item]
    assert cert is not None
    assert k.check(seq, arith(seq, cert), []) is None
    sq = seq_of(App("<", (App("^", (X, Lit(2, "Nat")), "Int"), Lit(0, "Int")), "Prop"))
    cert = refutation(sq, [sq.ctx[4].ty], nonlinear=True)  # type: ignore[list-item]
    assert cert is not None and cert[0] == "square"
    assert k.check(sq, arith(sq, cert), []) is None


@pytest.mark.parametrize(
    "proof",
    [
        k.Hyp(None),  # type: ignore[arg-type]
        k.Hyp("h"),  # type: ignore[arg-type]
        k.Inst(k.Hyp(100), 3),
        k.ExistsIntro("x", k.TrueIntro()),
        k.Intro(None, None),  # type: ignore[arg-type]
        k.Intro(7, "not a proof"),  # type: ignore[arg-type]
        k.AndIntro(k.TrueIntro(), ("hyp", 100)),  # type: ignore[arg-type]
        k.Arith((k.TrueIntro(),), ("false", 0)),
        k.Arith(None, ("false", 0)),
        k.DvdIntro(None, k.TrueIntro()),
        k.Rewrite(k.Hyp(100), None, False, k.TrueIntro()),
        "not a proof",
    ],
    ids=repr,
)
def test_malformed_proofs_are_refused_not_crashes(proof: Any) -> None:
    seq = seq_of(App("∣", (Lit(0, "Int"), X), "Prop")).to(App("∣", (Lit(0, "Int"), X), "Prop"))
    with pytest.raises(KernelError):
        k.check(seq, proof, [])


def test_numerals_and_sequents_are_sort_checked() -> None:
    s = seq_of()
    for bad in (Lit(Fraction(1, 2), "Int"), Lit(True, "Int"), Lit(-1, "Nat"), k.Var(-1)):  # type: ignore[arg-type]
        with pytest.raises(KernelError):
            k.sort_of(s, bad)
    with pytest.raises(KernelError):  # a hypothesis that is not a proposition
        k.well_formed(Sequent((Entry(1, "Int"), Entry(2, X)), FALSE))
    with pytest.raises(KernelError):  # an ill-sorted relation
        k.well_formed(Sequent((Entry(1, "Int"), Entry(3, "Nat"), Entry(5, App("=", (X, M), "Prop"))), FALSE))
    with pytest.raises(KernelError):
        k.well_formed(Sequent((Entry(1, "Int"), Entry(1, "Nat")), FALSE))
    with pytest.raises(KernelError):
        k.well_formed(Sequent((Entry(1, "Real"),), FALSE))
    k.well_formed(seq_of(App("=", (X, App("cast", (M,), "Int")), "Prop")))


def test_mul_eq_multiplies_only_an_equality_by_an_integral_polynomial() -> None:
    # facts: x = y + 1 (index 0), x * y ≥ 0, y * y + y < 0 (x * y = y * y + y: contradiction
    # once the equation is multiplied by y)
    Y = Free(2)
    eq = App("=", (X, App("+", (Y, Lit(1, "Int")), "Int")), "Prop")
    pos = App("≤", (Lit(0, "Int"), App("*", (X, Y), "Int")), "Prop")
    neg_ = App("<", (App("+", (App("*", (Y, Y), "Int"), Y), "Int"), Lit(0, "Int")), "Prop")
    seq = seq_of(eq, pos, neg_)
    props = [e.ty for e in seq.ctx if not isinstance(e.ty, str)]
    farkas = ("farkas", ((1, Fraction(1)), (2, Fraction(1)), (3, Fraction(-1))))
    good = ("mul_eq", 0, Poly.atom(Y), farkas)
    assert k.check(seq, arith(seq, good), []) is None
    # an inequality is no ideal element; a fractional multiplier is refused; arity checked
    refused(seq, ("mul_eq", 1, Poly.atom(Y), farkas))
    refused(seq, ("mul_eq", 0, Poly({((Y, 1),): Fraction(1, 2)}), farkas))
    refused(seq, ("mul_eq", 0, Poly.atom(Y)))
    # the search finds the substitution itself (certify_ideal.substitutions)
    cert = refutation(seq, props)
    assert cert is not None and cert[0] == "mul_eq"
    assert k.check(seq, arith(seq, cert), []) is None
    # and no certificate for the satisfiable variant (x = y + 1, x * y ≥ 0, y * y + y ≥ 0)
    sat = App("≤", (Lit(0, "Int"), App("+", (App("*", (Y, Y), "Int"), Y), "Int")), "Prop")
    seq2 = seq_of(eq, pos, sat)
    assert refutation(seq2, [e.ty for e in seq2.ctx if not isinstance(e.ty, str)]) is None


def test_a_power_with_a_closed_base_is_one_atom_whatever_the_bases_form() -> None:
    n = Free(3)
    four = App("^", (Lit(4, "Nat"), n), "Nat")
    two_sq = App("^", (App("^", (Lit(2, "Nat"), Lit(2, "Nat")), "Nat"), n), "Nat")
    two = App("^", (Lit(2, "Nat"), n), "Nat")
    assert k.poly(four) == k.poly(two_sq)
    assert k.poly(four) != k.poly(two)
    # (2 ^ 2) ^ n = 4 ^ n by `ring`; 2 ^ n = 4 ^ n is no ring identity
    ctx = (Entry(3, "Nat"),)
    assert k.check(Sequent(ctx, App("=", (four, two_sq), "Prop")), k.Ring(), []) is None
    with pytest.raises(KernelError):
        k.check(Sequent(ctx, App("=", (four, two), "Prop")), k.Ring(), [])
