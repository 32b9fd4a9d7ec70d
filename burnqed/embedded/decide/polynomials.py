"""sympy back end of ring / simp / norm_num: terms as polynomials over opaque atoms.

``+ - * ^`` (literal exponents) map to sympy; ℕ subtraction, ``/``, ``%``, variable
exponents and anything non-polynomial become atoms (one symbol per alpha-equal term), so a
polynomial identity found by sympy is an identity of the original terms. ``↑x`` is the same
number as ``x``. The size of an expansion is estimated first and refused (``TooLarge``)
beyond a bound, so ``(a + b + c) ^ 30 * ...`` cannot blow up memory.
"""

from __future__ import annotations

from math import comb
from typing import Any

from burnqed.embedded.decide.libraries import load
from burnqed.embedded.elab.evaluate import TooLarge, try_eval
from burnqed.embedded.elab.expr import Op, Term, alpha_key

__all__ = ["MAX_TERMS", "difference", "estimate_terms", "to_sympy"]

MAX_TERMS = 2_500


def _lib() -> Any:
    return load("sympy")


def estimate_terms(t: Term, max_expand: int = 32) -> int:
    """Upper bound on the number of monomials after expansion."""
    if try_eval(t) is not None or not isinstance(t, Op):
        return 1
    op, args = t.op, t.args
    if op in ("cast", "neg"):
        return estimate_terms(args[0], max_expand)
    if op in ("+",) or (op == "-" and t.ty == "Int"):
        return estimate_terms(args[0], max_expand) + estimate_terms(args[1], max_expand)
    if op == "*":
        return estimate_terms(args[0], max_expand) * estimate_terms(args[1], max_expand)
    if op == "^":
        e = try_eval(args[1])
        if e is None or e > max_expand:
            return 1
        n = estimate_terms(args[0], max_expand)
        return comb(n + e - 1, e) if n > 1 else 1
    return 1


def to_sympy(t: Term, atoms: dict[object, Any], max_expand: int = 32) -> Any:
    """A sympy expression for a number term (atoms filled in as needed)."""
    sp = _lib()
    v = try_eval(t)
    if v is not None:
        return sp.Integer(v)
    if isinstance(t, Op):
        op, args = t.op, t.args
        if op == "cast":
            return to_sympy(args[0], atoms, max_expand)
        if op == "neg":
            return -to_sympy(args[0], atoms, max_expand)
        if op == "+":
            return to_sympy(args[0], atoms, max_expand) + to_sympy(
                args[1], atoms, max_expand
            )
        if op == "-" and t.ty == "Int":
            return to_sympy(args[0], atoms, max_expand) - to_sympy(
                args[1], atoms, max_expand
            )
        if op == "*":
            return to_sympy(args[0], atoms, max_expand) * to_sympy(
                args[1], atoms, max_expand
            )
        if op == "^":
            e = try_eval(args[1])
            if e is not None and e <= max_expand:
                return to_sympy(args[0], atoms, max_expand) ** e
            if e is None:
                return _variable_power(args[0], args[1], atoms, max_expand)
    key = alpha_key(t)
    sym = atoms.get(key)
    if sym is None:
        sym = sp.Symbol(f"a{len(atoms)}")
        atoms[key] = sym
    return sym


def _variable_power(base: Term, exponent: Term, atoms: dict[object, Any], max_expand: int) -> Any:
    """``b ^ (e + k)`` as ``b ^ e · b ^ k`` with ``b ^ e`` one atom per base and exponent
    polynomial (as the kernel's normal form does): ``x ^ (n + 1) = x ^ n * x``,
    ``x ^ (n + n) = x ^ (2 * n)``."""
    sp = _lib()
    exp = sp.expand(to_sympy(exponent, atoms, max_expand))
    k, rest = exp.as_coeff_Add()
    if not (k.is_Integer and 0 <= int(k) <= max_expand):
        k, rest = sp.Integer(0), exp
    key = ("^", alpha_key(base), sp.srepr(rest))
    sym = atoms.get(key)
    if sym is None:
        sym = sp.Symbol(f"a{len(atoms)}")
        atoms[key] = sym
    return sym * to_sympy(base, atoms, max_expand) ** int(k) if k else sym


def difference(
    lhs: Term, rhs: Term, max_expand: int = 32, atoms: dict[object, Any] | None = None
) -> Any:
    """``expand(lhs - rhs)`` as a sympy expression (TooLarge when the expansion is too big)."""
    if estimate_terms(lhs, max_expand) + estimate_terms(rhs, max_expand) > MAX_TERMS:
        raise TooLarge("expansion too large")
    sp = _lib()
    table = {} if atoms is None else atoms
    return sp.expand(
        to_sympy(lhs, table, max_expand) - to_sympy(rhs, table, max_expand)
    )
