"""Exact polynomial normal forms with Lean arithmetic, and closed evaluation (decide)."""

from __future__ import annotations

from fractions import Fraction

from burnqed.embedded.kernel.terms import (
    ARITH_HEADS,
    App,
    CONNS,
    Free,
    KernelError,
    Lit,
    MAX_BITS,
    MAX_EXPONENT,
    MAX_MONOMIALS,
    RELS,
    Term,
    Var,
)

__all__ = [
    "Monomial",
    "Poly",
    "atoms",
    "evaluate",
    "poly",
]


Monomial = tuple[tuple[Term, int], ...]


class Poly(dict[Monomial, Fraction]):
    """A polynomial over integer-valued atoms (exact coefficients; zero terms dropped)."""

    @staticmethod
    def const(c: int | Fraction) -> Poly:
        """A constant."""
        p = Poly()
        if c:
            p[()] = Fraction(c)
        return p

    @staticmethod
    def atom(t: Term) -> Poly:
        """One atom."""
        p = Poly()
        p[((t, 1),)] = Fraction(1)
        return p

    def add(self, other: Poly, k: int | Fraction = 1) -> Poly:
        """``self + k * other``."""
        out = Poly(self)
        for m, c in other.items():
            v = out.get(m, Fraction(0)) + k * c
            if v:
                out[m] = v
            else:
                out.pop(m, None)
        return out

    def mul(self, other: Poly) -> Poly:
        """Product (bounded size)."""
        out = Poly()
        for m1, c1 in self.items():
            for m2, c2 in other.items():
                out = out.add(Poly({_mono_mul(m1, m2): c1 * c2}))
                if len(out) > MAX_MONOMIALS:
                    raise KernelError("polynomial too large")
        return out

    def constant(self) -> Fraction | None:
        """The value when constant."""
        if not self:
            return Fraction(0)
        if len(self) == 1 and () in self:
            return self[()]
        return None


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    powers: dict[Term, int] = dict(a)
    for t, k in b:
        powers[t] = powers.get(t, 0) + k
    return tuple(sorted(powers.items(), key=lambda x: repr(x[0])))


def _ediv(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = a // b if b > 0 else -(a // -b)
    return q if a - b * q >= 0 else q + (1 if b < 0 else -1)


def _arith(head: str, a: int, b: int, sort: str) -> int:
    if head == "+":
        v = a + b
    elif head == "-":
        v = a - b if sort == "Int" else max(a - b, 0)
    elif head == "*":
        v = a * b
    elif head == "/":
        v = _ediv(a, b)
    elif head == "%":
        v = a - b * _ediv(a, b)
    else:
        if b > MAX_BITS or (abs(a) > 1 and b * abs(a).bit_length() > MAX_BITS):
            raise KernelError("number too large")
        v = a**b
    if abs(v).bit_length() > MAX_BITS:
        raise KernelError("number too large")
    return v


def _pow_mod(t: App) -> int | None:
    p = t.args[0]
    if not (isinstance(p, App) and p.head == "^"):
        return None
    base, ex, m = poly(p.args[0]).constant(), poly(p.args[1]).constant(), poly(t.args[1]).constant()
    if base is None or ex is None or m is None or m == 0 or ex < 0:
        return None
    # emod: the remainder lies in [0, |m|) on Nat and Int alike, as pow's does for m > 0
    return pow(int(base), int(ex), abs(int(m)))


def poly(t: Term) -> Poly:
    """The polynomial of an arithmetic term (Nat and Int both map into the integers:
    ``↑`` is the identity there); truncated subtraction, division and remainder that
    cannot be computed, and powers with an unknown exponent, are atoms."""
    if isinstance(t, Lit):
        return Poly.const(t.value)
    if isinstance(t, Free | Var):
        return Poly.atom(t)
    if not isinstance(t, App) or t.head not in ARITH_HEADS:
        raise KernelError("not an arithmetic term")
    h = t.head
    if h == "cast":
        return poly(t.args[0])
    if h == "%":  # a ^ b % m closed: modular exponentiation, the power never built
        got = _pow_mod(t)
        if got is not None:
            return Poly.const(got)
    if h == "neg":
        return Poly().add(poly(t.args[0]), -1)
    a, b = poly(t.args[0]), poly(t.args[1])
    ca, cb = a.constant(), b.constant()
    if h in ("/", "%", "-", "^") and ca is not None and cb is not None:
        return Poly.const(_arith(h, int(ca), int(cb), t.sort))
    if h == "+":
        return a.add(b)
    if h == "-" and t.sort == "Int":
        return a.add(b, -1)
    if h == "*":
        return a.mul(b)
    if h == "^":
        rest = Poly(b)
        k = rest.pop((), Fraction(0))
        if k < 0 or k > MAX_EXPONENT:
            raise KernelError("exponent too large")
        out = Poly.const(1)
        for _ in range(int(k)):
            out = out.mul(a)
        if rest:  # x ^ (e + k) = x ^ e * x ^ k; x ^ e is an atom
            # a closed base is its value (`(2 ^ 2) ^ n` and `4 ^ n` are one atom), as the
            # exponent is its canonical term
            c = a.constant()
            base = Lit(int(c), t.sort) if c is not None and c.denominator == 1 else t.args[0]
            base_exp = App("^", (base, _from_poly(rest)), t.sort)
            out = out.mul(Poly.atom(base_exp))
        return out
    return Poly.atom(t)  # truncated -, / and % with an unknown side


def _from_poly(p: Poly) -> Term:
    """A canonical Nat term for an exponent polynomial (the key of an ``x ^ e`` atom)."""
    out: Term | None = None
    for m, c in sorted(p.items(), key=repr):
        term: Term = Lit(int(c), "Nat")
        for x, k in m:
            for _ in range(k):
                term = App("*", (term, x), "Nat")
        out = term if out is None else App("+", (out, term), "Nat")
    return out if out is not None else Lit(0, "Nat")


def atoms(p: Poly) -> list[Term]:
    """The atoms of a polynomial, in first-occurrence order."""
    seen: dict[Term, None] = {}
    for m in p:
        for x, _ in m:
            seen.setdefault(x, None)
    return list(seen)


# ---------------------------------------------------------------- evaluation (decide)


def evaluate(t: Term) -> bool:
    """The truth of a closed quantifier-free proposition (Lean's semantics)."""
    if isinstance(t, App):
        h = t.head
        if h in ("True", "False"):
            return h == "True"
        if h in CONNS:
            a, b = evaluate(t.args[0]), evaluate(t.args[1])
            return {"∧": a and b, "∨": a or b, "→": (not a) or b, "↔": a == b}[h]
        if h in RELS:
            x, y = (poly(s).constant() for s in t.args)
            if x is None or y is None:
                raise KernelError("decide: the proposition is not closed")
            if h == "=":
                return x == y
            if h == "<":
                return x < y
            if h == "≤":
                return x <= y
            return int(y) - int(x) * _ediv(int(y), int(x)) == 0
    raise KernelError("decide: the proposition is not closed and quantifier-free")
