"""Elaborated terms of the fragment, their substitution, alpha-keys and Lean-exact printing.

A term is immutable and hashable. Types are the strings ``"Nat"``, ``"Int"`` and
``"Prop"``; a proposition is a term whose type is ``"Prop"``. Bound variables are
referred to by name (``BVar``); hypotheses of a goal are ``FVar`` s with a unique id whose
display name comes from the goal's context; ``MVar`` s only live inside unification.

Printing follows Lean 4's notation table: ``→`` 25 (right), ``↔`` 20, ``∨`` 30 (right),
``∧`` 35 (right), ``¬`` max with argument 40, relations 50, ``+ -`` 65 (left), ``* / %``
70 (left), ``^`` 80 (right), prefix ``-`` 75, and binders that extend as far right as
possible (so they need parentheses unless nothing follows them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

__all__ = [
    "ARITH_OPS",
    "REL_OPS",
    "BVar",
    "Binder",
    "Conn",
    "Const",
    "FVar",
    "MVar",
    "ModEq",
    "Num",
    "Op",
    "Rel",
    "Term",
    "alpha_key",
    "bvar_free",
    "conj",
    "defeq_key",
    "fvars",
    "imp",
    "instantiate",
    "is_prop",
    "mvars",
    "neg",
    "pp",
    "replace",
    "replace_fvar",
    "size_exceeds",
    "subterms",
    "type_of",
    "unfold_modeq",
]

ARITH_OPS = ("+", "-", "*", "/", "%", "^", "neg", "cast")
REL_OPS = ("=", "≠", "<", "≤", ">", "≥", "∣")


@dataclass(frozen=True, slots=True)
class Num:
    """A numeral of type Nat or Int (negative only for Int, printed ``-k``)."""

    value: int
    ty: str


@dataclass(frozen=True, slots=True)
class BVar:
    """A variable bound by an enclosing binder."""

    name: str
    ty: str


@dataclass(frozen=True, slots=True)
class FVar:
    """A hypothesis or variable of the goal's context (unique id)."""

    uid: int
    ty: str


@dataclass(frozen=True, slots=True)
class MVar:
    """A unification variable (never inside a goal)."""

    uid: int
    ty: str
    name: str = "?m"


@dataclass(frozen=True, slots=True)
class Op:
    """Arithmetic: + - * / % ^ (exponent Nat), neg (Int) and cast (Nat → Int, ``↑x``)."""

    op: str
    args: tuple[Term, ...]
    ty: str


@dataclass(frozen=True, slots=True)
class Rel:
    """A relation between two numbers: = ≠ < ≤ > ≥ ∣."""

    op: str
    lhs: Term
    rhs: Term


@dataclass(frozen=True, slots=True)
class Conn:
    """A connective: ∧ ∨ → ↔ (two arguments) or ¬ (one)."""

    op: str
    args: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class Const:
    """True or False."""

    name: str


@dataclass(frozen=True, slots=True)
class Binder:
    """∀ or ∃ over Nat, Int or Prop; ``implicit`` prints ``{x : T}``."""

    q: str
    name: str
    ty: str
    body: Term
    implicit: bool = False


@dataclass(frozen=True, slots=True)
class ModEq:
    """``a ≡ b [MOD n]`` (``ty`` Nat: ``Nat.ModEq n a b``) or ``a ≡ b [ZMOD n]`` (Int:
    ``Int.ModEq n a b``). Mathlib defines both as ``a % n = b % n`` (Mathlib/Data/Nat/ModEq.lean
    ``def ModEq (n a b : ℕ) := a % n = b % n``, Mathlib/Data/Int/ModEq.lean the same over ℤ),
    a plain (semireducible) definition: a proposition of its own to tactics that do not unfold
    it (omega, linarith, simp without it), its unfolding to the kernel (``unfold_modeq``)."""

    ty: str
    n: Term
    a: Term
    b: Term


Term = Num | BVar | FVar | MVar | Op | Rel | Conn | Const | Binder | ModEq


def unfold_modeq(t: ModEq) -> Term:
    """The definition's body: ``a % n = b % n``."""
    return Rel("=", Op("%", (t.a, t.n), t.ty), Op("%", (t.b, t.n), t.ty))


def imp(a: Term, b: Term) -> Term:
    """``a → b``."""
    return Conn("→", (a, b))


def neg(a: Term) -> Term:
    """``¬a``."""
    return Conn("¬", (a,))


def conj(a: Term, b: Term) -> Term:
    """``a ∧ b``."""
    return Conn("∧", (a, b))


def type_of(t: Term) -> str:
    """The type of a term: Nat, Int or Prop."""
    if isinstance(t, (Num, BVar, FVar, MVar, Op)):
        return t.ty
    return "Prop"


def is_prop(t: Term) -> bool:
    """True for propositions."""
    return type_of(t) == "Prop"


def _children(t: Term) -> tuple[Term, ...]:
    if isinstance(t, Op | Conn):
        return t.args
    if isinstance(t, Rel):
        return (t.lhs, t.rhs)
    if isinstance(t, Binder):
        return (t.body,)
    if isinstance(t, ModEq):
        return (t.n, t.a, t.b)
    return ()


def subterms(t: Term) -> Iterator[Term]:
    """Every subterm, pre-order, left to right."""
    stack = [t]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(_children(cur)))


def size_exceeds(t: Term, limit: int) -> bool:
    """Whether ``t`` has more than ``limit`` nodes (stops counting there: rewriting can
    share subterms, so a term's tree may be exponentially larger than its memory)."""
    for n, _ in enumerate(subterms(t), 1):
        if n > limit:
            return True
    return False


def fvars(t: Term) -> set[int]:
    """Ids of the free hypotheses a term mentions."""
    return {s.uid for s in subterms(t) if isinstance(s, FVar)}


def mvars(t: Term) -> set[int]:
    """Ids of the unification variables a term mentions."""
    return {s.uid for s in subterms(t) if isinstance(s, MVar)}


def bvar_free(t: Term, name: str) -> bool:
    """Whether bound name ``name`` occurs free in ``t``."""
    if isinstance(t, BVar):
        return t.name == name
    if isinstance(t, Binder):
        return t.name != name and bvar_free(t.body, name)
    return any(bvar_free(c, name) for c in _children(t))


def _rebuild(t: Term, kids: tuple[Term, ...]) -> Term:
    if isinstance(t, Op):
        return Op(t.op, kids, t.ty)
    if isinstance(t, Conn):
        return Conn(t.op, kids)
    if isinstance(t, Rel):
        return Rel(t.op, kids[0], kids[1])
    if isinstance(t, Binder):
        return Binder(t.q, t.name, t.ty, kids[0], t.implicit)
    if isinstance(t, ModEq):
        return ModEq(t.ty, kids[0], kids[1], kids[2])
    return t


def replace(t: Term, fn: Callable[[Term], Term | None]) -> Term:
    """Rebuild ``t`` bottom-up-lazily: where ``fn`` returns a term, it replaces the subterm."""
    got = fn(t)
    if got is not None:
        return got
    kids = _children(t)
    if not kids:
        return t
    new = tuple(replace(k, fn) for k in kids)
    if all(a is b for a, b in zip(new, kids, strict=True)):
        return t
    return _rebuild(t, new)


def instantiate(body: Term, name: str, value: Term) -> Term:
    """Substitute ``value`` (closed under binders) for the bound variable ``name``."""

    def go(t: Term) -> Term:
        if isinstance(t, BVar):
            return value if t.name == name else t
        if isinstance(t, Binder):
            if t.name == name:
                return t
            nb = go(t.body)
            return t if nb is t.body else Binder(t.q, t.name, t.ty, nb, t.implicit)
        kids = _children(t)
        if not kids:
            return t
        new = tuple(go(k) for k in kids)
        if all(a is b for a, b in zip(new, kids, strict=True)):
            return t
        return _rebuild(t, new)

    return go(body)


def replace_fvar(t: Term, uid: int, value: Term) -> Term:
    """Substitute ``value`` for the hypothesis ``uid``."""
    return replace(t, lambda s: value if isinstance(s, FVar) and s.uid == uid else None)


# ---------------------------------------------------------------- keys (equality up to alpha / defeq)


def alpha_key(t: Term, env: tuple[str, ...] = ()) -> object:
    """A hashable key equal for alpha-equivalent terms (de Bruijn indices for bound names)."""
    if isinstance(t, BVar):
        for i in range(len(env) - 1, -1, -1):
            if env[i] == t.name:
                return ("b", len(env) - 1 - i)
        return ("B", t.name)
    if isinstance(t, Binder):
        return ("Q", t.q, t.ty, alpha_key(t.body, (*env, t.name)))
    if isinstance(t, Num):
        return ("n", t.value, t.ty)
    if isinstance(t, FVar):
        return ("f", t.uid)
    if isinstance(t, MVar):
        return ("m", t.uid)
    if isinstance(t, Const):
        return ("c", t.name)
    if isinstance(t, Op):
        return ("o", t.op, t.ty, *(alpha_key(a, env) for a in t.args))
    if isinstance(t, Rel):
        return ("r", t.op, alpha_key(t.lhs, env), alpha_key(t.rhs, env))
    if isinstance(t, ModEq):
        return ("M", t.ty, alpha_key(t.n, env), alpha_key(t.a, env), alpha_key(t.b, env))
    return ("k", t.op, *(alpha_key(a, env) for a in t.args))


def defeq_key(
    t: Term, evaluate: Callable[[Term], int | None] | None = None, delta: bool = False
) -> object:
    """Key up to Lean's reducible unfoldings: ``a > b`` is ``b < a``, ``a ≠ b`` and ``¬p`` are
    implications into False, and (with ``evaluate``) closed arithmetic is computed; with
    ``delta`` (default transparency, as ``assumption``'s ``isDefEq``) ``Nat.ModEq`` and
    ``Int.ModEq`` are unfolded too."""

    def norm(s: Term) -> Term | None:
        if delta and isinstance(s, ModEq):
            return norm_t(unfold_modeq(s))
        if isinstance(s, Rel):
            lhs, rhs = norm_t(s.lhs), norm_t(s.rhs)
            if s.op == ">":
                return Rel("<", rhs, lhs)
            if s.op == "≥":
                return Rel("≤", rhs, lhs)
            if s.op == "≠":
                return Conn("→", (Rel("=", lhs, rhs), Const("False")))
            return Rel(s.op, lhs, rhs)
        if isinstance(s, Conn) and s.op == "¬":
            return Conn("→", (norm_t(s.args[0]), Const("False")))
        if evaluate is not None and isinstance(s, Op):
            v = evaluate(s)
            if v is not None:
                return Num(v, s.ty)
        return None

    def norm_t(s: Term) -> Term:
        return replace(s, norm)

    return alpha_key(norm_t(t))


# ---------------------------------------------------------------- printing

MAX = 1024
_INFIX: dict[str, tuple[int, int, int]] = {
    # op: (prec, lhs prec, rhs prec)
    "→": (25, 26, 25),
    "↔": (20, 21, 21),
    "∨": (30, 31, 30),
    "∧": (35, 36, 35),
    "+": (65, 65, 66),
    "-": (65, 65, 66),
    "*": (70, 70, 71),
    "/": (70, 70, 71),
    "%": (70, 70, 71),
    "^": (80, 81, 80),
}
_REL_PREC = (50, 51, 51)


Scope = tuple[tuple[str, str], ...]  # (bound name, printed name) of the binders around


def _shown(scope: Scope, name: str) -> str:
    for bound, shown in reversed(scope):
        if bound == name:
            return shown
    return name


def pp(t: Term, names: Mapping[int, str] | None = None) -> str:
    """Print a term as Lean 4 does (``names`` gives hypotheses' display names)."""
    return _pp(t, names or {}, 0, True, ())


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _pp(t: Term, names: Mapping[int, str], need: int, right_open: bool, scope: Scope) -> str:
    if isinstance(t, Num):
        if t.value < 0:
            return _wrap(f"-{-t.value}", 75, need)
        return str(t.value)
    if isinstance(t, BVar):
        return _shown(scope, t.name)
    if isinstance(t, FVar):
        return names.get(t.uid, f"x{t.uid}")
    if isinstance(t, MVar):
        return f"?{t.name}"
    if isinstance(t, Const):
        return t.name
    if isinstance(t, Op):
        if t.op == "cast":
            return "↑" + _pp(t.args[0], names, MAX, right_open, scope)
        if t.op == "neg":
            inner = _pp(t.args[0], names, 75, right_open, scope)
            sep = " " if inner.startswith("-") else ""
            return _wrap(f"-{sep}{inner}", 75, need)
        prec, lp, rp = _INFIX[t.op]
        lhs = _pp(t.args[0], names, lp, False, scope)
        rhs = _pp(t.args[1], names, rp, right_open or prec < need, scope)
        return _wrap(f"{lhs} {t.op} {rhs}", prec, need)
    if isinstance(t, Rel):
        prec, lp, rp = _REL_PREC
        lhs = _pp(t.lhs, names, lp, False, scope)
        rhs = _pp(t.rhs, names, rp, right_open or prec < need, scope)
        return _wrap(f"{lhs} {t.op} {rhs}", prec, need)
    if isinstance(t, ModEq):
        # `notation:50 a " ≡ " b " [MOD " n "]"`; the operands are parenthesised as a
        # relation's would be
        lhs = _pp(t.a, names, 51, False, scope)
        rhs = _pp(t.b, names, 51, False, scope)
        mod = _pp(t.n, names, 0, False, scope)
        word = "MOD" if t.ty == "Nat" else "ZMOD"
        return _wrap(f"{lhs} ≡ {rhs} [{word} {mod}]", 50, need)
    if isinstance(t, Conn):
        if t.op == "¬":
            return "¬" + _pp(t.args[0], names, 40, right_open, scope)
        prec, lp, rp = _INFIX[t.op]
        lhs = _pp(t.args[0], names, lp, False, scope)
        rhs = _pp(t.args[1], names, rp, right_open or prec < need, scope)
        return _wrap(f"{lhs} {t.op} {rhs}", prec, need)
    return _pp_binder(t, names, need, right_open, scope)


def _free_bvars(t: Term) -> set[str]:
    """Names of the bound variables free in ``t`` (bound by binders around it)."""
    out: set[str] = set()
    stack: list[tuple[Term, frozenset[str]]] = [(t, frozenset())]
    while stack:
        cur, inner = stack.pop()
        if isinstance(cur, BVar):
            if cur.name not in inner:
                out.add(cur.name)
        elif isinstance(cur, Binder):
            stack.append((cur.body, inner | {cur.name}))
        else:
            stack.extend((k, inner) for k in _children(cur))
    return out


def _binder_name(b: Binder, names: Mapping[int, str], scope: Scope) -> str:
    """The name a binder prints with, as Lean's delaborator picks it (getUnusedName with
    pp.safeShadowing): its own name unless a local in scope (a hypothesis or an enclosing
    binder) has that name and the body refers to that local; then ``x_1``, ``x_2``, … the
    first one no local in scope has."""
    in_scope = set(names.values()) | {shown for _, shown in scope}
    if b.name not in in_scope:
        return b.name
    used = {names.get(s.uid, f"x{s.uid}") for s in subterms(b.body) if isinstance(s, FVar)}
    used |= {_shown(scope, n) for n in _free_bvars(b.body) if n != b.name}
    if b.name not in used:
        return b.name  # shadowing an unused local is safe
    i = 1
    while f"{b.name}_{i}" in in_scope:
        i += 1
    return f"{b.name}_{i}"


def _pp_binder(
    t: Binder, names: Mapping[int, str], need: int, right_open: bool, scope: Scope
) -> str:
    cur: Term = t
    if t.q == "∀" and not bvar_free(t.body, t.name):
        # a non-dependent ∀ prints as an arrow
        text = f"{t.ty} → {_pp(t.body, names, 25, True, scope)}"
        return _wrap(text, 25, need)
    groups: list[tuple[list[str], str, bool]] = []
    while isinstance(cur, Binder) and cur.q == t.q:
        if t.q == "∀" and not bvar_free(cur.body, cur.name):
            break
        name = _binder_name(cur, names, scope)
        scope = (*scope, (cur.name, name))
        if groups and groups[-1][1] == cur.ty and groups[-1][2] == cur.implicit:
            groups[-1][0].append(name)
        else:
            groups.append(([name], cur.ty, cur.implicit))
        cur = cur.body
    body_text = _pp(cur, names, 0, True, scope)
    if t.q == "∃":
        text = f"∃ {' '.join(n for g in groups for n in g[0])}, {body_text}"
    else:
        parts = [
            f"{{{' '.join(ns)} : {ty}}}" if implicit else f"({' '.join(ns)} : {ty})"
            for ns, ty, implicit in groups
        ]
        text = f"∀ {' '.join(parts)}, {body_text}"
    return text if right_open else f"({text})"
