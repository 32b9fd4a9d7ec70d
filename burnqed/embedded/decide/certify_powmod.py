"""Certificates for remainders of polynomials by a numeral (issue 37): ``x ^ 3 % 7 = 6`` from
``x % 7 = 3``, ``a * b * (a + b) % 7 = 2`` from pinned remainders, ``x ^ 3 % 9 = (x % 9) ^ 3 % 9``
(a ``Nat.pow_mod`` instance). What Lean's ``simp [Nat.pow_mod, h]`` / ``decide`` reach by
rewriting, the kernel gets as arithmetic.

The certificate substitutes ``x = m * (x / m) + x % m`` into the polynomial ``u`` of the goal's
remainder ``u % m``: ``u(x) - u(s) = (x - s) * M`` with ``M`` the quotient of the polynomial
division by ``x - s``, one kernel ``mul_eq`` step per variable (the definition equality the
kernel's facts hold, times ``M``); a remainder pinned by a fact ``x % m = c`` is substituted the
same way. What is left, ``u % m - v % m = m * z + c`` with ``z`` a polynomial with integer
coefficients, is decided by the cuts ``z ≤ -1``, ``z = 0``, ``z ≥ 1`` (both remainders lie in
``[0, m)``) and a linear search in each branch. Untrusted like every certificate: the kernel
recomputes each product and re-checks the whole refutation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify import Budget, internal_uid
from burnqed.embedded.decide.certify_mod import _mod_definitions, _three_ways, prove_mod_product

__all__ = ["prove_mod", "remainder_certificate"]

_MAX_DEGREE = 8


def _by_power(p: k.Poly, x: k.Term) -> dict[int, k.Poly]:
    """``p`` as a polynomial in ``x``: exponent ↦ coefficient polynomial."""
    out: dict[int, k.Poly] = {}
    for mono, c in p.items():
        e = next((n for t, n in mono if t == x), 0)
        rest = tuple((t, n) for t, n in mono if t != x)
        out[e] = out.get(e, k.Poly()).add(k.Poly({rest: c}))
    return out


def _pow(p: k.Poly, n: int) -> k.Poly:
    out = k.Poly.const(1)
    for _ in range(n):
        out = out.mul(p)
    return out


def _divide(p: k.Poly, x: k.Term, s: k.Poly) -> tuple[k.Poly, k.Poly]:
    """``(M, p(s))`` with ``p(x) - p(s) = (x - s) * M`` (x^k - s^k = (x - s) Σ x^(k-1-j) s^j)."""
    xs = k.Poly.atom(x)
    mult, value = k.Poly(), k.Poly()
    for e, c in _by_power(p, x).items():
        if e > _MAX_DEGREE:
            raise k.KernelError("remainder certificate: degree too high")
        value = value.add(c.mul(_pow(s, e)))
        for j in range(e):
            mult = mult.add(c.mul(_pow(xs, e - 1 - j)).mul(_pow(s, j)))
    return mult, value


def _unit_equation(f: object, x: k.Term, rest: k.Poly) -> int | None:
    """``a`` (±1) when the fact is ``a * (x - rest) = 0``."""
    if not (isinstance(f, k.Lin) and f.eq):
        return None
    for a in (1, -1):
        if f.poly == k.Poly.atom(x).add(rest, -1).mul(k.Poly.const(a)):
            return a
    return None


def _substitute(
    fs: k.FactSet, u: k.Poly, m: int, steps: list[tuple[Any, ...]]
) -> k.Poly | None:
    """``u`` after substituting every variable with a remainder by ``m`` and every pinned
    remainder; the ``mul_eq`` steps that justify it are appended to ``steps`` and their facts
    added to ``fs``."""
    defs = {x: (r, i) for x, (r, i) in _mod_definitions(fs).items() if k.poly(r.args[1]).constant() == m}  # type: ignore[union-attr]
    for x, (r, i) in defs.items():
        if not any(t == x for mono in u for t, _ in mono):
            continue
        q = k.App("/", r.args, r.sort)  # type: ignore[union-attr]
        s = k.Poly.atom(q).mul(k.Poly.const(m)).add(k.Poly.atom(r))
        a = _unit_equation(fs.facts[i], x, s)
        if a is None:
            return None
        mult, u = _divide(u, x, s)
        if mult:
            steps.append(("mul_eq", i, mult.mul(k.Poly.const(a))))
            fs.add(k.Lin(fs.facts[i].poly.mul(mult.mul(k.Poly.const(a))), True))  # type: ignore[union-attr]
    for j, f in enumerate(list(fs.facts)):  # pinned remainders: r - c = 0
        if not (isinstance(f, k.Lin) and f.eq and len(f.poly) <= 2):
            continue
        monos = [mo for mo in f.poly if mo != ()]
        if len(monos) != 1 or len(monos[0]) != 1 or monos[0][0][1] != 1:
            continue
        r = monos[0][0][0]
        if not (isinstance(r, k.App) and r.head == "%") or not any(t == r for mono in u for t, _ in mono):
            continue
        c = -f.poly.get((), Fraction(0)) / f.poly[monos[0]]
        a = _unit_equation(f, r, k.Poly.const(c))
        if a is None:
            continue
        mult, u = _divide(u, r, k.Poly.const(c))
        if mult:
            steps.append(("mul_eq", j, mult.mul(k.Poly.const(a))))
            fs.add(k.Lin(f.poly.mul(mult.mul(k.Poly.const(a))), True))
    return u


def remainder_certificate(fs: k.FactSet, goal: k.Term, budget: Budget) -> tuple[Any, ...] | None:
    """A refutation of ``fs`` (which holds the negated ``goal``) for a goal ``u % m = v % m``
    or ``u % m = d`` (``m``, ``d`` numerals) or its negation, by substitution and the
    quotient's cuts; None
    when the shape does not fit or no certificate is found. Adds facts to ``fs``."""
    if isinstance(goal, k.App) and goal.head == "→" and goal.args[1] == k.FALSE:
        goal = goal.args[0]  # ¬(u % m = d): the facts hold u % m = d, refuted the same way
    if not (isinstance(goal, k.App) and goal.head == "="):
        return None
    lhs, rhs = goal.args
    if not (isinstance(lhs, k.App) and lhs.head == "%" and k.poly(lhs) == k.Poly.atom(lhs)):
        return None
    m = k.poly(lhs.args[1]).constant()
    if not m or m.denominator != 1:
        return None
    m = int(m)
    steps: list[tuple[Any, ...]] = []
    try:
        left = _substitute(fs, k.poly(lhs.args[0]), m, steps)
        z = k.Poly.atom(k.App("/", lhs.args, lhs.sort)).mul(k.Poly.const(-1))
        if isinstance(rhs, k.App) and rhs.head == "%" and k.poly(rhs) == k.Poly.atom(rhs):
            if k.poly(rhs.args[1]).constant() != m:
                return None
            right = _substitute(fs, k.poly(rhs.args[0]), m, steps)
            z = z.add(k.Poly.atom(k.App("/", rhs.args, rhs.sort)))
        elif k.poly(rhs).constant() is not None:
            right = k.poly(rhs)
        else:
            return None
        if left is None or right is None or not steps:
            return None
        diff = left.add(right, -1)
        c0 = diff.pop((), Fraction(0))
        if c0.denominator != 1 or any(v.denominator != 1 or int(v) % m for v in diff.values()):
            return None  # the rest is no multiple of m: no such proof
        # u % m - (v % m or d) = m * z + (c0 mod m): the cuts pin z to 0
        z = z.add(diff, Fraction(1, m)).add(k.Poly.const(int(c0) // m))
    except k.KernelError:
        return None
    cert = _three_ways(fs, z, budget)
    for w in reversed(steps):
        cert = None if cert is None else (*w, cert)
    return cert


def prove_mod(
    seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]], goal: k.Term, *, budget: Budget | None = None
) -> k.Proof | None:
    """``goal`` by contradiction where remainders by a numeral are involved: the substitution
    certificate (``remainder_certificate``), else the products of decide/certify_mod.py. None if
    neither is found."""
    budget = budget or Budget()
    u = internal_uid()
    neg = k.App("→", (goal, k.FALSE), "Prop")
    ctx = seq.to(goal)
    fs = k.FactSet(ctx)
    try:
        for p in [*(t for _, t in premises), neg]:
            fs.add(k.nnf(p, True, ctx))
        cert = remainder_certificate(fs, goal, budget.scaled(2))
    except k.KernelError:
        cert = None
    if cert is None:
        return prove_mod_product(seq, premises, goal, budget=budget)
    facts = (*(pr for pr, _ in premises), k.Hyp(u))
    return k.ByContra(u, k.Arith(facts, cert))
