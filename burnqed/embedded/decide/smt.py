"""z3 back end of omega / linarith / nlinarith: a sound encoding of the fragment's arithmetic.

Soundness rules: ℕ variables and ℕ-valued atoms are constrained ``≥ 0``; ℕ subtraction is
``if a ≥ b then a - b else 0``; ``/`` and ``%`` by a literal use SMT-LIB's Euclidean
``div``/``mod`` (Lean's ``Int.ediv``/``Int.emod``, and floor division on ℕ) with
``x / 0 = 0`` and ``x % 0 = x``; anything else (non-literal divisors, non-linear products in
linear mode, powers with a variable exponent, quantified formulas) is an opaque atom, the
same atom for alpha-equal terms. Strict integer comparisons are strengthened
(``a < b`` ↦ ``a + 1 ≤ b``) after pushing negations in, so the real-arithmetic mode of
nlinarith stays sound for integers. A goal counts as proved only when z3 answers ``unsat``
for hypotheses ∧ ¬target within its resource bound (z3's ``rlimit``, a count, not a
time); ``unknown`` is a failure.
"""

from __future__ import annotations

import time
from typing import Any

from burnqed.embedded.decide.libraries import load
from burnqed.embedded.elab.evaluate import try_eval
from burnqed.embedded.decide.linarith_pre import linear_form
from burnqed.embedded.elab.expr import (
    Binder,
    BVar,
    Conn,
    Const,
    FVar,
    MVar,
    Num,
    Op,
    Rel,
    Term,
    alpha_key,
)

__all__ = ["Encoder", "bounded_check", "prove", "rlimit_count"]


def _lib() -> Any:
    return load("z3")


class Encoder:
    """Translates terms to z3 (``linear``: products of non-constants become atoms; ``real``: Real sort)."""

    def __init__(self, linear: bool, real: bool, max_expand: int = 32, omega: bool = False) -> None:
        self.z3 = _lib()
        self.linear = linear
        self.omega = omega
        self.real = real
        self.max_expand = max_expand
        self.atoms: dict[object, Any] = {}
        self.side: list[Any] = []
        self._n = 0

    def _fresh(self, ty: str, key: object, label: str) -> Any:
        got = self.atoms.get(key)
        if got is not None:
            return got
        self._n += 1
        z3 = self.z3
        if ty == "Prop":
            v = z3.Bool(f"{label}{self._n}")
        else:
            v = (
                z3.Real(f"{label}{self._n}")
                if self.real
                else z3.Int(f"{label}{self._n}")
            )
            if ty == "Nat":
                self.side.append(v >= 0)
        self.atoms[key] = v
        return v

    def _const(self, k: int) -> Any:
        return self.z3.RealVal(k) if self.real else self.z3.IntVal(k)

    # ---------------------------------------------------------------- numbers
    def num(self, t: Term) -> Any:
        """A z3 arithmetic expression for a number term."""
        if self.linear and self.real:
            return self._linarith_num(t)
        v = try_eval(t)
        if v is not None:
            return self._const(v)
        if isinstance(t, FVar | BVar | MVar):
            return self._fresh(t.ty, alpha_key(t), "x")
        if not isinstance(t, Op):
            return self._fresh(t.ty if hasattr(t, "ty") else "Int", alpha_key(t), "a")
        z3 = self.z3
        op, args, ty = t.op, t.args, t.ty
        if op == "cast":
            return self.num(args[0])
        if op == "neg":
            return -self.num(args[0])
        a_t, b_t = args
        if op == "+":
            return self.num(a_t) + self.num(b_t)
        if op == "-":
            if ty == "Nat" and self.real:
                # Mathlib's linarith casts ℕ facts to ℤ (natToInt, push_cast): ↑(a - b) stays
                # an atom (Nat.cast_sub needs b ≤ a), known only to be ≥ 0
                return self._atom(t)
            a, b = self.num(a_t), self.num(b_t)
            return z3.If(a >= b, a - b, self._const(0)) if ty == "Nat" else a - b
        if op == "*":
            if self.linear and try_eval(a_t) is None and try_eval(b_t) is None:
                return self._atom(t)
            return self.num(a_t) * self.num(b_t)
        if op in ("/", "%"):
            k = try_eval(b_t)
            if k is None or self.real:
                return self._atom(t)
            a = self.num(a_t)
            if k == 0:
                return self._const(0) if op == "/" else a
            return a / self._const(k) if op == "/" else a % self._const(k)
        if op == "^":
            e = try_eval(b_t)
            if e is None:
                if (
                    self.omega
                    and try_eval(a_t) is not None
                    and isinstance(b_t, Op)
                    and b_t.op == "+"
                    and b_t.args[1] == Num(1, "Nat")
                ):
                    # Lean's omega unfolds `b ^ (k + 1)` with a ground base to `b ^ k * b`
                    # (Elab/Tactic/Omega/Frontend.lean, asLinearComboImpl: `succ? k`, then
                    # `Int.pow_succ`; ℕ through `Int.ofNat_pow`), so `4 ^ (n + 1 + 1)` is
                    # `4 * 4 * 4 ^ n` in the atom `4 ^ n`
                    return self.num(Op("^", (a_t, b_t.args[0]), t.ty)) * self.num(a_t)
                return self._atom(t)
            if self.omega:
                # Lean's omega (Elab/Tactic/Omega/Frontend.lean, asLinearComboImpl) evaluates
                # a ground power and unfolds only `b ^ (k + 1)` with a ground base: `x ^ 0`,
                # `x ^ 1`, `x ^ 2` of a variable are atoms of their own
                return self._atom(t)
            if e == 0:
                return self._const(1)
            if e == 1:
                return self.num(a_t)
            if self.linear or e > self.max_expand:
                return self._atom(t)
            base = self.num(a_t)
            out = base
            for _ in range(e - 1):
                out = out * base
            return out
        return self._atom(t)

    def _linarith_num(self, t: Term) -> Any:
        """linarith's reading (linarith_pre.linear_form, Mathlib's linearFormOfExpr): each
        distinct monomial of the ring-normalised polynomial is one variable; only atoms of
        ℕ terms are ``≥ 0`` (natToInt adds ``0 ≤ ↑a`` for the cast atoms, not for products)."""
        atoms: dict[object, Term] = {}
        try:
            form = linear_form(t, atoms, self.max_expand)
        except OverflowError:
            return self._atom(t)
        z3 = self.z3
        total = []
        for mono, c in form.items():
            coeff = z3.RealVal(f"{c.numerator}/{c.denominator}")
            if mono == ():
                total.append(coeff)
                continue
            if len(mono) == 1 and mono[0][1] == 1:
                x = atoms[mono[0][0]]
                var = self._fresh(getattr(x, "ty", "Int"), mono[0][0], "x")
            else:
                var = self._fresh("Int", ("monomial", mono), "m")
            total.append(coeff * var)
        return z3.Sum(total) if total else z3.RealVal(0)

    def _atom(self, t: Term) -> Any:
        return self._fresh(t.ty if isinstance(t, Op) else "Int", alpha_key(t), "t")

    # ---------------------------------------------------------------- propositions (negation normal form)
    def prop(self, t: Term, positive: bool = True) -> Any:
        """A z3 Bool for ``t`` (``positive`` False: for ``¬t``), negations pushed to atoms."""
        z3 = self.z3
        if isinstance(t, Const):
            return z3.BoolVal((t.name == "True") == positive)
        if isinstance(t, Conn):
            op = t.op
            if op == "¬":
                return self.prop(t.args[0], not positive)
            a, b = t.args
            if op == "∧":
                return (
                    z3.And(self.prop(a, True), self.prop(b, True))
                    if positive
                    else z3.Or(self.prop(a, False), self.prop(b, False))
                )
            if op == "∨":
                return (
                    z3.Or(self.prop(a, True), self.prop(b, True))
                    if positive
                    else z3.And(self.prop(a, False), self.prop(b, False))
                )
            if op == "→":
                return (
                    z3.Or(self.prop(a, False), self.prop(b, True))
                    if positive
                    else z3.And(self.prop(a, True), self.prop(b, False))
                )
            # ↔
            if positive:
                return z3.And(
                    z3.Or(self.prop(a, False), self.prop(b, True)),
                    z3.Or(self.prop(b, False), self.prop(a, True)),
                )
            return z3.Or(
                z3.And(self.prop(a, True), self.prop(b, False)),
                z3.And(self.prop(b, True), self.prop(a, False)),
            )
        if isinstance(t, Rel):
            return self._rel(t, positive)
        # Prop variables and quantified formulas: opaque atoms
        atom = self._fresh("Prop", alpha_key(t), "p")
        return atom if positive else z3.Not(atom)

    def _rel(self, t: Rel, positive: bool) -> Any:
        z3 = self.z3
        op = t.op
        if op == "∣":
            k = try_eval(t.lhs)
            if k is None or self.real:
                atom = self._fresh("Prop", alpha_key(t), "d")
            else:
                b = self.num(t.rhs)
                atom = b == 0 if k == 0 else (b % self._const(abs(k))) == 0
            return atom if positive else z3.Not(atom)
        a, b = self.num(t.lhs), self.num(t.rhs)
        if op in (">", "≥"):
            a, b = b, a
            op = "<" if op == ">" else "≤"
        if op == "≠":
            op, positive = "=", not positive
        one = self._const(1)
        if op == "=":
            return a == b if positive else z3.Or(a + one <= b, b + one <= a)
        if op == "<":
            return a + one <= b if positive else b <= a
        # ≤
        return a <= b if positive else b + one <= a


def bounded_check(solver: Any, rlimit: int, deadline: float | None) -> tuple[Any, int, str]:
    """``solver.check()`` within ``rlimit`` z3 resource units (a count of z3's own work steps, so
    the same question gets the same answer whatever the machine load) and, only as a safety
    net for hung work, the request's wall-clock ``deadline``. Returns the result, the units
    spent, and why an ``unknown`` came: ``"rlimit"`` (the bound), ``"deadline"`` (the clock:
    the caller answers a timeout) or ``""`` (z3 gave up: incomplete, not a bound)."""
    z3 = _lib()
    before = rlimit_count(solver)
    solver.set("rlimit", max(1, rlimit))
    if deadline is not None:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            return z3.unknown, 0, "deadline"
        solver.set("timeout", left)
    result = solver.check()
    spent = rlimit_count(solver) - before
    if result != z3.unknown:
        return result, spent, ""
    reason = str(solver.reason_unknown())
    if "resource limit" in reason:
        return result, spent, "rlimit"
    if "canceled" not in reason and "timeout" not in reason:
        return result, spent, ""
    # z3 may say "canceled" for both; its resource counter tells them apart (the rlimit is
    # relative to the count when the check starts, so a check it stopped spent at least it)
    return result, spent, "rlimit" if spent >= rlimit else "deadline"


def rlimit_count(solver: Any) -> int:
    """z3's resource counter (it counts for the whole z3 context, so callers take differences)."""
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def prove(
    hyps: list[Term],
    target: Term | None,
    linear: bool,
    real: bool,
    rlimit: int,
    deadline: float | None = None,
    max_expand: int = 32,
    omega: bool = False,
) -> str:
    """``"proved"`` if z3 shows hyps ⇒ target (target None: hyps contradictory) within
    ``rlimit`` resource units, else ``"failed"``, ``"rlimit"`` (z3 ran out of its units:
    deterministic) or ``"timeout"`` (the request's ``deadline`` passed: only a safety net).
    ``omega``: atoms as Lean's omega takes them."""
    enc = Encoder(linear, real, max_expand, omega)
    z3 = enc.z3
    solver = z3.Solver()
    for h in hyps:
        solver.add(enc.prop(h, True))
    if target is not None:
        solver.add(enc.prop(target, False))
    for c in enc.side:
        solver.add(c)
    result, _, why = bounded_check(solver, rlimit, deadline)
    if result == z3.unsat:
        return "proved"
    if why == "rlimit":
        return "rlimit"
    if why == "deadline":
        return "timeout"
    return "failed"


def unsat_core(
    hyps: list[Term],
    target: Term | None,
    linear: bool,
    real: bool,
    rlimit: int,
    deadline: float | None = None,
    max_expand: int = 32,
    omega: bool = False,
) -> list[int] | None:
    """The indices of the hypotheses an unsat core of ``hyps ∧ ¬target`` uses (z3's
    ``unsat_core`` over tracked hypotheses, minimized by z3: ``smt.core.minimize``), or None
    when z3 does not answer unsat within ``rlimit``. Only a hint for the certificate search:
    the kernel checks whatever certificate is found from these hypotheses."""
    enc = Encoder(linear, real, max_expand, omega)
    z3 = enc.z3
    solver = z3.Solver()
    solver.set("core.minimize", True)
    marks = []
    for i, h in enumerate(hyps):
        mark = z3.Bool(f"__hyp{i}")
        marks.append(mark)
        solver.assert_and_track(enc.prop(h, True), mark)
    if target is not None:
        solver.add(enc.prop(target, False))
    for c in enc.side:
        solver.add(c)
    result, _, _why = bounded_check(solver, rlimit, deadline)
    if result != z3.unsat:
        return None
    used = {str(m) for m in solver.unsat_core()}
    return [i for i, m in enumerate(marks) if str(m) in used]


_ = (Binder, Num)
