"""Linear facts and the refutation certificates of the arith rule."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

from burnqed.embedded.kernel.terms import App, Free, KernelError, MAX_BITS, MAX_EXPONENT, MAX_MONOMIALS, RELS, Term
from burnqed.embedded.kernel.poly import Poly, atoms, poly
from burnqed.embedded.kernel.context import Sequent, sort_of

__all__ = [
    "Disj",
    "Fact",
    "FactSet",
    "Lin",
    "PropLit",
    "nat_atoms",
    "nnf",
    "tighten",
    "refute",
]


@dataclass(frozen=True)
class Lin:
    """``poly ≥ 0`` (``eq`` false) or ``poly = 0`` (``eq`` true)."""

    poly: Poly
    eq: bool

    def __hash__(self) -> int:
        return hash((frozenset(self.poly.items()), self.eq))


@dataclass(frozen=True, slots=True)
class PropLit:
    """A propositional atom (a Prop variable, a quantified formula, ...) or its negation."""

    atom: Term
    positive: bool


@dataclass(frozen=True, slots=True)
class Disj:
    """A disjunction of conjunctions of facts (negation normal form)."""

    cases: tuple[tuple[Fact, ...], ...]


Fact = Lin | PropLit | Disj | bool


def tighten(f: Lin) -> Lin | bool:
    """An integer fact divided by the gcd of its coefficients (the constant rounded down);
    a constant fact decided."""
    c = f.poly.get((), Fraction(0))
    rest = [v for m, v in f.poly.items() if m != ()]
    if not rest:
        return c == 0 if f.eq else c >= 0
    if any(v.denominator != 1 for v in f.poly.values()):
        return f
    g = 0
    for v in rest:
        g = gcd(g, int(v))
    if g <= 1:
        return f
    if f.eq and c.numerator % g:
        return False  # g divides every other coefficient, not the constant
    out = Poly({m: v / g for m, v in f.poly.items() if m != ()})
    k = Fraction(int(c) // g) if not f.eq else c / g
    return Lin(out.add(Poly.const(k)), f.eq)


def _cmp(a: Term, b: Term, strict: bool) -> Lin:
    """``a < b`` (strict) or ``a ≤ b`` as ``b - a (- 1) ≥ 0`` over the integers."""
    return Lin(poly(b).add(poly(a), -1).add(Poly.const(-1 if strict else 0)), False)


def nnf(t: Term, positive: bool, seq: Sequent) -> Fact:
    """A proposition (or its negation) in negation normal form over linear facts."""
    if isinstance(t, App):
        h, args = t.head, t.args
        if h in ("True", "False"):
            return (h == "True") == positive
        if h == "∧" or h == "∨":
            a, b = nnf(args[0], positive, seq), nnf(args[1], positive, seq)
            return _disj((a, b)) if (h == "∧") == positive else _disj((a,), (b,))
        if h == "→":
            if positive:
                return _disj((nnf(args[0], False, seq),), (nnf(args[1], True, seq),))
            return _disj((nnf(args[0], True, seq), nnf(args[1], False, seq)))
        if h == "↔":
            p, q = nnf(args[0], True, seq), nnf(args[1], True, seq)
            np, nq = nnf(args[0], False, seq), nnf(args[1], False, seq)
            return _disj((p, q), (np, nq)) if positive else _disj((p, nq), (np, q))
        if h in RELS:
            a, b = args
            if h == "=":
                if positive:
                    return Lin(poly(a).add(poly(b), -1), True)
                return Disj(((_cmp(a, b, True),), (_cmp(b, a, True),)))
            if h == "<":
                return _cmp(a, b, True) if positive else _cmp(b, a, False)
            if h == "≤":
                return _cmp(a, b, False) if positive else _cmp(b, a, True)
            k = poly(a).constant()
            if k is not None:
                return _dvd(a, b, int(k), positive, sort_of(seq, a))
    return PropLit(t, positive)


def _dvd(a: Term, b: Term, k: int, positive: bool, sort: str) -> Fact:
    """``k ∣ b`` for a divisor whose value ``k`` is known: ``b % k = 0`` (Lean's
    ``dvd_iff_mod_eq_zero``, also for ``k = 0``: ``0 ∣ b ↔ b = 0`` and ``b % 0 = b``).
    Negated: ``b % k ≥ 1`` where ``b % k ≥ 0`` (Nat, or an Int divisor that is not 0:
    ``Int.emod`` is never negative then), else ``b ≠ 0`` (an Int ``b`` may be negative)."""
    r = poly(App("%", (b, a), sort))
    if positive:
        return Lin(r, True)
    above = Lin(r.add(Poly.const(-1)), False)
    if k != 0 or sort == "Nat":
        return above
    return Disj(((above,), (Lin(Poly().add(r, -1).add(Poly.const(-1)), False),)))


def _disj(*cases: tuple[Fact, ...]) -> Fact:
    """A disjunction of conjunctions, with constant cases and literals folded away."""
    out = []
    for case in cases:
        kept = tuple(f for f in case if f is not True)
        if any(f is False for f in kept):
            continue
        if not kept:
            return True
        out.append(kept)
    if not out:
        return False
    return Disj(tuple(out))


class FactSet:
    """The facts of one branch of an ``arith`` refutation; adding a fact flattens
    conjunctions, tightens integer facts and adds the defining facts of new atoms. Every
    atom is sort-checked in the sequent's context and must be in normal form (its own
    polynomial): Nat atoms are ≥ 0; ``/``, ``%`` by a known divisor (0 included) and
    truncated ``-`` are pinned down exactly."""

    def __init__(self, seq: Sequent) -> None:
        self.seq = seq
        self.facts: list[Fact] = []
        self.seen: set[Term] = set()

    def copy(self) -> FactSet:
        """An independent copy (for a case split)."""
        out = FactSet(self.seq)
        out.facts, out.seen = list(self.facts), set(self.seen)
        return out

    def add(self, f: Fact) -> None:
        """Add a fact (and what it implies about its atoms)."""
        if isinstance(f, Disj) and len(f.cases) == 1:
            for g in f.cases[0]:
                self.add(g)
            return
        if isinstance(f, Lin):
            f = tighten(f)
        self.facts.append(f)
        if isinstance(f, Lin):
            for x in atoms(f.poly):
                self._atom(x)
        elif isinstance(f, Disj):
            for case in f.cases:
                for g in case:
                    if isinstance(g, Lin):
                        for x in atoms(g.poly):
                            self._atom(x)

    def _atom(self, x: Term) -> None:
        if x in self.seen:
            return
        self.seen.add(x)
        sort = atom_sort(self.seq, x)
        if sort == "Nat":
            self.add(Lin(Poly.atom(x), False))
        if not isinstance(x, App):
            return
        if x.head == "-":  # only Nat subtraction is an atom: (a ≥ b ∧ x = a - b) ∨ (a < b ∧ x = 0)
            self.add(_tsub_facts(x))
        elif x.head in ("/", "%"):
            for g in _divmod_facts(x):
                self.add(g)


def atom_sort(seq: Sequent, x: Term) -> str:
    """The sort (Nat or Int) of an atom of a fact; refuses a term that is ill-sorted in the
    context, has a loose bound variable or is not in normal form (an atom is its own
    polynomial: ``x ^ 2`` or ``a - b`` on Int are not atoms)."""
    if type(x) not in (Free, App):
        raise KernelError("arith: an atom must be a variable or an application")
    sort = sort_of(seq, x)
    if sort not in ("Nat", "Int") or poly(x) != Poly.atom(x):
        raise KernelError("arith: an atom that is not an arithmetic atom in normal form")
    return sort


def _tsub_facts(x: App) -> Fact:
    """Nat's truncated subtraction ``x = a - b``: ``(a ≥ b ∧ x = a - b) ∨ (a < b ∧ x = 0)``."""
    a, b = poly(x.args[0]), poly(x.args[1])
    d = a.add(b, -1)
    return Disj(
        (
            (Lin(d, False), Lin(Poly.atom(x).add(d, -1), True)),
            (Lin(Poly().add(d, -1).add(Poly.const(-1)), False), Lin(Poly.atom(x), True)),
        )
    )


def _divmod_facts(x: App) -> list[Fact]:
    """``a / k`` and ``a % k`` for a divisor of known value ``k`` (Nat division, or
    ``Int.ediv``/``Int.emod``): ``k = 0`` gives ``a / 0 = 0`` and ``a % 0 = a``; otherwise
    ``a = k q + r`` with ``0 ≤ r ≤ |k| - 1`` and ``a % k = r`` (``q`` the atom ``a / k``).
    An unknown divisor gives nothing: the atom stays opaque."""
    k = poly(x.args[1]).constant()
    if k is None:
        return []
    a = poly(x.args[0])
    q = Poly.atom(App("/", x.args, x.sort))
    out: list[Fact] = []
    if k == 0:
        out.append(Lin(q, True))
        r = a
    else:
        r = a.add(q, -k)
        out += [Lin(r, False), Lin(Poly.const(abs(k) - 1).add(r, -1), False)]
    if x.head == "%":
        out.append(Lin(Poly.atom(x).add(r, -1), True))
    return out


def nat_atoms(seq: Sequent) -> frozenset[Term]:
    """The context's Nat variables."""
    return frozenset(Free(e.uid) for e in seq.ctx if e.ty == "Nat")


# ---------------------------------------------------------------- certificates (untrusted input)


def _index(fs: FactSet, i: Any) -> Fact:
    if type(i) is not int or not 0 <= i < len(fs.facts):
        raise KernelError("arith: a fact index out of range")
    return fs.facts[i]


def _number(c: Any) -> Fraction:
    if type(c) not in (int, Fraction) or abs(c.numerator).bit_length() > MAX_BITS or c.denominator.bit_length() > MAX_BITS:
        raise KernelError("arith: a coefficient must be an exact number")
    return Fraction(c)


def _cert_poly(fs: FactSet, p: Any, integral: bool) -> Poly:
    """A polynomial a certificate supplies, rebuilt in normal form from its parts: exact
    coefficients (integers for a cut), monomials of atoms with exponents 1..MAX_EXPONENT,
    every atom sort-checked in the context and in normal form (``atom_sort``)."""
    if not isinstance(p, dict) or len(p) > MAX_MONOMIALS:
        raise KernelError("arith: a certificate polynomial must be a small Poly")
    out = Poly()
    for m, c in p.items():
        c = _number(c)
        if integral and c.denominator != 1:
            raise KernelError("arith: a cut needs integer coefficients")
        if type(m) is not tuple:
            raise KernelError("arith: a malformed monomial")
        term = Poly.const(c)
        for pair in m:
            if type(pair) is not tuple or len(pair) != 2 or type(pair[1]) is not int:
                raise KernelError("arith: a malformed monomial")
            x, e = pair
            if not 1 <= e <= MAX_EXPONENT:
                raise KernelError("arith: a monomial exponent out of range")
            atom_sort(fs.seq, x)
            for _ in range(e):
                term = term.mul(Poly.atom(x))
        out = out.add(term)
    return out


_ARITY = {"false": 2, "contra": 3, "split": 3, "cut": 5, "prod": 4, "square": 3, "mul_eq": 4, "farkas": 2}


def _refute(fs: FactSet, cert: Any) -> None:
    """Check a refutation certificate for the facts of one branch. The certificate is
    untrusted: every index, number and polynomial in it is checked (``_index``,
    ``_number``, ``_cert_poly``) before it is used."""
    if type(cert) is not tuple or not cert or type(cert[0]) is not str or len(cert) != _ARITY.get(cert[0]):
        raise KernelError("arith: malformed certificate")
    kind = cert[0]
    if kind == "false":
        if _index(fs, cert[1]) is not False:
            raise KernelError("arith: fact is not False")
        return
    if kind == "contra":
        a, b = _index(fs, cert[1]), _index(fs, cert[2])
        if not (isinstance(a, PropLit) and isinstance(b, PropLit) and a.atom == b.atom and a.positive != b.positive):
            raise KernelError("arith: facts are not complementary")
        return
    if kind == "split":
        f = _index(fs, cert[1])
        if not isinstance(f, Disj) or type(cert[2]) is not tuple or len(cert[2]) != len(f.cases):
            raise KernelError("arith: split on a fact that is not a disjunction")
        for case, sub in zip(f.cases, cert[2], strict=True):
            branch = fs.copy()
            branch.add(Disj((case,)))
            _refute(branch, sub)
        return
    if kind == "cut":  # over the integers: p ≤ c ∨ p ≥ c + 1
        p, c = _cert_poly(fs, cert[1], True), cert[2]
        if type(c) is not int or c.bit_length() > MAX_BITS:
            raise KernelError("arith: malformed cut")
        lo, hi = fs.copy(), fs.copy()
        lo.add(Lin(Poly.const(c).add(p, -1), False))
        hi.add(Lin(p.add(Poly.const(-c - 1)), False))
        _refute(lo, cert[3])
        _refute(hi, cert[4])
        return
    if kind in ("prod", "square"):
        if kind == "square":
            p = _cert_poly(fs, cert[1], False)
            new = Lin(p.mul(p), False)
        else:
            a, b = _index(fs, cert[1]), _index(fs, cert[2])
            if not (isinstance(a, Lin) and isinstance(b, Lin)):
                raise KernelError("arith: product of non-arithmetic facts")
            new = Lin(a.poly.mul(b.poly), a.eq or b.eq)
        branch = fs.copy()
        branch.add(new)
        _refute(branch, cert[-1])
        return
    if kind == "mul_eq":  # p = 0 gives p * q = 0 for a polynomial q (an element of the ideal)
        f = _index(fs, cert[1])
        if not (isinstance(f, Lin) and f.eq):
            raise KernelError("arith: mul_eq needs an equality")
        branch = fs.copy()
        branch.add(Lin(f.poly.mul(_cert_poly(fs, cert[2], True)), True))
        _refute(branch, cert[3])
        return
    if kind == "farkas":
        if type(cert[1]) is not tuple:
            raise KernelError("arith: malformed Farkas combination")
        total = Poly()
        for pair in cert[1]:
            if type(pair) is not tuple or len(pair) != 2:
                raise KernelError("arith: malformed Farkas combination")
            f, c = _index(fs, pair[0]), _number(pair[1])
            if not isinstance(f, Lin) or (c < 0 and not f.eq):
                raise KernelError("arith: bad Farkas coefficient")
            total = total.add(f.poly, c)
        v = total.constant()
        if v is None or v >= 0:
            raise KernelError("arith: the combination is not a negative constant")
        return
    raise KernelError(f"arith: unknown certificate step {kind!r}")


def refute(seq: Sequent, props: list[Term], cert: Any) -> None:
    """Check that the propositions (proved in ``seq``) are contradictory by ``cert``."""
    fs = FactSet(seq)
    try:
        for p in props:
            fs.add(nnf(p, True, seq))
        _refute(fs, cert)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise KernelError(f"arith: malformed certificate ({type(exc).__name__})") from exc
