"""Integer linear reasoning for decide/certify.py's search (untrusted, as all of it): exact
Farkas multipliers by Fourier–Motzkin elimination, equalities solved over the integers, the
cuts the rational relaxation violates, and the bounded linear forms omega splits on."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.smt import _lib

__all__ = ["cuts", "eliminated", "fourier_motzkin", "lins", "narrowest", "q", "real_sum"]

_Q_CACHE: dict[Fraction, Any] = {}


def q(z3: Any, v: Fraction) -> Any:
    """The z3 rational of ``v``."""
    got = _Q_CACHE.get(v)
    if got is None:  # building z3 numerals dominates a search's time; they are immutable
        if len(_Q_CACHE) > 4096:
            _Q_CACHE.clear()
        got = _Q_CACHE[v] = z3.Q(v.numerator, v.denominator)
    return got


def real_sum(z3: Any, poly: k.Poly, var: dict[k.Monomial, Any]) -> Any:
    """``poly`` as a z3 real sum, each monomial a real variable (made on first use in ``var``)."""
    terms = []
    for m, c in poly.items():
        if m == ():
            terms.append(q(z3, c))
        else:
            if m not in var:
                var[m] = z3.Real(f"m{len(var)}")
            terms.append(var[m] * q(z3, c))
    return z3.Sum(terms) if terms else z3.RealVal(0)


def lins(fs: k.FactSet) -> list[tuple[int, k.Lin]]:
    """The linear facts with their indices, each distinct fact once (a certificate names
    the first copy)."""
    out: list[tuple[int, k.Lin]] = []
    seen: set[tuple[bool, frozenset[Any]]] = set()
    for i, f in enumerate(fs.facts):
        if isinstance(f, k.Lin):
            key = (f.eq, frozenset(f.poly.items()))
            if key not in seen:
                seen.add(key)
                out.append((i, f))
    return out


_FM_ROWS = 64


def _int_row(poly: k.Poly, sign: int) -> dict[Any, int]:
    scale = math.lcm(*(c.denominator for c in poly.values())) if poly else 1
    return {m: sign * int(c * scale) for m, c in poly.items()}


def fourier_motzkin(facts: list[tuple[int, k.Lin]]) -> tuple[Any, ...] | None | bool:
    """Farkas multipliers by Fourier–Motzkin elimination over the integers (small systems);
    False when the system is too large for it (ask z3), None when there are none."""
    rows: list[tuple[dict[Any, int], dict[int, int]]] = []
    for i, f in facts:
        scale = math.lcm(*(c.denominator for c in f.poly.values())) if f.poly else 1
        rows.append((_int_row(f.poly, 1), {i: scale}))
        if f.eq:
            rows.append((_int_row(f.poly, -1), {i: -scale}))
    while True:
        for poly, combo in rows:
            if all(m == () for m in poly) and poly.get((), 0) < 0:
                return ("farkas", tuple(sorted((i, Fraction(c)) for i, c in combo.items() if c)))
        monos = {m for poly, _ in rows for m in poly if m != ()}
        if not monos:
            return None

        def cost(m: Any) -> int:
            pos = sum(1 for poly, _ in rows if poly.get(m, 0) > 0)
            return pos * sum(1 for poly, _ in rows if poly.get(m, 0) < 0) - pos

        m = min(monos, key=cost)
        keep = [r for r in rows if not r[0].get(m)]
        pos = [r for r in rows if r[0].get(m, 0) > 0]
        neg = [r for r in rows if r[0].get(m, 0) < 0]
        if len(keep) + len(pos) * len(neg) > _FM_ROWS:
            return False
        for pp, pc in pos:
            for np_, nc in neg:
                a, b = -np_[m], pp[m]  # a·p + b·n cancels m
                g = math.gcd(a, b)
                a, b = a // g, b // g
                poly = {x: a * pp.get(x, 0) + b * np_.get(x, 0) for x in pp.keys() | np_.keys()}
                poly = {x: c for x, c in poly.items() if c}
                combo = {i: a * pc.get(i, 0) + b * nc.get(i, 0) for i in pc.keys() | nc.keys()}
                h = math.gcd(*poly.values(), *combo.values())
                if h > 1:  # both scale together, so dividing keeps the row exact
                    poly = {x: c // h for x, c in poly.items()}
                    combo = {i: c // h for i, c in combo.items()}
                keep.append((poly, combo))
        rows = keep


def eliminated(fs: k.FactSet) -> list[k.Poly]:
    """Equalities after eliminating monomials with a unit coefficient (Gauss over the
    integers): what is left carries the divisibility the relaxation ignores."""
    work = [f.poly for _, f in lins(fs) if f.eq]
    ineqs = [f.poly for _, f in lins(fs) if not f.eq]
    for q in ineqs:  # p ≥ 0 and -p ≥ 0 (a cut's pinned value) make an equality too
        neg = k.Poly({m: -c for m, c in q.items()})
        if neg in ineqs and neg not in work and q not in work:
            work.append(q)
    done: list[k.Poly] = []
    work = [_primitive(w) for w in work]
    while work:
        e = work.pop()
        others = work + done
        unit = next(
            (m for m, c in e.items() if m != () and abs(c) == 1 and any(m in w for w in others)),
            None,
        )
        if unit is None:
            done.append(e)
            continue
        work = [_primitive(w.add(e, -w[unit] / e[unit])) if unit in w else w for w in work]
        done = [_primitive(w.add(e, -w[unit] / e[unit])) if unit in w else w for w in done]
    return done


def _primitive(p: k.Poly) -> k.Poly:
    """An equality with integer coefficients divided by their gcd (``4x = 12q - 20`` is
    ``x = 3q - 5``: a unit coefficient to eliminate)."""
    coeffs = [c for m, c in p.items() if m != ()]
    if not coeffs or any(c.denominator != 1 for c in coeffs):
        return p
    g = math.gcd(*(int(c) for c in coeffs))
    return p if g <= 1 else k.Poly({m: c / g for m, c in p.items()})


def cuts(fs: k.FactSet, values: dict[k.Monomial, Fraction]) -> list[tuple[k.Poly, int]]:
    """Integer cuts ``p ≤ c ∨ p ≥ c + 1`` that the relaxation's solution violates: scaled
    parts of eliminated equalities first, then single monomials."""
    out: list[tuple[k.Poly, int]] = []

    def value(p: k.Poly) -> Fraction:
        return sum((c * values.get(m, Fraction(0)) for m, c in p.items()), Fraction(0))

    for e in eliminated(fs):
        for g in sorted({abs(int(c)) for m, c in e.items() if m != () and c.denominator == 1 and abs(c) > 1}):
            part = k.Poly({m: c / g for m, c in e.items() if m != () and c.denominator == 1 and int(c) % g == 0})
            v = value(part)
            if part and v.denominator != 1:
                out.append((part, math.floor(v)))
    for m, v in values.items():
        if v.denominator != 1:
            out.append((k.Poly({m: Fraction(1)}), math.floor(v)))
    return out


_ENUMERATE = 16  # the most integer values one bounded form is split into


def _bounds(
    fs: k.FactSet, forms: list[k.Poly], check: Callable[[Any], Any]
) -> list[tuple[Fraction, Fraction] | None]:
    """The least and greatest value of each form over the rational relaxation (None:
    unbounded or unknown), all in one box-priority optimisation run by ``check`` (the
    search's bounded ``Budget.check``)."""
    z3 = _lib()
    o = z3.Optimize()
    o.set(priority="box")
    var: dict[k.Monomial, Any] = {}

    def expr(poly: k.Poly) -> Any:
        return real_sum(z3, poly, var)

    for _, f in lins(fs):
        e = expr(f.poly)
        o.add(e == 0 if f.eq else e >= 0)
    handles = [(o.minimize(expr(p)), o.maximize(expr(p))) for p in forms]
    if check(o) != z3.sat:
        return [None] * len(forms)

    def value(v: Any) -> Fraction | None:
        if z3.is_int_value(v):
            return Fraction(v.as_long())
        if z3.is_rational_value(v):
            return Fraction(v.as_fraction())
        return None  # ±oo or an infinitesimal

    out: list[tuple[Fraction, Fraction] | None] = []
    for lo_h, hi_h in handles:
        lo, hi = value(lo_h.value()), value(hi_h.value())
        out.append(None if lo is None or hi is None else (lo, hi))
    return out


def narrowest(
    fs: k.FactSet, values: dict[k.Monomial, Fraction], check: Callable[[Any], Any]
) -> tuple[k.Poly, int, int] | None:
    """A bounded integer form that is not yet pinned, with the fewest integer values
    (``p``, least, greatest): splitting on each of its values is a finite case analysis
    (omega's way with the quotient of a ``%``/``/``: the residue equation bounds it)."""
    forms: list[k.Poly] = []
    for e in eliminated(fs):
        # the whole linear part too: `2q - r = 4/5` pins it to a value no integer has
        for g in sorted({1} | {abs(int(c)) for m, c in e.items() if m != () and c.denominator == 1 and abs(c) > 1}):
            part = k.Poly({m: c / g for m, c in e.items() if m != () and c.denominator == 1 and int(c) % g == 0})
            if part and part not in forms:
                forms.append(part)
    for m in values:
        p = k.Poly({m: Fraction(1)})
        if p not in forms:
            forms.append(p)
    forms = [p for p in forms if all(c.denominator == 1 for c in p.values())]
    if not forms:
        return None
    best: tuple[int, k.Poly, int, int] | None = None
    for p, b in zip(forms, _bounds(fs, forms, check), strict=True):
        if b is None:
            continue
        lo, hi = math.ceil(b[0]), math.floor(b[1])
        if b[0] == b[1] and lo == hi:
            continue  # pinned already
        n = hi - lo + 1
        if n <= _ENUMERATE and (best is None or n < best[0]):
            best = (n, p, lo, hi)
    return None if best is None else best[1:]  # type: ignore[return-value]


