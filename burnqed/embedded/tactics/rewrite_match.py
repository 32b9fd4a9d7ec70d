"""How ``rw`` finds the instances of a pattern: Lean's ``kabstract`` (pre-order, left to right,
keyed by the head symbol) with ``isDefEq`` up to ℕ literal offsets, and the replacement of
every instance."""

from __future__ import annotations

from burnqed.embedded.tactics.proofterm import unify
from burnqed.embedded.elab.unify import reducible_normal
from burnqed.embedded.elab.expr import Binder, BVar, Conn, ModEq, Op, Rel, Term, alpha_key, mvars, replace, subterms

__all__ = ["abstract_all", "find_instance", "offset_match"]


def _has_loose(t: Term, bound: frozenset[str]) -> bool:
    return bool(bound) and any(
        isinstance(s, BVar) and s.name in bound for s in subterms(t)
    )


def offset_match(pattern: Term, s: Term, sub: dict[int, Term]) -> dict[int, Term] | None:
    """Lean's ``isDefEq`` as ``rw`` runs it on a candidate: syntactic first, then ℕ literal
    arithmetic and offsets (``k + 1 + 1 =?= k + 2``: Lean/Meta/Offset.lean,
    ``isDefEqOffsetNat``, on with ``Rewrite.Config.offsetCnstrs``), and only on a candidate
    with the pattern's head symbol and arity (kabstract's ``HeadIndex`` key); nothing else
    unfolds here, so this matches a subset of what Lean's ``rw`` matches."""
    got = unify(pattern, s, sub, False)
    if got is not None:
        return got
    if not (
        isinstance(pattern, Op)
        and isinstance(s, Op)
        and (pattern.op, pattern.ty, len(pattern.args)) == (s.op, s.ty, len(s.args))
    ):
        return None
    return unify(reducible_normal(pattern), reducible_normal(s), sub, False)


def find_instance(pattern: Term, t: Term) -> dict[int, Term] | None:
    """kabstract's search: pre-order, left to right, skipping terms with loose bound variables."""

    def go(s: Term, bound: frozenset[str]) -> dict[int, Term] | None:
        if not _has_loose(s, bound):
            sub = offset_match(pattern, s, {})
            if sub is not None:
                return sub
        if isinstance(s, Binder):
            return go(s.body, bound | {s.name})
        kids = (
            s.args
            if isinstance(s, Op | Conn)
            else (s.lhs, s.rhs)
            if isinstance(s, Rel)
            else (s.n, s.a, s.b)
            if isinstance(s, ModEq)
            else ()
        )
        for kid in kids:
            got = go(kid, bound)
            if got is not None:
                return got
        return None

    return go(t, frozenset())


def abstract_all(t: Term, pattern: Term, value: Term, offsets: bool = False) -> Term:
    """``t`` with every instance of ``pattern`` replaced by ``value`` (``offsets``: the
    instances ``rw`` finds, up to ℕ literal offsets, as ``offset_match``)."""
    key = alpha_key(pattern)

    def same(s: Term) -> bool:
        if isinstance(s, Binder):
            return False
        if alpha_key(s) == key:
            return True
        return offsets and not mvars(s) and offset_match(pattern, s, {}) == {}

    return replace(t, lambda s: value if same(s) else None)
