"""Mathlib's linarith preprocessing, as far as it decides which facts linarith sees and how it
reads them (Mathlib/Tactic/Linarith/Frontend.lean, Preprocessing.lean, Parsing.lean).

- ``comparisons``: the hypotheses linarith reads. ``LinarithConfig.splitHypotheses`` (default
  true, Frontend.lean) runs ``splitConjunctions`` first: ``P ∧ Q`` becomes ``P`` and ``Q``,
  recursively. ``filterComparisons`` then keeps ``= < ≤ > ≥`` and the negations of ``< ≤ > ≥``
  (``ineqOrNotIneq?``: a negated equality ``¬a = b`` and ``a ≠ b`` are dropped).
- ``linear_form``: ``linearFormOfExpr`` (Parsing.lean) reads a term as a polynomial over its
  atoms (``*`` multiplies, ``^`` by a numeral expands, ``-`` and ``neg`` negate), and each
  distinct non-constant monomial is one variable of the linear problem (``elimMonom``): atoms
  are identified up to ring normalisation, ``x * y`` and ``y * x`` are one variable. ℕ terms are
  cast to ℤ first (``natToInt`` + ``push_cast``): truncated ``-``, ``/`` and ``%`` stay atoms.
"""

from __future__ import annotations

from fractions import Fraction

from burnqed.embedded.elab.evaluate import try_eval
from burnqed.embedded.elab.expr import Conn, Const, Op, Rel, Term, alpha_key

__all__ = ["Monomial", "comparisons", "is_comparison", "linear_form"]

# a monomial: sorted (atom key, exponent) pairs; () is the constant monomial
Monomial = tuple[tuple[object, int], ...]


def is_comparison(t: Term) -> bool:
    """``filterComparisons``: ``t R s`` with R in ``= < ≤ > ≥``, ``¬ t R s`` with R in ``< ≤ > ≥``
    (Mathlib/Tactic/Linarith/Preprocessing.lean: a negated equality is no comparison), False."""
    if isinstance(t, Conn) and t.op == "¬":
        inner = t.args[0]
        return isinstance(inner, Rel) and inner.op in ("<", "≤", ">", "≥")
    return isinstance(t, Rel) and t.op in ("=", "<", "≤", ">", "≥") or t == Const("False")


def comparisons(t: Term) -> list[Term]:
    """The comparisons linarith reads from a hypothesis: ``splitConjunctions`` then
    ``filterComparisons``."""
    if isinstance(t, Conn) and t.op == "∧":
        return comparisons(t.args[0]) + comparisons(t.args[1])
    return [t] if is_comparison(t) else []


def _add(a: dict[Monomial, Fraction], b: dict[Monomial, Fraction], k: int = 1) -> dict[Monomial, Fraction]:
    out = dict(a)
    for m, c in b.items():
        v = out.get(m, Fraction(0)) + k * c
        if v:
            out[m] = v
        else:
            out.pop(m, None)
    return out


def _mul(a: dict[Monomial, Fraction], b: dict[Monomial, Fraction], limit: int) -> dict[Monomial, Fraction]:
    out: dict[Monomial, Fraction] = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            powers: dict[object, int] = dict(m1)
            for x, e in m2:
                powers[x] = powers.get(x, 0) + e
            mono = tuple(sorted(powers.items(), key=lambda p: repr(p[0])))
            out = _add(out, {mono: c1 * c2})
            if len(out) > limit:
                raise OverflowError("linarith: polynomial too large")
    return out


def linear_form(
    t: Term, atom: dict[object, Term], max_expand: int = 32, limit: int = 2500
) -> dict[Monomial, Fraction]:
    """The polynomial of a number term as ``linearFormOfExpr`` reads it; ``atom`` collects the
    atoms met (key: alpha key, value: the term). OverflowError past ``limit`` monomials."""
    v = try_eval(t)
    if v is not None:
        return {(): Fraction(v)} if v else {}
    if isinstance(t, Op):
        op, args = t.op, t.args
        if op == "cast":  # push_cast: ↑(a + b) = ↑a + ↑b, ↑(a * b) = ↑a * ↑b, ↑(a ^ n) = ↑a ^ n
            inner = args[0]
            if isinstance(inner, Op) and inner.op in ("+", "*", "^", "cast"):
                return linear_form(inner, atom, max_expand, limit)
            return _atom(inner if isinstance(inner, Op) else inner, atom)
        if op == "neg":
            return _add({}, linear_form(args[0], atom, max_expand, limit), -1)
        if op == "+":
            return _add(linear_form(args[0], atom, max_expand, limit), linear_form(args[1], atom, max_expand, limit))
        if op == "-" and t.ty == "Int":
            return _add(linear_form(args[0], atom, max_expand, limit), linear_form(args[1], atom, max_expand, limit), -1)
        if op == "*":
            return _mul(linear_form(args[0], atom, max_expand, limit), linear_form(args[1], atom, max_expand, limit), limit)
        if op == "^":
            e = try_eval(args[1])
            if e is not None and 0 <= e <= max_expand:
                base = linear_form(args[0], atom, max_expand, limit)
                out: dict[Monomial, Fraction] = {(): Fraction(1)}
                for _ in range(e):
                    out = _mul(out, base, limit)
                return out
    return _atom(t, atom)


def _atom(t: Term, atom: dict[object, Term]) -> dict[Monomial, Fraction]:
    key = alpha_key(t)
    atom.setdefault(key, t)
    return {((key, 1),): Fraction(1)}
