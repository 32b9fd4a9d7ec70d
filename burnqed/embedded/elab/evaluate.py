"""Lean's arithmetic on closed terms, exactly: truncated ℕ subtraction, ``x / 0 = 0``,
``x % 0 = x``, and ℤ ``/`` ``%`` as ``Int.ediv`` / ``Int.emod`` (remainder never negative).

Evaluation is bounded: a result wider than ``max_bits`` bits (e.g. ``10 ^ 10 ^ 10``) is
refused with ``TooLarge`` rather than computed.
"""

from __future__ import annotations

from burnqed.embedded.elab.expr import (
    Binder,
    BVar,
    Conn,
    Const,
    FVar,
    MVar,
    ModEq,
    Num,
    Op,
    Rel,
    Term,
    unfold_modeq,
)

__all__ = [
    "TooLarge",
    "ediv",
    "emod",
    "eval_num",
    "eval_prop",
    "is_closed",
    "lean_div",
    "lean_mod",
    "try_eval",
]

DEFAULT_MAX_BITS = 4096


class TooLarge(Exception):
    """A closed computation whose result would exceed the size bound."""


def ediv(a: int, b: int) -> int:
    """``Int.ediv``: Euclidean division (``a = b * q + r`` with ``0 ≤ r < |b|``), ``a / 0 = 0``."""
    if b == 0:
        return 0
    q = a // b if b > 0 else -(a // -b)
    return q


def emod(a: int, b: int) -> int:
    """``Int.emod``: the non-negative remainder of Euclidean division, ``a % 0 = a``."""
    if b == 0:
        return a
    return a - b * ediv(a, b)


def lean_div(a: int, b: int, ty: str) -> int:
    """``/`` on Nat or Int (the same Euclidean rule; on Nat it is floor division)."""
    return ediv(a, b)


def lean_mod(a: int, b: int, ty: str) -> int:
    """``%`` on Nat or Int."""
    return emod(a, b)


def is_closed(t: Term) -> bool:
    """No variables of any kind inside."""
    stack = [t]
    while stack:
        s = stack.pop()
        if isinstance(s, (BVar, FVar, MVar)):
            return False
        if isinstance(s, Op | Conn):
            stack.extend(s.args)
        elif isinstance(s, Rel):
            stack.extend((s.lhs, s.rhs))
        elif isinstance(s, ModEq):
            stack.extend((s.n, s.a, s.b))
        elif isinstance(s, Binder):
            return False
    return True


def eval_num(t: Term, max_bits: int = DEFAULT_MAX_BITS) -> int:
    """Value of a closed number term (KeyError-free; ValueError if not closed; TooLarge)."""
    if isinstance(t, Num):
        return t.value
    if not isinstance(t, Op):
        raise ValueError("not a closed number")  # noqa: TRY004 - callers treat it as "cannot evaluate"
    if t.op == "cast":
        return eval_num(t.args[0], max_bits)
    if t.op == "neg":
        return -eval_num(t.args[0], max_bits)
    a = eval_num(t.args[0], max_bits)
    b = eval_num(t.args[1], max_bits)
    if t.op == "+":
        r = a + b
    elif t.op == "-":
        r = a - b
        if t.ty == "Nat" and r < 0:
            r = 0
    elif t.op == "*":
        r = a * b
    elif t.op == "/":
        r = lean_div(a, b, t.ty)
    elif t.op == "%":
        r = lean_mod(a, b, t.ty)
    elif t.op == "^":
        if b < 0:
            raise ValueError("negative exponent")
        if abs(a) > 1 and b * max(1, abs(a).bit_length() - 1) > max_bits:
            raise TooLarge(f"power too large: exponent {b}")
        r = a**b
    else:
        raise ValueError(t.op)
    if r.bit_length() > max_bits:
        raise TooLarge("numeral too large")
    return r


def try_eval(t: Term, max_bits: int = DEFAULT_MAX_BITS) -> int | None:
    """Value of a closed number term, or None (not closed or too large)."""
    if not isinstance(t, Num | Op) or not is_closed(t):
        return None
    try:
        return eval_num(t, max_bits)
    except (ValueError, TooLarge):
        return None


def eval_prop(t: Term, max_bits: int = DEFAULT_MAX_BITS) -> bool:
    """Truth of a closed, quantifier-free proposition (ValueError if it is not one)."""
    if isinstance(t, Const):
        return t.name == "True"
    if isinstance(t, Rel):
        a, b = eval_num(t.lhs, max_bits), eval_num(t.rhs, max_bits)
        op = t.op
        if op == "=":
            return a == b
        if op == "≠":
            return a != b
        if op == "<":
            return a < b
        if op == "≤":
            return a <= b
        if op == ">":
            return a > b
        if op == "≥":
            return a >= b
        # a ∣ b  ↔  ∃ c, b = a * c
        return b == 0 if a == 0 else b % a == 0
    if isinstance(t, ModEq):
        # `instance : Decidable (ModEq n a b)` decides its body a % n = b % n
        # (Mathlib/Data/Nat/ModEq.lean, Mathlib/Data/Int/ModEq.lean)
        return eval_prop(unfold_modeq(t), max_bits)
    if isinstance(t, Conn):
        vals = [eval_prop(x, max_bits) for x in t.args]
        if t.op == "¬":
            return not vals[0]
        if t.op == "∧":
            return vals[0] and vals[1]
        if t.op == "∨":
            return vals[0] or vals[1]
        if t.op == "→":
            return (not vals[0]) or vals[1]
        return vals[0] == vals[1]
    raise ValueError("not a closed quantifier-free proposition")
