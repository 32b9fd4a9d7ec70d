"""The simplifier behind simp / norm_num: bottom-up rewriting to a fixed point.

Rules (each a true equivalence, so simplification is sound): closed arithmetic is computed
(bounded); unit laws (``x + 0``, ``x * 1``, ``x ^ 1``, ...), ℕ ``a + b - b``; relations
whose sides share a summand in the same place cancel it (Mathlib's add_right_inj family; no
ring normalization, which Lean's simp does not do either); Mathlib's simp normal
forms ``a > b`` ↦ ``b < a``, ``a ≥ b`` ↦ ``b ≤ a``, ``a ≠ b`` ↦ ``¬a = b``, ``¬a < b`` ↦
``b ≤ a``, ``¬a ≤ b`` ↦ ``b < a``; propositional constants and idempotence; binders whose
variable is unused. User rules (``simp [h, ...]``) rewrite with equations (left to
right), iff's, or replace a proved proposition by True (and its negation by False).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from burnqed.embedded.elab.evaluate import TooLarge, eval_prop, is_closed, try_eval
from burnqed.embedded.elab.unify import OFFSETS
from burnqed.embedded.tactics.proofterm import TacticError, instantiate_mvars, unify
from burnqed.embedded.elab.expr import (
    Binder,
    Conn,
    Const,
    ModEq,
    MVar,
    Num,
    Op,
    Rel,
    Term,
    alpha_key,
    bvar_free,
    instantiate,
    mvars,
    size_exceeds,
    type_of,
)

__all__ = ["MAX_DISCHARGE_DEPTH", "Rule", "SimpSet", "conditional_rules", "rules_from_prop", "simplify"]

TRUE, FALSE = Const("True"), Const("False")


@dataclass(frozen=True)
class Rule:
    """Rewrite ``lhs`` to ``rhs``; metavariables in lhs are pattern variables. A conditional
    rule (``premises``) rewrites only where each premise, instantiated, simplifies to True;
    ``origin`` names its statement for the kernel (see ``conditional_rules``)."""

    lhs: Term
    rhs: Term
    permutative: bool = False
    premises: tuple[Term, ...] = ()
    origin: Any = None


@dataclass
class SimpSet:
    """User rules plus bounds."""

    rules: list[Rule]
    max_bits: int = 4096
    max_expand: int = 32
    use_poly: bool = True
    check_time: Callable[[], None] | None = None
    max_size: int = 20_000
    # norm_num's Mathlib.Tactic.NormNum.PowMod: `a ^ b % m` on ℕ by modular exponentiation
    pow_mod: bool = False
    # the conditional rules used: (rule, match), for the kernel proof of the steps
    used: list[tuple[Rule, dict[int, Term]]] = field(default_factory=list)
    depth: int = 0


def rules_from_prop(prop: Term) -> list[Rule]:
    """The simp rules a hypothesis or lemma statement gives."""
    t = prop
    while isinstance(t, Binder) and t.q == "∀":
        from burnqed.embedded.tactics.proofterm import fresh_mvar

        t = instantiate(t.body, t.name, fresh_mvar(t.ty, t.name))
    if isinstance(t, Rel) and t.op == "=":
        perm = (
            unify(t.lhs, t.rhs, {}, False) is not None
            and unify(t.rhs, t.lhs, {}, False) is not None
        )
        # a rule is permutative when each side is an instance of the other (Lean's
        # `isPerm`, Lean/Meta/Tactic/Simp/SimpTheorems.lean), then used only where it makes
        # the term smaller; `Nat.add_mod`'s sides have the same variables but are no
        # permutation, and Lean's simp rewrites with it
        return [Rule(t.lhs, t.rhs, perm)]
    if isinstance(t, Conn) and t.op == "↔":
        return [Rule(t.args[0], t.args[1])]
    if isinstance(t, Conn) and t.op == "¬":
        return [Rule(t.args[0], FALSE)]
    if isinstance(t, Rel) and t.op == "≠":
        return [
            Rule(Rel("=", t.lhs, t.rhs), FALSE),
            Rule(Rel("=", t.rhs, t.lhs), FALSE),
        ]
    if isinstance(t, Conn) and t.op == "∧":
        return rules_from_prop(t.args[0]) + rules_from_prop(t.args[1])
    if isinstance(t, Conn) and t.op == "→":
        return []
    return [Rule(t, TRUE)]


# Lean's `Simp.Config.maxDischargeDepth` default (src/Init/MetaTypes.lean)
MAX_DISCHARGE_DEPTH = 2


def conditional_rules(prop: Term, origin: Any) -> list[Rule]:
    """The conditional rules of ``∀ xs, P₁ → … → Pₙ → C`` (n ≥ 1): C's rules, used where the
    instantiated premises simplify to True (Lean's simp lemmas with hypotheses, discharged by
    the default discharger, which simplifies them). ``origin`` is kept with the statement and
    the metavariables standing for ``xs``, in order."""
    from burnqed.embedded.tactics.proofterm import fresh_mvar

    t, metas = prop, []
    while isinstance(t, Binder) and t.q == "∀":
        m = fresh_mvar(t.ty, t.name)
        metas.append(m)
        t = instantiate(t.body, t.name, m)
    premises = []
    while isinstance(t, Conn) and t.op == "→":
        premises.append(t.args[0])
        t = t.args[1]
    if not premises or isinstance(t, Binder):
        return []
    out = []
    for r in rules_from_prop(t):
        if isinstance(r.lhs, MVar):
            continue
        out.append(Rule(r.lhs, r.rhs, r.permutative, tuple(premises), (origin, prop, tuple(metas))))
    return out


def _discharged(r: Rule, sub: dict[int, Term], ss: SimpSet) -> bool:
    if ss.depth >= MAX_DISCHARGE_DEPTH:
        return False
    prems = [instantiate_mvars(p, sub) for p in r.premises]
    if any(mvars(p) for p in prems):
        return False
    ss.depth += 1
    try:
        return all(simplify(p, ss) == TRUE for p in prems)
    finally:
        ss.depth -= 1


def simplify(t: Term, ss: SimpSet, max_rounds: int = 16) -> Term:
    """Simplify to a fixed point (bounded rounds)."""
    for _ in range(max_rounds):
        if ss.check_time is not None:
            ss.check_time()
        new = _simp(t, ss)
        if new == t:
            return new
        if size_exceeds(new, ss.max_size):
            # a rule whose right side contains its left side (h : n = n + n) grows the
            # term every round; Lean's simp loops until its own limits
            raise TacticError(
                "maximum recursion depth has been reached (simp: the term grew past "
                f"{ss.max_size} nodes; a rewrite rule may loop)"
            )
        t = new
    return t


def _apply_rules(t: Term, ss: SimpSet) -> Term | None:
    for r in ss.rules:
        # Lean's simp matches syntactically up to instances, and ℕ offsets unify: a rule
        # `a ^ (n + 1) = a ^ n * a` rewrites `x ^ 5` (elab/unify.py OFFSETS)
        sub = unify(r.lhs, t, {}, OFFSETS)
        if sub is None:
            continue
        out = instantiate_mvars(r.rhs, sub)
        if mvars(out):
            continue
        if r.permutative and repr(alpha_key(out)) >= repr(alpha_key(t)):
            continue
        if out != t:
            if r.premises:
                if not _discharged(r, sub, ss):
                    continue
                ss.used.append((r, dict(sub)))
            return out
    return None


def _simp(t: Term, ss: SimpSet) -> Term:
    if isinstance(t, Op):
        t = Op(t.op, tuple(_simp(a, ss) for a in t.args), t.ty)
        r = _apply_rules(t, ss)
        return r if r is not None else _arith(t, ss)
    if isinstance(t, Rel):
        t = Rel(t.op, _simp(t.lhs, ss), _simp(t.rhs, ss))
        r = _apply_rules(t, ss)
        return r if r is not None else _rel(t, ss)
    if isinstance(t, Conn):
        t = Conn(t.op, tuple(_simp(a, ss) for a in t.args))
        r = _apply_rules(t, ss)
        return r if r is not None else _conn(t)
    if isinstance(t, ModEq):
        # congruence into the arguments, then the rules: `Nat.ModEq` / `Int.ModEq` named in
        # the list unfold it; otherwise Lean's simp would try Mathlib's @[simp] lemmas about
        # ModEq (Mathlib/Data/Nat/ModEq.lean: modEq_zero_iff, add_modulus_modEq_iff, …),
        # which this simp set lacks: refuse rather than differ
        t = ModEq(t.ty, _simp(t.n, ss), _simp(t.a, ss), _simp(t.b, ss))
        r = _apply_rules(t, ss)
        if r is None:
            name = "Nat.ModEq" if t.ty == "Nat" else "Int.ModEq"
            raise TacticError(
                f"the embedded simp does not simplify {name} without unfolding it (Mathlib's simp lemmas "
                f"about {name} are not in its simp set); name it: simp [{name}]"
            )
        return r
    if isinstance(t, Binder):
        body = _simp(t.body, ss)
        if body in (TRUE, FALSE):
            return body
        if not bvar_free(body, t.name):
            return body
        return Binder(t.q, t.name, t.ty, body, t.implicit)
    r = _apply_rules(t, ss)
    return r if r is not None else t


def _num(v: int, ty: str) -> Num:
    return Num(v, ty)


def _pow_mod(t: Op) -> int | None:
    """``a ^ b % m`` with closed ℕ ``a``, ``b``, ``m ≠ 0`` (the power itself never computed)."""
    p = t.args[0]
    if not (isinstance(p, Op) and p.op == "^"):
        return None
    base, ex, m = try_eval(p.args[0]), try_eval(p.args[1]), try_eval(t.args[1])
    if base is None or ex is None or m is None or m == 0 or ex < 0:
        return None
    return pow(base, ex, m)


def _arith(t: Op, ss: SimpSet) -> Term:
    v = try_eval(t, ss.max_bits)
    if v is not None:
        return _num(v, t.ty)
    ty, op = t.ty, t.op
    if ss.pow_mod and op == "%" and ty == "Nat":
        got = _pow_mod(t)
        if got is not None:
            return _num(got, ty)
    if op == "cast" or op == "neg":
        a = t.args[0]
        if op == "neg" and isinstance(a, Op) and a.op == "neg":
            return a.args[0]
        return t
    if not ss.use_poly:
        # `simp only [...]`: Lean applies no unit law it is not given (`mul_one`, `add_zero`
        # are simp lemmas, not simprocs); only ground arithmetic (Nat.reduceMul, …) above
        return t
    a, b = t.args
    zero, one = Num(0, ty), Num(1, ty)
    if op == "+":
        if b == zero:
            return a
        if a == zero:
            return b
    elif op == "-":
        if b == zero:
            return a
        if a == b:
            return zero
        if ty == "Nat" and a == zero:
            return zero
        if ty == "Nat" and isinstance(a, Op) and a.op == "+" and a.args[1] == b:
            return a.args[0]
        if ty == "Nat" and isinstance(a, Op) and a.op == "+" and a.args[0] == b:
            return a.args[1]
    elif op == "*":
        if a == zero or b == zero:
            return zero
        if b == one:
            return a
        if a == one:
            return b
    elif op == "^":
        if b == Num(0, "Nat"):
            return one
        if b == Num(1, "Nat"):
            return a
        if a == one:
            return one
    elif op == "/":
        if b == one:
            return a
        if a == zero or b == zero:
            return zero
    elif op == "%":
        if b == one:
            return zero
        if b == zero:
            return a
        if a == zero:
            return zero
    return t


def _is_cast(t: Term) -> bool:
    return isinstance(t, Op) and t.op == "cast"


def _uncast(t: Term) -> Term | None:
    if _is_cast(t):
        return t.args[0]  # type: ignore[union-attr]
    if isinstance(t, Num) and t.ty == "Int" and t.value >= 0:
        return Num(t.value, "Nat")
    return None


def _rel(t: Rel, ss: SimpSet) -> Term:
    if is_closed(t):
        try:
            return TRUE if eval_prop(t, ss.max_bits) else FALSE
        except (ValueError, TooLarge):
            return t
    a, b, op = t.lhs, t.rhs, t.op
    if op in ("=", "≠", "<", "≤", ">", "≥") and (_is_cast(a) or _is_cast(b)):
        # Mathlib's simp lemmas Nat.cast_inj, Nat.cast_le, Nat.cast_lt, Nat.cast_eq_ofNat,
        # Nat.cast_le_ofNat, Nat.ofNat_le_cast, …: a comparison of casts and numerals in ℤ
        # is the comparison in ℕ
        na, nb = _uncast(a), _uncast(b)
        if na is not None and nb is not None:
            return Rel(op, na, nb)
    if op == "∣":
        if a == Num(1, type_of(a)) or b == Num(0, type_of(b)) or a == b:
            return TRUE
        return t
    if alpha_key(a) == alpha_key(b):
        return TRUE if op in ("=", "≤", "≥") else FALSE
    ty = type_of(a)
    if ty == "Nat":
        if op in ("=", "≠") and (
            _positive_sum(a) and b == Num(0, ty) or _positive_sum(b) and a == Num(0, ty)
        ):
            return FALSE if op == "=" else TRUE
        if (op == "≤" and a == Num(0, ty)) or (op == "≥" and b == Num(0, ty)):
            return TRUE
        if (op == "<" and b == Num(0, ty)) or (op == ">" and a == Num(0, ty)):
            return FALSE
    if ss.use_poly:
        got = _cancel(a, b)
        if got is not None:
            return Rel(op, *got)
    if op == ">":
        return Rel("<", b, a)
    if op == "≥":
        return Rel("≤", b, a)
    if op == "≠":
        return Conn("¬", (Rel("=", a, b),))
    return t


def _cancel(a: Term, b: Term) -> tuple[Term, Term] | None:
    """Mathlib's simp cancellation lemmas on a relation's sides: ``x + c = x + d`` ↦ ``c = d``
    (add_right_inj, add_le_add_iff_left, add_lt_add_iff_left), ``c + x`` / ``d + x`` (add_left_inj,
    …_right), ``x`` against ``x + d`` (self_eq_add_right, le_add_iff_nonneg_right,
    lt_add_iff_pos_right) and ``x + c`` against ``x`` (add_right_eq_self, …). Only the same
    summand in the same place cancels: simp does no commutativity or ring normalization
    (``2 * x = x + x`` and ``(a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2`` are not simp's)."""
    plus_a = isinstance(a, Op) and a.op == "+"
    plus_b = isinstance(b, Op) and b.op == "+"
    zero = Num(0, type_of(a))
    if plus_a and plus_b:
        (x, c), (y, d) = a.args, b.args  # type: ignore[union-attr]
        if alpha_key(x) == alpha_key(y):
            return c, d
        if alpha_key(c) == alpha_key(d):
            return x, y
    if plus_b and alpha_key(b.args[0]) == alpha_key(a):  # type: ignore[union-attr]
        return zero, b.args[1]  # type: ignore[union-attr]
    if plus_a and alpha_key(a.args[0]) == alpha_key(b):  # type: ignore[union-attr]
        return a.args[1], zero  # type: ignore[union-attr]
    return None


def _positive_sum(t: Term) -> bool:
    """A ℕ sum with a positive literal summand (never 0)."""
    if isinstance(t, Num):
        return t.value > 0
    return (
        isinstance(t, Op)
        and t.op == "+"
        and (_positive_sum(t.args[0]) or _positive_sum(t.args[1]))
    )


def _conn(t: Conn) -> Term:
    op = t.op
    if op == "¬":
        a = t.args[0]
        if a == TRUE:
            return FALSE
        if a == FALSE:
            return TRUE
        if isinstance(a, Conn) and a.op == "¬":
            return a.args[0]
        if isinstance(a, Rel) and a.op == "<":
            return Rel("≤", a.rhs, a.lhs)
        if isinstance(a, Rel) and a.op == "≤":
            return Rel("<", a.rhs, a.lhs)
        return t
    a, b = t.args
    same = alpha_key(a) == alpha_key(b)
    if op == "∧":
        if a == TRUE:
            return b
        if b == TRUE or same:
            return a
        if FALSE in (a, b):
            return FALSE
    elif op == "∨":
        if TRUE in (a, b):
            return TRUE
        if a == FALSE:
            return b
        if b == FALSE or same:
            return a
    elif op == "→":
        if a == TRUE:
            return b
        if a == FALSE or b == TRUE or same:
            return TRUE
        if b == FALSE:
            return Conn("¬", (a,))
    elif op == "↔":
        if same:
            return TRUE
        if a == TRUE:
            return b
        if b == TRUE:
            return a
        if a == FALSE:
            return Conn("¬", (b,))
        if b == FALSE:
            return Conn("¬", (a,))
    return t
