"""Linear facts and the refutation certificates of the arith rule."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

from burnqed.lean.kernel.terms import App, FALSE, Free, KernelError, RELS, Term
from burnqed.lean.kernel.poly import Poly, atoms, poly
from burnqed.lean.kernel.context import Sequent, sort_of

__all__ = [
    "Disj",
    "Fact",
    "FactSet",
    "Lin",
    "PropLit",
    "nat_atoms",
    "nnf",
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


def _tighten(f: Lin) -> Lin | bool:
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
            if k is not None:  # k ∣ e ↔ e % k = 0 (also for k = 0: e % 0 = e)
                r = poly(App("%", (b, a), sort_of(seq, a)))
                return Lin(r, True) if positive else Lin(r.add(Poly.const(-1)), False)
    return PropLit(t, positive)


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


def _neg(t: Term) -> Term:
    return App("→", (t, FALSE), "Prop")


class FactSet:
    """The facts of one branch of an ``arith`` refutation; adding a fact flattens
    conjunctions, tightens integer facts and adds the defining facts of new atoms
    (Nat atoms are ≥ 0; ``/``, ``%`` by a numeral and truncated ``-`` are pinned down)."""

    def __init__(self, nat_atoms: frozenset[Term]) -> None:
        self.facts: list[Fact] = []
        self.nat = set(nat_atoms)
        self.seen: set[Term] = set()

    def copy(self) -> FactSet:
        """An independent copy (for a case split)."""
        out = FactSet(frozenset(self.nat))
        out.facts, out.seen = list(self.facts), set(self.seen)
        return out

    def add(self, f: Fact) -> None:
        """Add a fact (and what it implies about its atoms)."""
        if isinstance(f, Disj) and len(f.cases) == 1:
            for g in f.cases[0]:
                self.add(g)
            return
        if isinstance(f, Lin):
            f = _tighten(f)
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
        if isinstance(x, App) and x.head in ("/", "%", "-", "^") and x.sort == "Nat":
            self.nat.add(x)
        if x in self.nat:
            self.add(Lin(Poly.atom(x), False))
        if not isinstance(x, App) or x.head not in ("/", "%", "-"):
            return
        a, b = poly(x.args[0]), poly(x.args[1])
        if x.head == "-":  # Nat: (a ≥ b ∧ x = a - b) ∨ (a < b ∧ x = 0)
            d = a.add(b, -1)
            self.add(
                Disj(
                    (
                        (Lin(d, False), Lin(Poly.atom(x).add(d, -1), True)),
                        (Lin(Poly().add(d, -1).add(Poly.const(-1)), False), Lin(Poly.atom(x), True)),
                    )
                )
            )
            return
        k = b.constant()
        if k is None:
            return
        q = Poly.atom(App("/", x.args, x.sort))
        if k == 0:
            self.add(Lin(q, True))
            r = a
        else:  # a = k q + r with 0 ≤ r ≤ |k| - 1
            r = a.add(q, -k)
            self.add(Lin(r, False))
            self.add(Lin(Poly.const(abs(k) - 1).add(r, -1), False))
        if x.head == "%":
            self.add(Lin(Poly.atom(x).add(r, -1), True))


def nat_atoms(seq: Sequent) -> frozenset[Term]:
    """The context's Nat variables."""
    return frozenset(Free(e.uid) for e in seq.ctx if e.ty == "Nat")


def _refute(fs: FactSet, cert: Any) -> None:
    """Check a refutation certificate for the facts of one branch."""
    if not isinstance(cert, tuple) or not cert:
        raise KernelError("arith: malformed certificate")
    kind = cert[0]
    if kind == "false":
        if fs.facts[cert[1]] is not False:
            raise KernelError("arith: fact is not False")
        return
    if kind == "contra":
        a, b = fs.facts[cert[1]], fs.facts[cert[2]]
        if not (isinstance(a, PropLit) and isinstance(b, PropLit) and a.atom == b.atom and a.positive != b.positive):
            raise KernelError("arith: facts are not complementary")
        return
    if kind == "split":
        f = fs.facts[cert[1]]
        if not isinstance(f, Disj) or len(cert[2]) != len(f.cases):
            raise KernelError("arith: split on a fact that is not a disjunction")
        for case, sub in zip(f.cases, cert[2], strict=True):
            branch = fs.copy()
            branch.add(Disj((case,)))
            _refute(branch, sub)
        return
    if kind == "cut":  # over the integers: p ≤ c ∨ p ≥ c + 1
        p, c = cert[1], cert[2]
        if not isinstance(p, Poly) or not isinstance(c, int) or any(v.denominator != 1 for v in p.values()):
            raise KernelError("arith: malformed cut")
        lo, hi = fs.copy(), fs.copy()
        lo.add(Lin(Poly.const(c).add(p, -1), False))
        hi.add(Lin(p.add(Poly.const(-c - 1)), False))
        _refute(lo, cert[3])
        _refute(hi, cert[4])
        return
    if kind in ("prod", "square"):
        if kind == "square":
            p = cert[1]
            if not isinstance(p, Poly):
                raise KernelError("arith: malformed square")
            new = Lin(p.mul(p), False)
        else:
            a, b = fs.facts[cert[1]], fs.facts[cert[2]]
            if not (isinstance(a, Lin) and isinstance(b, Lin)):
                raise KernelError("arith: product of non-arithmetic facts")
            new = Lin(a.poly.mul(b.poly), a.eq or b.eq)
        branch = fs.copy()
        branch.add(new)
        _refute(branch, cert[-1])
        return
    if kind == "farkas":
        total = Poly()
        for i, c in cert[1]:
            f = fs.facts[i]
            c = Fraction(c)
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
    fs = FactSet(nat_atoms(seq))
    for p in props:
        fs.add(nnf(p, True, seq))
    try:
        _refute(fs, cert)
    except (IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise KernelError(f"arith: malformed certificate ({exc})") from exc
