"""Kernel terms: numerals, de Bruijn bound variables, free context entries, applications, binders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ARITH_HEADS",
    "App",
    "Bind",
    "CONNS",
    "FALSE",
    "Free",
    "KernelError",
    "Lit",
    "MAX_BITS",
    "MAX_EXPONENT",
    "MAX_MONOMIALS",
    "RELS",
    "SORTS",
    "TRUE",
    "Term",
    "Var",
    "abstract",
    "frees",
    "instantiate",
    "loose",
    "neg",
    "replace_free",
]


ARITH_HEADS = ("+", "-", "*", "/", "%", "^", "neg", "cast")
RELS = ("=", "<", "≤", "∣")
CONNS = ("∧", "∨", "→", "↔")
SORTS = ("Nat", "Int", "Prop")
MAX_EXPONENT = 64
MAX_MONOMIALS = 2500
MAX_BITS = 4096


class KernelError(Exception):
    """The kernel refused a proof (the message says which rule and why)."""


# ---------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
class Lit:
    """A numeral of sort Nat (never negative) or Int."""

    value: int
    sort: str


@dataclass(frozen=True, slots=True)
class Var:
    """A bound variable: de Bruijn index (0 = innermost binder)."""

    idx: int


@dataclass(frozen=True, slots=True)
class Free:
    """A context entry (variable or hypothesis) by id."""

    uid: int


@dataclass(frozen=True, slots=True)
class App:
    """An operator, relation, connective or constant (``True``/``False``: no args)."""

    head: str
    args: tuple[Term, ...]
    sort: str
    _hash: int = field(default=0, compare=False, repr=False)

    def __hash__(self) -> int:
        # terms are keys of polynomials and fact sets: hash each node once
        if not self._hash:
            object.__setattr__(self, "_hash", hash((self.head, self.args, self.sort)) or 1)
        return self._hash


@dataclass(frozen=True, slots=True)
class Bind:
    """``∀`` or ``∃`` over a sort; the body sees the bound value as ``Var(0)``."""

    q: str
    sort: str
    body: Term
    _hash: int = field(default=0, compare=False, repr=False)

    def __hash__(self) -> int:
        if not self._hash:
            object.__setattr__(self, "_hash", hash((self.q, self.sort, self.body)) or 1)
        return self._hash


Term = Lit | Var | Free | App | Bind
TRUE = App("True", (), "Prop")
FALSE = App("False", (), "Prop")


def _map(t: Term, fn: Any, depth: int) -> Term:
    if isinstance(t, App):
        new = tuple(fn(a, depth) for a in t.args)
        return t if new == t.args else App(t.head, new, t.sort)
    if isinstance(t, Bind):
        body = fn(t.body, depth + 1)
        return t if body is t.body else Bind(t.q, t.sort, body)
    return t


def instantiate(body: Term, value: Term) -> Term:
    """``body`` (under one binder) with ``Var(0)`` replaced by ``value`` (a term with no loose variables)."""

    def go(t: Term, depth: int) -> Term:
        if isinstance(t, Var):
            if t.idx == depth:
                return value
            return Var(t.idx - 1) if t.idx > depth else t
        return _map(t, go, depth)

    return go(body, 0)


def abstract(t: Term, target: Term) -> Term:
    """``t`` with every occurrence of ``target`` (no loose variables) made ``Var(0)`` of a new binder."""

    def go(s: Term, depth: int) -> Term:
        if s == target:
            return Var(depth)
        if isinstance(s, Var):
            return Var(s.idx + 1) if s.idx >= depth else s
        return _map(s, go, depth)

    return go(t, 0)


def loose(t: Term, depth: int = 0) -> bool:
    """Whether ``t`` has a variable bound outside it."""
    if isinstance(t, Var):
        return t.idx >= depth
    if isinstance(t, App):
        return any(loose(a, depth) for a in t.args)
    if isinstance(t, Bind):
        return loose(t.body, depth + 1)
    return False


def frees(t: Term) -> set[int]:
    """Ids of the context entries ``t`` mentions."""
    if isinstance(t, Free):
        return {t.uid}
    if isinstance(t, App):
        out: set[int] = set()
        for a in t.args:
            out |= frees(a)
        return out
    if isinstance(t, Bind):
        return frees(t.body)
    return set()


def replace_free(t: Term, uid: int, value: Term) -> Term:
    """``t`` with the context entry ``uid`` replaced by ``value``."""

    def go(s: Term, depth: int) -> Term:
        if isinstance(s, Free):
            return value if s.uid == uid else s
        return _map(s, go, depth)

    return go(t, 0)


def neg(t: Term) -> Term:
    """``¬t``, which is Lean's ``t → False``."""
    return App("→", (t, FALSE), "Prop")
