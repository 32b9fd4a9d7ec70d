"""First-order unification with metavariables (occurs check, binders up to alpha) and the
definitional-equality checks behind ``rfl``."""

from __future__ import annotations

import itertools

from burnqed.embedded.elab.evaluate import try_eval
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
    instantiate,
    unfold_modeq,
    replace,
    subterms,
    type_of,
)

__all__ = [
    "closes_by_reducible_rfl",
    "closes_by_rfl",
    "defeq_head",
    "fresh_mvar",
    "instantiate_mvars",
    "peel_implicit",
    "reducible_normal",
    "rfl_normal",
    "unify",
]

_mvar_ids = itertools.count(1)


def fresh_mvar(ty: str, name: str) -> MVar:
    """A new metavariable."""
    return MVar(next(_mvar_ids), ty, name)


def instantiate_mvars(t: Term, sub: dict[int, Term]) -> Term:
    """Replace assigned metavariables (transitively), capture-avoiding: a binder whose name
    is free in an assigned value is renamed before the value goes under it."""
    if not sub:
        return t
    free = {b.name for v in sub.values() for b in subterms(v) if isinstance(b, BVar)}

    def go(s: Term) -> Term:
        if isinstance(s, MVar):
            return instantiate_mvars(sub[s.uid], sub) if s.uid in sub else s
        if isinstance(s, Binder):
            name, body = s.name, s.body
            if name in free and any(isinstance(x, MVar) and x.uid in sub for x in subterms(body)):
                taken = free | {x.name for x in subterms(body) if isinstance(x, BVar | Binder)}
                new = name
                while new in taken:
                    new += "'"
                body, name = instantiate(body, name, BVar(new, s.ty)), new
            nb = go(body)
            if nb is s.body and name == s.name:
                return s
            return Binder(s.q, name, s.ty, nb, s.implicit)
        if isinstance(s, Op):
            return Op(s.op, tuple(go(a) for a in s.args), s.ty)
        if isinstance(s, Conn):
            return Conn(s.op, tuple(go(a) for a in s.args))
        if isinstance(s, Rel):
            return Rel(s.op, go(s.lhs), go(s.rhs))
        if isinstance(s, ModEq):
            return ModEq(s.ty, go(s.n), go(s.a), go(s.b))
        return s

    return go(t)


def defeq_head(t: Term) -> Term:
    if isinstance(t, Rel):
        if t.op == ">":
            return Rel("<", t.rhs, t.lhs)
        if t.op == "≥":
            return Rel("≤", t.rhs, t.lhs)
        if t.op == "≠":
            return Conn("→", (Rel("=", t.lhs, t.rhs), Const("False")))
    if isinstance(t, Conn) and t.op == "¬":
        return Conn("→", (t.args[0], Const("False")))
    return t


def _has_bound(t: Term, bound: frozenset[str]) -> bool:
    if not bound:
        return False
    stack = [t]
    while stack:
        s = stack.pop()
        if isinstance(s, BVar) and s.name in bound:
            return True
        if isinstance(s, Op | Conn):
            stack.extend(s.args)
        elif isinstance(s, Rel):
            stack.extend((s.lhs, s.rhs))
        elif isinstance(s, ModEq):
            stack.extend((s.n, s.a, s.b))
        elif isinstance(s, Binder):
            stack.append(s.body)
    return False


def _occurs(uid: int, t: Term, sub: dict[int, Term]) -> bool:
    """Whether metavariable ``uid`` occurs in ``t`` once ``sub`` is applied."""
    stack, seen = [t], set()
    while stack:
        s = stack.pop()
        if isinstance(s, MVar):
            if s.uid == uid:
                return True
            if s.uid in sub and s.uid not in seen:
                seen.add(s.uid)
                stack.append(sub[s.uid])
        elif isinstance(s, Op | Conn):
            stack.extend(s.args)
        elif isinstance(s, Rel):
            stack.extend((s.lhs, s.rhs))
        elif isinstance(s, ModEq):
            stack.extend((s.n, s.a, s.b))
        elif isinstance(s, Binder):
            stack.append(s.body)
    return False


# the matching mode of simp's rules: syntactic but for ℕ offsets (see ``unify``)
OFFSETS = "offsets"


def unify(
    p: Term, t: Term, sub: dict[int, Term], defeq: bool | str = True
) -> dict[int, Term] | None:
    """Extend ``sub`` so that ``p`` (with metavariables) equals ``t``, or None. ``defeq``:
    True is isDefEq as rfl uses it, False syntactic matching, ``OFFSETS`` syntactic matching
    plus Lean's ℕ offset unification (``?n + 1 =?= 5`` with ``?n := 4``), as simp matches its
    rules: the discrimination tree keys an offset ``t + k`` as a wildcard (lean4
    src/Lean/Meta/DiscrTree.lean, ``shouldAddAsStar`` / ``isOffset``) and ``isDefEqOffsetNat``
    decides it (src/Lean/Meta/ExprDefEq.lean)."""
    work = dict(sub)
    return work if _unify(p, t, work, defeq, frozenset()) else None


def _unify(
    p: Term, t: Term, sub: dict[int, Term], defeq: bool | str, bound: frozenset[str]
) -> bool:
    while isinstance(p, MVar) and p.uid in sub:
        p = sub[p.uid]
    while isinstance(t, MVar) and t.uid in sub:
        t = sub[t.uid]
    if isinstance(p, MVar):
        if isinstance(t, MVar) and t.uid == p.uid:
            return True
        # never a value with a variable bound inside the pattern, nor one mentioning the
        # metavariable itself (occurs check: ?a =?= ?a + 1 has no solution)
        if p.ty != type_of(t) or _has_bound(t, bound) or _occurs(p.uid, t, sub):
            return False
        sub[p.uid] = t
        return True
    if isinstance(t, MVar):
        return _unify(t, p, sub, defeq, bound)
    if defeq is True:
        p, t = defeq_head(p), defeq_head(t)
        if isinstance(p, ModEq) != isinstance(t, ModEq):
            # default transparency unfolds the definition (isDefEq's lazy delta)
            p = defeq_head(unfold_modeq(p)) if isinstance(p, ModEq) else p
            t = defeq_head(unfold_modeq(t)) if isinstance(t, ModEq) else t
    if type(p) is not type(t):
        if defeq and isinstance(p, Num | Op) and isinstance(t, Num | Op):
            if _unify_offset(p, t, sub, defeq, bound):
                return True
            if defeq is not True:
                return False
            a, b = try_eval(p), try_eval(t)
            return a is not None and a == b
        return False
    if isinstance(p, Num):
        return p == t
    if isinstance(p, BVar | FVar | Const):
        return p == t
    if isinstance(p, Op):
        assert isinstance(t, Op)
        if p.op != t.op or p.ty != t.ty:
            if defeq is True:
                a, b = try_eval(p), try_eval(t)
                return a is not None and a == b
            return False
        saved = dict(sub)
        if all(
            _unify(x, y, sub, defeq, bound) for x, y in zip(p.args, t.args, strict=True)
        ):
            return True
        sub.clear()
        sub.update(saved)
        if defeq and _unify_offset(p, t, sub, defeq, bound):
            return True
        sub.clear()
        sub.update(saved)
        if defeq is True:
            a, b = try_eval(p), try_eval(t)
            return a is not None and a == b
        return False
    if isinstance(p, Rel):
        assert isinstance(t, Rel)
        return (
            p.op == t.op
            and _unify(p.lhs, t.lhs, sub, defeq, bound)
            and _unify(p.rhs, t.rhs, sub, defeq, bound)
        )
    if isinstance(p, ModEq):
        assert isinstance(t, ModEq)
        saved = dict(sub)
        if p.ty == t.ty and all(
            _unify(x, y, sub, defeq, bound) for x, y in ((p.n, t.n), (p.a, t.a), (p.b, t.b))
        ):
            return True
        sub.clear()
        sub.update(saved)
        return defeq is True and _unify(unfold_modeq(p), unfold_modeq(t), sub, defeq, bound)
    if isinstance(p, Conn):
        assert isinstance(t, Conn)
        return p.op == t.op and all(
            _unify(x, y, sub, defeq, bound) for x, y in zip(p.args, t.args, strict=True)
        )
    if not (isinstance(p, Binder) and isinstance(t, Binder)):
        return False
    if p.q != t.q or p.ty != t.ty:
        return False
    # compare bodies up to alpha: both binders become one fresh name (never a name in use)
    fresh = f"{t.name}✝{next(_mvar_ids)}"
    pb = instantiate(p.body, p.name, BVar(fresh, p.ty))
    tb = instantiate(t.body, t.name, BVar(fresh, t.ty))
    return _unify(pb, tb, sub, defeq, bound | {fresh})


def peel_implicit(ty: Term, sub: dict[int, Term]) -> Term:
    """Turn leading implicit binders into fresh metavariables."""
    while isinstance(ty, Binder) and ty.q == "∀" and ty.implicit:
        ty = instantiate(ty.body, ty.name, fresh_mvar(ty.ty, ty.name))
    return ty


def rfl_normal(t: Term) -> Term:
    """Closed arithmetic computed and ``x + 0``, ``x - 0``, ``x * 0``, ``x ^ 0`` unfolded (by defeq)."""

    def fn(s: Term) -> Term | None:
        if isinstance(s, Op):
            v = try_eval(s)
            if v is not None:
                return Num(v, s.ty)
            args = tuple(rfl_normal(a) for a in s.args)
            # Nat.add / Nat.sub / Nat.mul recurse on their second argument, so `x + 0`
            # unfolds to `x`; Int.add / Int.mul match on the first (a variable): stuck
            if s.ty == "Nat" and s.op in ("+", "-") and len(args) == 2 and args[1] == Num(0, s.ty):
                return args[0]
            if s.ty == "Nat" and s.op == "*" and args[1] == Num(0, s.ty):
                return Num(0, s.ty)
            if s.op == "^" and args[1] == Num(0, "Nat"):
                return Num(1, s.ty)
            return Op(s.op, args, s.ty)
        return None

    return replace(t, fn)


def closes_by_rfl(target: Term) -> bool:
    """Whether ``rfl`` proves the target (= / ↔ / ≤ with definitionally equal sides)."""
    if isinstance(target, Rel) and target.op in ("=", "≤", "≥"):
        return (
            unify(rfl_normal(target.lhs), rfl_normal(target.rhs), {}, True) is not None
        )
    if isinstance(target, Conn) and target.op == "↔":
        return unify(target.args[0], target.args[1], {}, True) is not None
    if isinstance(target, ModEq):
        # `rfl` is `eq_refl` (MVarId.refl: the target's whnf at default transparency unfolds
        # the definition to `a % n = b % n`) or `apply_rfl` with `Nat.ModEq.refl` (`@[refl]`)
        return closes_by_rfl(unfold_modeq(target))
    return False


def _unify_offset(p: Term, t: Term, sub: dict[int, Term], defeq: bool | str, bound: frozenset[str]) -> bool:
    """Lean's ``isDefEqOffsetNat`` (lean4 ``src/Lean/Meta/ExprDefEq.lean`` with
    ``Meta/Offset.lean``): ``s + k₁ =?= u + k₂`` on ℕ with closed ``k`` (ℕ literal arithmetic)
    becomes ``s + (k₁ - k₂) =?= u`` (or the other way), ``s + k =?= v`` becomes ``s =?= v - k``
    (false when ``v < k``); ``n + 12 + 1`` is ``n + 13``. The kernel's conv checks the values."""
    po, to = _offset(p), _offset(t)
    if po is None and to is None:
        return False
    pv, tv = _eval_nat(p), _eval_nat(t)
    if (po is None and pv is None) or (to is None and tv is None):
        return False
    s, k1 = po if po is not None else (None, pv)
    u, k2 = to if to is not None else (None, tv)
    assert k1 is not None and k2 is not None
    if (s is None and k1 < k2) or (u is None and k2 < k1):
        return False  # v =?= u + k with v < k: no ℕ solution
    m = min(k1, k2)
    lhs = (s if k1 == m else Op("+", (s, Num(k1 - m, "Nat")), "Nat")) if s is not None else Num(k1 - m, "Nat")
    rhs = (u if k2 == m else Op("+", (u, Num(k2 - m, "Nat")), "Nat")) if u is not None else Num(k2 - m, "Nat")
    return _unify(lhs, rhs, sub, defeq, bound)


def _eval_nat(t: Term) -> int | None:
    """Lean's ``Meta.evalNat`` (Lean/Meta/Offset.lean): ℕ numerals under ``+ - *`` only."""
    if isinstance(t, Num) and t.ty == "Nat":
        return t.value
    if isinstance(t, Op) and t.ty == "Nat" and t.op in ("+", "-", "*") and len(t.args) == 2:
        a, b = _eval_nat(t.args[0]), _eval_nat(t.args[1])
        if a is None or b is None:
            return None
        return a + b if t.op == "+" else max(a - b, 0) if t.op == "-" else a * b
    return None


def _offset(t: Term) -> tuple[Term, int] | None:
    """Lean's ``isOffset?``: ``s + k`` with ``k`` a closed ℕ value, nested offsets summed."""
    if isinstance(t, Op) and t.ty == "Nat" and t.op == "+" and len(t.args) == 2:
        v = _eval_nat(t.args[1])
        if v is None:
            return None
        inner = _offset(t.args[0])
        base, k = inner if inner is not None else (t.args[0], 0)
        return base, k + v
    return None


def reducible_normal(t: Term) -> Term:
    """A form in which equal terms are definitionally equal at reducible transparency.

    Lean's ``isDefEq`` decides ℕ literal arithmetic and offsets (``isDefEqOffset``: ``evalNat``
    over ``+ - *`` and ``s + k``) whatever the transparency; nothing else unfolds at reducible
    transparency (instances of ``HDiv``, ``HMod``, ``HPow`` and all of ℤ's operations stay
    folded). Only those two rules are applied, so equal normal forms are defeq in Lean; the
    converse may fail (a refusal, never an over-credit)."""

    def fn(s: Term) -> Term | None:
        if not isinstance(s, Op):
            return None
        v = _eval_nat(s)
        if v is not None:
            return Num(v, "Nat")
        off = _offset(s)
        if off is not None and off[1] > 0:
            base = reducible_normal(off[0])
            if isinstance(base, Num):
                return Num(base.value + off[1], "Nat")
            return Op("+", (base, Num(off[1], "Nat")), "Nat")
        return Op(s.op, tuple(reducible_normal(a) for a in s.args), s.ty)

    return replace(t, fn)


def closes_by_reducible_rfl(target: Term) -> bool:
    """Whether ``with_reducible rfl`` (the end of ``rw``) proves ``target``: ``Eq.refl`` /
    ``Iff.refl`` with sides equal up to alpha and Lean's ℕ literal and offset rules."""
    if isinstance(target, Rel) and target.op == "=":
        a, b = target.lhs, target.rhs
    elif isinstance(target, Conn) and target.op == "↔":
        a, b = target.args
    elif isinstance(target, ModEq):
        # apply_rfl with the @[refl] lemma Nat.ModEq.refl / Int.ModEq.refl (Mathlib's ModEq.lean):
        # the definition stays folded at reducible transparency, only `a =?= b` is asked
        a, b = target.a, target.b
    else:
        return False
    return unify(reducible_normal(a), reducible_normal(b), {}, False) is not None
