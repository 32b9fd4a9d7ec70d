"""Contexts and sorts: entries, sequents, sort checking, weakening and conversion."""

from __future__ import annotations

from dataclasses import dataclass

from burnqed.embedded.kernel.terms import (
    ARITH_HEADS,
    App,
    Bind,
    CONNS,
    Free,
    KernelError,
    Lit,
    RELS,
    SORTS,
    Term,
    Var,
)
from burnqed.embedded.kernel.poly import poly

__all__ = [
    "Entry",
    "Sequent",
    "conv",
    "covers",
    "expect_prop",
    "sort_of",
    "well_formed",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """A context entry: a variable (``ty`` a sort name) or a hypothesis (``ty`` a proposition)."""

    uid: int
    ty: str | Term


@dataclass(frozen=True, slots=True)
class Sequent:
    """Hypotheses and variables, and the proposition to prove."""

    ctx: tuple[Entry, ...]
    target: Term

    def lookup(self, uid: int) -> Entry | None:
        """The entry with this id."""
        for e in self.ctx:
            if e.uid == uid:
                return e
        return None

    def add(self, entry: Entry) -> Sequent:
        """A copy with one more entry (its id must be new)."""
        if self.lookup(entry.uid) is not None:
            raise KernelError(f"context already has an entry {entry.uid}")
        if isinstance(entry.ty, str):
            if entry.ty not in SORTS:
                raise KernelError(f"unknown sort {entry.ty!r}")
        else:
            expect_prop(self, entry.ty)
        return Sequent((*self.ctx, entry), self.target)

    def to(self, target: Term) -> Sequent:
        """Same context, another target."""
        return Sequent(self.ctx, target)


_SIG: dict[str, tuple[str, ...]] = {"neg": ("Int",), "cast": ("Nat",)}


def sort_of(seq: Sequent, t: Term, bound: tuple[str, ...] = ()) -> str:
    """The sort of a well-formed term (raises KernelError otherwise)."""
    if isinstance(t, Lit):
        if type(t.value) is not int or t.sort not in ("Nat", "Int") or (t.sort == "Nat" and t.value < 0):
            raise KernelError(f"bad numeral {t}")
        return t.sort
    if isinstance(t, Var):
        if type(t.idx) is not int or not 0 <= t.idx < len(bound):
            raise KernelError("loose bound variable")
        return bound[len(bound) - 1 - t.idx]
    if isinstance(t, Free):
        e = seq.lookup(t.uid)
        if e is None or not isinstance(e.ty, str):
            raise KernelError(f"unknown variable {t.uid}")
        return e.ty
    if isinstance(t, Bind):
        if t.q not in ("∀", "∃") or t.sort not in SORTS:
            raise KernelError("bad binder")
        if sort_of(seq, t.body, (*bound, t.sort)) != "Prop":
            raise KernelError("binder body is not a proposition")
        return "Prop"
    sorts = tuple(sort_of(seq, a, bound) for a in t.args)
    h, n = t.head, len(t.args)
    if h in ("True", "False") and n == 0 and t.sort == "Prop":
        return "Prop"
    if h in CONNS and n == 2 and sorts == ("Prop", "Prop") and t.sort == "Prop":
        return "Prop"
    if h in RELS and n == 2 and sorts[0] == sorts[1] != "Prop" and t.sort == "Prop":
        return "Prop"
    if h in ("neg", "cast") and n == 1 and sorts == _SIG[h] and t.sort == "Int":
        return "Int"
    if h == "^" and n == 2 and sorts == (t.sort, "Nat") and t.sort in ("Nat", "Int"):
        return t.sort
    if h in ("+", "-", "*", "/", "%") and n == 2 and sorts == (t.sort, t.sort) != ("Prop", "Prop"):
        return t.sort
    raise KernelError(f"ill-sorted term with head {h!r}")


def well_formed(seq: Sequent) -> None:
    """Refuse a sequent with a repeated id, a variable of an unknown sort, a hypothesis
    that is not a proposition or a target that is not one (every term sort-checked in
    the whole context)."""
    if len({e.uid for e in seq.ctx}) != len(seq.ctx):
        raise KernelError("a context id is repeated")
    for e in seq.ctx:
        if isinstance(e.ty, str):
            if e.ty not in SORTS:
                raise KernelError(f"unknown sort {e.ty!r}")
        else:
            expect_prop(seq, e.ty)
    expect_prop(seq, seq.target)


def expect_prop(seq: Sequent, t: Term) -> None:
    """Refuse a term that is not a proposition in the context."""
    if sort_of(seq, t) != "Prop":
        raise KernelError("expected a proposition")


def covers(big: Sequent, small: Sequent) -> bool:
    """Whether ``small`` is ``big`` up to dropped hypotheses (weakening) and ``conv``:
    every entry of ``small`` is in ``big`` with the same type, and the targets agree."""
    if not conv(small.target, big.target):
        return False
    have = {e.uid: e.ty for e in big.ctx}
    for e in small.ctx:
        ty = have.get(e.uid)
        if ty is None or isinstance(ty, str) != isinstance(e.ty, str):
            return False
        if ty != e.ty and (isinstance(ty, str) or not conv(ty, e.ty)):
            return False
    return True


def conv(x: Term, y: Term) -> bool:
    """Equality of propositions up to the values of their arithmetic subterms (two terms
    with the same polynomial denote the same number, so either may replace the other)."""
    if x == y:
        return True
    if isinstance(x, Bind) and isinstance(y, Bind):
        return (x.q, x.sort) == (y.q, y.sort) and conv(x.body, y.body)
    if not (isinstance(x, App) and isinstance(y, App)):
        return _same_value(x, y)
    if x.head in ARITH_HEADS or y.head in ARITH_HEADS:
        return _same_value(x, y)
    return (
        x.head == y.head
        and len(x.args) == len(y.args)
        and all(conv(a, b) for a, b in zip(x.args, y.args, strict=True))
    )


def _same_value(x: Term, y: Term) -> bool:
    try:
        return poly(x) == poly(y)
    except KernelError:
        return False
