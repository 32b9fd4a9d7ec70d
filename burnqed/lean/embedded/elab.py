"""Elaboration: surface syntax to typed terms, the way Lean's ``binop%`` elaborator types them.

Numerals take the type of the arithmetic tree they sit in; a tree with any Int leaf is Int
and its Nat leaves get ``↑`` (Nat → Int casts); binders without a type get Int if they meet
an Int leaf, Prop if used as a proposition, else Nat (Lean's default numeral type).
``ℕ``/``ℤ`` elaborate to ``Nat``/``Int``. Anything outside the fragment is an ``ElabError``
naming the construct and its position.
"""

from __future__ import annotations

from collections.abc import Mapping

from burnqed.lean.embedded.syntax import Syn
from burnqed.lean.embedded.terms import (
    Binder,
    BVar,
    Conn,
    Const,
    Num,
    Op,
    Rel,
    Term,
    type_of,
)

__all__ = [
    "ElabError",
    "Scope",
    "ScopeEntry",
    "elab_prop",
    "elab_type",
    "elab_value",
    "position",
]

ScopeEntry = tuple[str, Term]  # ("val", BVar/FVar) or ("proof", proposition)
Scope = Mapping[str, ScopeEntry]

_TYPES = {"Nat": "Nat", "ℕ": "Nat", "Int": "Int", "ℤ": "Int", "Prop": "Prop"}
_ARITH = ("+", "-", "*", "/", "%")
_RELS = ("=", "≠", "<", "≤", ">", "≥", "∣")
_CONNS = ("∧", "∨", "→", "↔")
_CONSTRUCT = {
    "app": "function application",
    "proj": "projection",
    "anon": "anonymous constructor ⟨...⟩",
    "hole": "?_",
    "blank": "_",
    "by": "by-block",
}


class ElabError(Exception):
    """A term that parses but does not elaborate in the fragment."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def position(text: str, pos: int) -> tuple[int, int]:
    """1-based line and 0-based column of a character offset (Lean's convention)."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1)
    return line, col


def _strip(s: Syn) -> Syn:
    while s.kind == "paren":
        s = s.args[0]
    return s


def elab_type(s: Syn, scope: Scope) -> str | Term:
    """A binder type: "Nat", "Int", "Prop", or a proposition (an implication's premise)."""
    s = _strip(s)
    if s.kind == "ident" and s.value in _TYPES:
        return _TYPES[s.value]
    unknown = (
        s.kind == "ident" and s.value not in scope and s.value not in ("True", "False")
    )
    if unknown and (s.value[:1].isupper() or s.value in ("ℝ", "ℚ", "ℂ")):
        raise ElabError(
            f"unsupported type '{s.value}' (the fragment has Nat, Int and Prop)", s.pos
        )
    return elab_prop(s, scope)


def _unsupported(s: Syn) -> ElabError:
    what = _CONSTRUCT.get(s.kind, s.kind)
    return ElabError(f"unsupported construct in this fragment: {what}", s.pos)


def elab_prop(s: Syn, scope: Scope) -> Term:
    """Elaborate a proposition."""
    s = _strip(s)
    k = s.kind
    if k == "ident":
        entry = scope.get(s.value)
        # a local name shadows the constant of the same name, as in Lean
        if entry is None and s.value in ("True", "False"):
            return Const(s.value)
        if entry is None:
            raise ElabError(f"unknown identifier '{s.value}'", s.pos)
        kind, term = entry
        if kind == "val" and type_of(term) == "Prop":
            return term
        raise ElabError(f"type mismatch: '{s.value}' is not a proposition", s.pos)
    if k == "binop":
        op = s.value
        if op in _CONNS:
            return Conn(op, (elab_prop(s.args[0], scope), elab_prop(s.args[1], scope)))
        if op in _RELS:
            ty = _tree_type(s, scope)
            return Rel(op, _arith(s.args[0], scope, ty), _arith(s.args[1], scope, ty))
        raise ElabError(
            f"type mismatch: arithmetic '{op}' where a proposition is expected", s.pos
        )
    if k == "unop" and s.value == "¬":
        return Conn("¬", (elab_prop(s.args[0], scope),))
    if k == "binder":
        return _binder(s, scope)
    if k in ("num", "unop", "ascribe"):
        raise ElabError(
            "type mismatch: a number where a proposition is expected", s.pos
        )
    raise _unsupported(s)


def _binder(s: Syn, scope: Scope) -> Term:
    q, groups = s.value
    body_syn = s.args[0]
    if not groups:
        return elab_prop(body_syn, scope)
    (name, ty_syn, implicit), rest = groups[0], groups[1:]
    inner_syn = Syn("binder", s.pos, (q, rest), (body_syn,)) if rest else body_syn
    ty: str | Term
    if ty_syn is None:
        ty = _infer_binder(name, inner_syn, scope)
    else:
        ty = elab_type(ty_syn, scope)
    inner_scope = dict(scope)
    if isinstance(ty, str):
        inner_scope[name] = ("val", BVar(name, ty))
        body = elab_prop(inner_syn, inner_scope)
        return Binder(q, name, ty, body, implicit)
    # a binder whose type is a proposition: an implication (∀) or a conjunction (∃)
    inner_scope[name] = ("proof", ty)
    body = elab_prop(inner_syn, inner_scope)
    return Conn("→" if q == "∀" else "∧", (ty, body))


# ---------------------------------------------------------------- arithmetic trees (binop%)


def _leaves(s: Syn, out: list[Syn]) -> None:
    s = _strip(s)
    if s.kind == "binop" and (s.value in _ARITH or s.value in _RELS):
        _leaves(s.args[0], out)
        _leaves(s.args[1], out)
    elif s.kind == "binop" and s.value == "^" or s.kind == "unop" and s.value == "-":
        _leaves(s.args[0], out)
    else:
        out.append(s)


def _leaf_type(s: Syn, scope: Scope) -> str | None:
    if s.kind == "num":
        return None
    if s.kind == "ident":
        entry = scope.get(s.value)
        if entry is None:
            if s.value in _TYPES or s.value in ("True", "False"):
                raise ElabError(f"type mismatch: '{s.value}' is not a number", s.pos)
            raise ElabError(f"unknown identifier '{s.value}'", s.pos)
        kind, term = entry
        if kind != "val":
            raise ElabError(
                f"type mismatch: '{s.value}' is a proof, not a number", s.pos
            )
        ty = type_of(term)
        if ty == "Prop":
            raise ElabError(
                f"type mismatch: '{s.value}' is a proposition, not a number", s.pos
            )
        return ty
    if s.kind == "ascribe":
        aty = elab_type(s.args[1], scope)
        if not isinstance(aty, str) or aty not in ("Nat", "Int"):
            raise ElabError("type ascription to a non-number type", s.pos)
        return aty
    if s.kind == "unop" and s.value == "↑":
        return "Int"
    if s.kind in ("binder", "unop") or (s.kind == "binop" and s.value in _CONNS):
        raise ElabError(
            "type mismatch: a proposition where a number is expected", s.pos
        )
    raise _unsupported(s)


def _tree_type(s: Syn, scope: Scope) -> str:
    leaves: list[Syn] = []
    _leaves(s, leaves)
    types = {_leaf_type(leaf, scope) for leaf in leaves}
    return "Int" if "Int" in types else "Nat"


def elab_value(s: Syn, scope: Scope, expected: str | None = None) -> Term:
    """Elaborate a number of type ``expected`` (or of its tree's own type)."""
    ty = _tree_type(s, scope)
    if expected == "Int":
        ty = "Int"
    elif expected == "Nat" and ty == "Int":
        raise ElabError("type mismatch: an Int term where a Nat is expected", s.pos)
    return _arith(s, scope, ty)


def _coerce(t: Term, ty: str, pos: int) -> Term:
    have = type_of(t)
    if have == ty:
        return t
    if have == "Nat" and ty == "Int":
        if isinstance(t, Num):
            return Num(t.value, "Int")
        return Op("cast", (t,), "Int")
    raise ElabError(f"type mismatch: {have} term where {ty} is expected", pos)


def _arith(s: Syn, scope: Scope, ty: str) -> Term:
    s = _strip(s)
    k = s.kind
    if k == "num":
        return Num(s.value, ty)
    if k == "ident":
        entry = scope.get(s.value)
        if entry is None:
            raise ElabError(f"unknown identifier '{s.value}'", s.pos)
        return _coerce(entry[1], ty, s.pos)
    if k == "binop" and s.value in _ARITH:
        return Op(
            s.value, (_arith(s.args[0], scope, ty), _arith(s.args[1], scope, ty)), ty
        )
    if k == "binop" and s.value == "^":
        base = _arith(s.args[0], scope, ty)
        ety = _tree_type(s.args[1], scope)
        if ety != "Nat":
            raise ElabError(
                "unsupported: exponent of type Int (only Nat exponents)", s.args[1].pos
            )
        return Op("^", (base, _arith(s.args[1], scope, "Nat")), ty)
    if k == "unop" and s.value == "-":
        if ty != "Int":
            raise ElabError(
                "failed to synthesize Neg Nat (negation of a natural number)", s.pos
            )
        inner = _arith(s.args[0], scope, ty)
        if isinstance(inner, Num):
            return Num(-inner.value, ty)
        return Op("neg", (inner,), ty)
    if k == "unop" and s.value == "↑":
        inner = _arith(s.args[0], scope, _tree_type(s.args[0], scope))
        return _coerce(inner, ty, s.pos)
    if k == "ascribe":
        aty = elab_type(s.args[1], scope)
        if aty not in ("Nat", "Int"):
            raise ElabError("type ascription to a non-number type", s.pos)
        inner = _arith(s.args[0], scope, aty)  # type: ignore[arg-type]
        return _coerce(inner, ty, s.pos)
    if (
        k in ("binder",)
        or (k == "binop" and (s.value in _CONNS or s.value in _RELS))
        or (k == "unop" and s.value == "¬")
    ):
        raise ElabError(
            "type mismatch: a proposition where a number is expected", s.pos
        )
    raise _unsupported(s)


# ---------------------------------------------------------------- untyped binders


def _mentions(s: Syn, name: str) -> bool:
    if s.kind == "ident":
        return s.value == name
    if s.kind == "binder":
        _q, groups = s.value
        if any(g[0] == name for g in groups):
            return any(g[1] is not None and _mentions(g[1], name) for g in groups)
    if s.kind == "binder":
        return _mentions(s.args[0], name) or any(
            g[1] is not None and _mentions(g[1], name) for g in s.value[1]
        )
    return any(_mentions(a, name) for a in s.args)


def _infer_binder(name: str, body: Syn, scope: Scope) -> str:
    """Type of an untyped binder from its uses (Prop / Int / Nat)."""
    found: list[str] = []

    def ascribed(s: Syn, sc: dict[str, ScopeEntry]) -> str | None:
        # `(x : ℤ)`: the ascription unifies the binder's type metavariable
        if s.kind == "ascribe" and _strip(s.args[0]).kind == "ident" and _strip(s.args[0]).value == name:
            try:
                t = elab_type(s.args[1], sc)
            except ElabError:
                return None
            return t if isinstance(t, str) else None
        return None

    def visit(s: Syn, sc: dict[str, ScopeEntry]) -> None:
        s = _strip(s)
        if s.kind == "ident" and s.value == name:
            found.append("Prop")
            return
        got = ascribed(s, sc)
        if got is not None:
            found.append(got)
            return
        if s.kind == "binop" and (
            s.value in _RELS or s.value in _ARITH or s.value == "^"
        ):
            leaves: list[Syn] = []
            _leaves(s, leaves)
            for leaf in leaves:
                got = ascribed(_strip(leaf), sc)
                if got is not None:
                    found.append(got)
            if any(
                _strip(x).kind == "ident" and _strip(x).value == name for x in leaves
            ):
                others = set()
                for leaf in leaves:
                    leaf = _strip(leaf)
                    if leaf.kind == "ident" and leaf.value == name:
                        continue
                    try:
                        others.add(_leaf_type(leaf, sc))
                    except ElabError:
                        continue
                found.append("Int" if "Int" in others else "Nat")
            return
        if s.kind == "binder":
            _q, groups = s.value
            if any(g[0] == name for g in groups):
                return
            inner = dict(sc)
            for g in groups:
                if g[1] is not None:
                    try:
                        t = elab_type(g[1], inner)
                    except ElabError:
                        continue
                    if isinstance(t, str):
                        inner[g[0]] = ("val", BVar(g[0], t))
            visit(s.args[0], inner)
            return
        for a in s.args:
            visit(a, sc)

    placeholder = dict(scope)
    placeholder[name] = ("val", BVar(name, "Nat"))
    visit(body, placeholder)
    if not found:
        return "Nat"
    if "Int" in found:
        return "Int"
    return found[0]
