"""Lean's arithmetic, evaluated exactly on kernel terms: the independent oracle of the
kernel's encoding tests (tests/embedded/kernel/test_encodings.py) and of the
hostile-certificate campaign (``burnqed.embedded.soundness.kernel_attacks``). Written apart
from the kernel's own code: truncated Nat subtraction, ``Int.ediv``/``Int.emod`` (``x / 0 = 0``, ``x % 0 = x``),
``0 ∣ b ↔ b = 0``, ``0 ^ 0 = 1``."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.kernel import App, Free, Lit, Poly, Sequent

__all__ = ["DOMAIN", "fact_holds", "satisfiable", "value"]

DOMAIN = {"Int": tuple(range(-3, 4)), "Nat": tuple(range(0, 4))}


def _ediv(a: int, b: int) -> int:
    """``Int.ediv`` (Nat division on non-negative operands): ``a / 0 = 0``; otherwise
    ``sign b · ⌊a / |b|⌋``, so that the remainder is in ``[0, |b|)``."""
    if b == 0:
        return 0
    q = a // abs(b)
    return q if b > 0 else -q


def value(t: k.Term, env: dict[int, int]) -> Any:
    """The value of a kernel term (a number or a truth value) under an assignment of its
    free variables, with Lean's semantics; independent of the kernel's code."""
    if isinstance(t, Lit):
        return t.value
    if isinstance(t, Free):
        return env[t.uid]
    if not isinstance(t, App):
        raise TypeError(f"cannot evaluate {t!r}")
    h, s = t.head, t.sort
    if h in ("True", "False"):
        return h == "True"
    v = [value(a, env) for a in t.args]
    if h == "cast":
        return v[0]
    if h == "neg":
        return -v[0]
    if h == "∧":
        return v[0] and v[1]
    if h == "∨":
        return v[0] or v[1]
    if h == "→":
        return (not v[0]) or v[1]
    if h == "↔":
        return v[0] == v[1]
    a, b = v
    if h == "+":
        return a + b
    if h == "-":
        return a - b if s == "Int" else max(a - b, 0)
    if h == "*":
        return a * b
    if h == "/":
        return _ediv(a, b)
    if h == "%":
        return a - b * _ediv(a, b)
    if h == "^":
        if b > 64:
            raise OverflowError("exponent too large to evaluate")
        return a**b
    if h == "=":
        return a == b
    if h == "<":
        return a < b
    if h == "≤":
        return a <= b
    if h == "∣":  # ∃ c, b = a * c
        return b == 0 if a == 0 else b % a == 0
    raise TypeError(f"unknown head {h!r}")


def _poly_value(p: Poly, env: dict[int, int]) -> Fraction | int:
    # exact either way; the atoms' product and integral coefficients stay Python ints because
    # Fraction arithmetic made this oracle the hot spot of the encoding tests and campaigns
    whole, part = 0, Fraction(0)
    for m, c in p.items():
        prod: Fraction | int = 1
        for x, e in m:
            v = value(x, env)
            prod *= v**e if e >= 0 else Fraction(v) ** e
        if isinstance(c, int):
            whole += c * prod
        elif c.denominator == 1:
            whole += c.numerator * prod
        else:
            part += c * prod
    return whole + part if part else whole


def fact_holds(f: Any, env: dict[int, int]) -> bool:
    """Whether a kernel fact (``Lin``, ``PropLit``, ``Disj`` or a constant) holds when every
    atom takes its true value under ``env``."""
    if isinstance(f, bool):
        return f
    if isinstance(f, k.Lin):
        v = _poly_value(f.poly, env)
        return v == 0 if f.eq else v >= 0
    if isinstance(f, k.PropLit):
        return bool(value(f.atom, env)) == f.positive
    if isinstance(f, k.Disj):
        return any(all(fact_holds(g, env) for g in case) for case in f.cases)
    raise TypeError(f"not a fact: {f!r}")


def satisfiable(seq: Sequent) -> dict[int, int] | None:
    """An assignment of the context's variables (small domains) under which every
    hypothesis holds: the sequent ``hyps ⊢ False`` is then false. None when none is found."""
    vars_ = [e for e in seq.ctx if isinstance(e.ty, str)]
    hyps = [e.ty for e in seq.ctx if not isinstance(e.ty, str)]
    for values in itertools.product(*(DOMAIN[e.ty] for e in vars_)):  # type: ignore[index]
        env = {e.uid: v for e, v in zip(vars_, values, strict=True)}
        try:
            if all(value(h, env) for h in hyps):
                return env
        except OverflowError:
            continue
    return None
