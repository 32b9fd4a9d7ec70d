"""Every encoding rule of the kernel against exact evaluation with Lean's semantics
(``burnqed.embedded.soundness.lean_semantics.value``, written apart from the kernel), exhaustively over
small domains: Int variables in -3..3, Nat variables in 0..3, numerals 0, ±1, ±2, ±3,
divisors that are 0 as a numeral, as ``x * 0``, as ``n - n``, as a truncated subtraction
cast to ℤ, or as a variable that takes the value 0; each relation positive and negated.

- polynomial normal forms (``poly``): ``+ - * / % ^ neg cast``, truncated Nat ``-``,
  ``Int.ediv``/``Int.emod``, ``x / 0 = 0``, ``x % 0 = x``, ``0 ^ 0 = 1``, powers with a
  variable exponent;
- negation normal form of ``= < ≤ ∣`` (``nnf``, ``_cmp``, ``_dvd``) and of the
  connectives; the atoms' defining facts (Nat atoms ≥ 0, ``_divmod_facts``,
  ``_tsub_facts``): true at the atoms' values and pinning them down;
- tightening of integer facts (``tighten``: gcd division, constants rounded down,
  negative ones included) and closed evaluation (``evaluate``, the decide rule).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import pytest

from burnqed.embedded import kernel as k
from burnqed.embedded.kernel import App, Entry, Free, Lit, Poly, Sequent
from burnqed.embedded.kernel.arith import tighten
from burnqed.embedded.soundness.lean_semantics import fact_holds, value

X, Y, M, N = Free(1), Free(2), Free(3), Free(4)
SORT = {1: "Int", 2: "Int", 3: "Nat", 4: "Nat"}
DOM = {"Int": range(-3, 4), "Nat": range(0, 4)}
SEQ = Sequent(tuple(Entry(u, s) for u, s in SORT.items()), App("False", (), "Prop"))


def op(h: str, a: k.Term, b: k.Term, s: str) -> App:
    return App(h, (a, b), s)


def cast(a: k.Term) -> App:
    return App("cast", (a,), "Int")


INT_ZEROS = [Lit(0, "Int"), op("*", X, Lit(0, "Int"), "Int"), cast(op("-", N, N, "Nat")), cast(op("-", M, N, "Nat")), op("-", X, X, "Int")]
NAT_ZEROS = [Lit(0, "Nat"), op("*", M, Lit(0, "Nat"), "Nat"), op("-", N, N, "Nat"), op("-", M, N, "Nat")]
LEAVES = {
    "Int": [X, Y, *(Lit(v, "Int") for v in (-3, -2, -1, 1, 2, 3)), cast(M), App("neg", (Y,), "Int"), *INT_ZEROS],
    "Nat": [M, N, *(Lit(v, "Nat") for v in (1, 2, 3)), *NAT_ZEROS],
}
EXPONENTS = [Lit(v, "Nat") for v in range(4)] + [
    N,
    op("+", N, Lit(1, "Nat"), "Nat"),
    op("*", Lit(2, "Nat"), N, "Nat"),
    op("+", N, M, "Nat"),
    *NAT_ZEROS[1:],
]


def envs(*terms: Any) -> list[dict[int, int]]:
    """Every assignment of the variables the terms mention."""
    uids = sorted(set().union(*(k.frees(t) for t in terms)))
    return [dict(zip(uids, vs, strict=True)) for vs in itertools.product(*(DOM[SORT[u]] for u in uids))]


def poly_value(p: Poly, env: dict[int, int], override: dict[k.Term, int] | None = None) -> Fraction:
    # exact; one Fraction per monomial (Fraction arithmetic per atom made these tests slow)
    total = Fraction(0)
    for m, c in p.items():
        prod = 1
        for x, e in m:
            v = override[x] if override and x in override else value(x, env)
            prod *= Fraction(v) ** e if e < 0 else v**e
        total += c * prod
    return total


def compound(sort: str) -> list[k.Term]:
    """Every binary operation over the leaves of a sort, and powers."""
    out: list[k.Term] = []
    for h in ("+", "-", "*", "/", "%"):
        for a, b in itertools.product(LEAVES[sort], repeat=2):
            out.append(op(h, a, b, sort))
    for a, e in itertools.product(LEAVES[sort], EXPONENTS):
        out.append(op("^", a, e, sort))
    return out


# ---------------------------------------------------------------- polynomial normal forms


@pytest.mark.parametrize("sort", ["Int", "Nat"])
def test_poly_is_the_leans_value_of_every_operation(sort: str) -> None:
    for t in compound(sort) + [cast(t) for t in compound("Nat")[:400]] * (sort == "Int"):
        assert k.sort_of(SEQ, t) == sort
        p = k.poly(t)
        for env in envs(t):
            assert poly_value(p, env) == value(t, env), (t, env)


def test_poly_of_nested_terms_with_zero_divisors() -> None:
    rng = random.Random(5)
    for _ in range(800):
        sort = rng.choice(("Int", "Nat"))
        t = op(rng.choice(("+", "-", "*", "/", "%")), rng.choice(compound(sort)), rng.choice(LEAVES[sort]), sort)
        p = k.poly(t)
        for env in envs(t):
            assert poly_value(p, env) == value(t, env), (t, env)


def test_variable_exponent_powers_share_one_atom() -> None:
    # x ^ (n + 1) = x ^ n * x and 2 ^ (n + n) = 2 ^ (2 * n): the kernel's normal form
    xn1 = op("^", X, op("+", N, Lit(1, "Nat"), "Nat"), "Int")
    assert k.poly(xn1) == k.poly(op("*", op("^", X, N, "Int"), X, "Int"))
    two = Lit(2, "Nat")
    assert k.poly(op("^", two, op("+", N, N, "Nat"), "Nat")) == k.poly(op("^", two, op("*", two, N, "Nat"), "Nat"))
    assert k.poly(op("^", X, N, "Int")) != k.poly(op("^", X, M, "Int"))


# ---------------------------------------------------------------- relations and connectives


def relations() -> list[App]:
    out: list[App] = []
    for sort in ("Int", "Nat"):
        sides = LEAVES[sort] + compound(sort)[:: 53]
        for r in ("=", "<", "≤"):
            for a, b in itertools.product(LEAVES[sort], sides):
                out.append(App(r, (a, b), "Prop"))
                out.append(App(r, (b, a), "Prop"))
        divisors = LEAVES[sort] + [op("*", LEAVES[sort][0], Lit(0, sort), sort)]
        for a, b in itertools.product(divisors, sides):
            out.append(App("∣", (a, b), "Prop"))
    return out


RELATIONS = relations()


@pytest.mark.parametrize("positive", [True, False])
def test_relation_nnf_is_exact(positive: bool) -> None:
    """``nnf(r, ±)`` holds at the atoms' values exactly when ``r`` is true / false, and so
    does the whole branch with the atoms' defining facts."""
    for r in RELATIONS:
        f = k.nnf(r, positive, SEQ)
        fs = k.FactSet(SEQ)
        fs.add(f)
        for env in envs(r):
            want = value(r, env) == positive
            assert fact_holds(f, env) == want, (r, positive, env)
            assert all(fact_holds(g, env) for g in fs.facts) == want, (r, positive, env)


def test_divisibility_by_zero_valued_divisors() -> None:
    """Issue 24: every form of a zero divisor means ``0 ∣ b ↔ b = 0``, on Int and Nat."""
    for sort, zeros in (("Int", INT_ZEROS), ("Nat", NAT_ZEROS)):
        for z in zeros:
            for b in [Lit(v, sort) for v in ((-1, 0, 1, -3, 2) if sort == "Int" else (0, 1, 2))] + [LEAVES[sort][0]]:
                r = App("∣", (z, b), "Prop")
                for positive in (True, False):
                    f = k.nnf(r, positive, SEQ)
                    for env in envs(r):
                        assert fact_holds(f, env) == (value(r, env) == positive), (r, positive, env)
    # the constant case the issue found: ¬ (0 : ℤ) ∣ -1 is a true fact, 0 ∣ -1 a false one
    r = App("∣", (Lit(0, "Int"), Lit(-1, "Int")), "Prop")
    assert k.nnf(r, True, SEQ) is False or not fact_holds(k.nnf(r, True, SEQ), {})
    fs = k.FactSet(SEQ)
    fs.add(k.nnf(r, False, SEQ))
    assert False not in fs.facts


def props() -> list[k.Term]:
    rng = random.Random(11)
    base = [App("True", (), "Prop"), App("False", (), "Prop"), *rng.sample(RELATIONS, 30)]
    return base


@pytest.mark.parametrize("conn", ["∧", "∨", "→", "↔", "¬"])
def test_connective_nnf_is_exact(conn: str) -> None:
    ps = props()
    for a, b in itertools.product(ps, repeat=2):
        t = App("→", (a, App("False", (), "Prop")), "Prop") if conn == "¬" else App(conn, (a, b), "Prop")
        for positive in (True, False):
            f = k.nnf(t, positive, SEQ)
            for env in envs(t)[:: 3]:
                assert fact_holds(f, env) == (bool(value(t, env)) == positive), (t, positive, env)


# ---------------------------------------------------------------- atoms' defining facts


def divmod_atoms() -> list[App]:
    out: list[App] = []
    for sort, dividends in (
        ("Int", [X, op("+", X, Y, "Int"), App("neg", (X,), "Int"), cast(M), op("*", Lit(2, "Int"), X, "Int")]),
        ("Nat", [M, op("+", M, N, "Nat"), op("-", M, N, "Nat"), op("*", Lit(2, "Nat"), M, "Nat")]),
    ):
        divisors = [Lit(v, sort) for v in ((-3, -2, -1, 0, 1, 2, 3) if sort == "Int" else (0, 1, 2, 3))]
        divisors += INT_ZEROS[1:2] if sort == "Int" else NAT_ZEROS[1:2]
        for h, a, b in itertools.product(("/", "%"), dividends, divisors):
            out.append(op(h, a, b, sort))
    return out


def tsub_atoms() -> list[App]:
    return [op("-", a, b, "Nat") for a, b in itertools.product([M, N, op("+", M, Lit(1, "Nat"), "Nat"), Lit(2, "Nat")], [N, Lit(1, "Nat"), op("*", Lit(2, "Nat"), M, "Nat")]) if k.poly(op("-", a, b, "Nat")) == Poly.atom(op("-", a, b, "Nat"))]


def _atom_facts(x: App) -> list[Any]:
    fs = k.FactSet(SEQ)
    fs._atom(x)
    return fs.facts


def _holds_with(f: Any, env: dict[int, int], override: dict[k.Term, int]) -> bool:
    if isinstance(f, bool):
        return f
    if isinstance(f, k.Lin):
        v = poly_value(f.poly, env, override)
        return v == 0 if f.eq else v >= 0
    if isinstance(f, k.Disj):
        return any(all(_holds_with(g, env, override) for g in case) for case in f.cases)
    raise TypeError(f)


def test_division_and_remainder_facts_are_true_and_pin_the_atom() -> None:
    """``/`` and ``%`` by a known divisor (negative, 0, 1, -1 included): the facts hold at
    the true quotient and remainder and at no other pair near them."""
    for x in divmod_atoms():
        if k.poly(x) != Poly.atom(x):
            continue  # folded by the normal form (constant operands), covered above
        facts = _atom_facts(x)
        q = App("/", x.args, x.sort)
        for env in envs(x):
            assert all(fact_holds(f, env) for f in facts), (x, env)
            tq, tx = value(q, env), value(x, env)
            for dq, dx in itertools.product(range(-3, 4), repeat=2):
                if (dq, dx) == (0, 0) or (x.head == "/" and dx):
                    continue
                override = {q: tq + dq, x: tx + dx} if x.head == "%" else {q: tq + dq}
                assert not all(_holds_with(f, env, override) for f in facts), (x, env, dq, dx)


def test_truncated_subtraction_facts_are_true_and_pin_the_atom() -> None:
    for x in tsub_atoms():
        facts = _atom_facts(x)
        for env in envs(x):
            assert all(fact_holds(f, env) for f in facts), (x, env)
            tx = value(x, env)
            for d in range(-3, 4):
                if d:
                    assert not all(_holds_with(f, env, {x: tx + d}) for f in facts), (x, env, d)


def test_nat_atoms_are_nonnegative_and_int_atoms_are_not() -> None:
    power = k.atoms(k.poly(op("^", M, N, "Nat")))[0]  # M ^ (1 * N), the normal form's atom
    nat_atoms = [M, N, op("/", M, N, "Nat"), op("%", M, N, "Nat"), op("-", M, N, "Nat"), power]
    for x in nat_atoms:
        assert k.Lin(Poly.atom(x), False) in _atom_facts(x)
    for x in [X, op("/", X, Y, "Int"), op("%", X, Y, "Int"), k.atoms(k.poly(op("^", X, N, "Int")))[0]]:
        assert k.Lin(Poly.atom(x), False) not in _atom_facts(x)
        # the value may be negative: nothing says otherwise
        assert any(value(x, env) < 0 for env in envs(x))


def test_an_unknown_divisor_leaves_the_atom_opaque() -> None:
    for x in [op("/", X, Y, "Int"), op("%", X, Y, "Int"), op("%", Lit(5, "Int"), X, "Int"), op("%", M, op("-", N, N, "Nat"), "Nat")]:
        facts = _atom_facts(x)
        assert all(not isinstance(f, k.Lin) or f.poly == Poly.atom(x) for f in facts)


# ---------------------------------------------------------------- tightening and decide


def testtightening_is_exact_on_the_integers() -> None:
    """``c0 + c1 x + c2 y (≥|=) 0`` and its tightened form agree at every integer point
    (negative constants rounded down, gcds divided out, unsolvable equations False)."""
    coeffs = range(-4, 5)
    points = list(itertools.product(range(-4, 5), repeat=2))
    for c0, c1, c2 in itertools.product(range(-5, 6), coeffs, coeffs):
        p = Poly.const(c0).add(Poly.atom(X), c1).add(Poly.atom(Y), c2)
        for eq in (False, True):
            f = k.Lin(p, eq)
            t = tighten(f)
            for xv, yv in points:
                env = {1: xv, 2: yv}
                assert fact_holds(t, env) == fact_holds(f, env), (c0, c1, c2, eq, env)


def testtightening_leaves_rational_facts_alone() -> None:
    f = k.Lin(Poly.atom(X).add(Poly.const(Fraction(-1, 2))), False)
    assert tighten(f) == f


def closed_terms(sort: str) -> list[k.Term]:
    lits = [Lit(v, sort) for v in ((-3, -1, 0, 1, 2) if sort == "Int" else (0, 1, 2, 3))]
    out = list(lits)
    for h in ("+", "-", "*", "/", "%", "^"):
        for a, b in itertools.product(lits, repeat=2):
            out.append(op(h, a, Lit(abs(b.value), "Nat") if h == "^" else b, sort))
    if sort == "Int":
        out += [cast(op("-", Lit(1, "Nat"), Lit(3, "Nat"), "Nat")), App("neg", (Lit(2, "Int"),), "Int")]
    return out


@pytest.mark.parametrize("sort", ["Int", "Nat"])
def test_decide_evaluates_every_relation_as_lean(sort: str) -> None:
    ts = closed_terms(sort)
    for r in ("=", "<", "≤", "∣"):
        for a, b in itertools.product(ts[:: 2], ts):
            t = App(r, (a, b), "Prop")
            assert k.evaluate(t) == value(t, {}), t
            assert k.evaluate(App("→", (t, App("False", (), "Prop")), "Prop")) == (not value(t, {}))
