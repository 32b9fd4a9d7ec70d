"""Equality and rewriting: substitution, rewriting under a motive, congruence under binders,
and reflexivity up to polynomial normal form (``Refl``, ``Ring``).

Like ``logic``: each function refuses a wrong instance and returns the premises still to
check, in order.
"""

from __future__ import annotations

from burnqed.embedded.kernel.context import Entry, Sequent, conv, sort_of
from burnqed.embedded.kernel.logic import Premises
from burnqed.embedded.kernel.poly import poly
from burnqed.embedded.kernel.proofs import CongrBind, Refl, Rewrite, Ring, Subst
from burnqed.embedded.kernel.terms import App, Bind, Free, KernelError, Term, frees, instantiate, replace_free

__all__ = ["congr_bind", "rewrite", "same_sides", "subst"]


def subst(seq: Sequent, p: Subst, eq: Term) -> Premises:
    """``eq : x = e`` (or ``e = x``), ``x`` a variable not in ``e``: ``x := e`` everywhere,
    the variable and its equation leave the context."""
    x = p.var
    if not (isinstance(eq, App) and eq.head == "="):
        raise KernelError("Subst: not an equation")
    lhs, rhs = eq.args
    e = rhs if lhs == Free(x) else lhs if rhs == Free(x) else None
    entry = seq.lookup(x)
    if e is None or entry is None or not isinstance(entry.ty, str) or x in frees(e):
        raise KernelError("Subst: not an equation of a variable")
    ctx = tuple(
        Entry(h.uid, h.ty if isinstance(h.ty, str) else replace_free(h.ty, x, e)) for h in seq.ctx if h.uid != x
    )
    return [(Sequent(ctx, replace_free(seq.target, x, e)), p.body)]


def rewrite(seq: Sequent, p: Rewrite, eq: Term) -> Premises:
    """``eq : l = r`` (or ``l ↔ r``); ``motive[l]`` is the target, prove ``motive[r]``."""
    if not (isinstance(eq, App) and eq.head in ("=", "↔")):
        raise KernelError("Rewrite: not an equation or iff")
    lhs, rhs = eq.args[::-1] if p.rev else eq.args
    hole = "Prop" if eq.head == "↔" else sort_of(seq, lhs)
    if sort_of(seq, p.motive, (hole,)) != "Prop":
        raise KernelError("Rewrite: the motive is not a proposition")
    if not conv(instantiate(p.motive, lhs), seq.target):
        raise KernelError("Rewrite: the motive does not give the target")
    return [(seq.to(instantiate(p.motive, rhs)), p.body)]


def congr_bind(seq: Sequent, p: CongrBind) -> Premises:
    """``(Q x, A x) ↔ (Q x, B x)`` from ``∀ x, A x ↔ B x``."""
    t = seq.target
    if not (isinstance(t, App) and t.head == "↔"):
        raise KernelError("CongrBind: target is not ↔")
    x, y = t.args
    if not (isinstance(x, Bind) and isinstance(y, Bind) and (x.q, x.sort) == (y.q, y.sort)):
        raise KernelError("CongrBind: binders differ")
    s = seq.add(Entry(p.uid, x.sort))
    body = App("↔", (instantiate(x.body, Free(p.uid)), instantiate(y.body, Free(p.uid))), "Prop")
    return [(s.to(body), p.body)]


def same_sides(seq: Sequent, p: Refl | Ring) -> None:
    """An ``=``, ``≤`` or ``↔`` whose sides are equal (``↔`` up to ``conv``; ``=`` and ``≤``
    up to polynomial normal form)."""
    t, name = seq.target, type(p).__name__
    if not (isinstance(t, App) and t.head in ("=", "↔", "≤")):
        raise KernelError(f"{name}: target is not =, ↔ or ≤")
    x, y = t.args
    if conv(x, y) if t.head == "↔" else x == y:
        return
    if t.head == "↔" or poly(x) != poly(y):
        raise KernelError(f"{name}: the sides differ")
