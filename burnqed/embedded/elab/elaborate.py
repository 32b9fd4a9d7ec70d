"""Elaboration: surface syntax to typed terms, the way Lean 4's elaborator types them.

One pass in Lean's elaboration order (left to right), then the open types are settled:

- Names resolve locals first: a binder named ``True``, ``False``, ``Nat`` or ``Int`` shadows
  the constant (``∀ (True : Prop), True`` is about its variable); then ``True``/``False`` and
  the types ``Nat``/``Int``. ``ℕ``/``ℤ`` (notations for the constants) and ``Prop`` (a
  keyword) always mean the types.
- An untyped binder gets a type metavariable that its first use fixing it assigns: a use as a
  proposition (Prop), a type ascription ``(x : ℤ)``, an arithmetic tree with a leaf of known
  type. What is still open at the end is settled by Lean's default instances in their priority
  order: ``Neg Int`` (an open tree with a unary minus is ℤ), then ``OfNat Nat`` (numerals) and
  the ℕ exponent of ``^`` (Monoid.npow). A binder type nothing fixes is an error
  (``∀ x, True``, ``∀ x y, x + y = y + x``: "failed to infer binder type").
- Arithmetic and relations follow Lean's ``binop%``/``binrel%`` elaborator (Lean.Elab.Extra):
  the leaves of a tree (through ``+ - * / %``, unary ``-``, the base of ``^`` and parentheses; a
  relation joins both sides) are elaborated first, the tree's type is the largest known leaf
  type (ℕ < ℤ, starting from the expected type of a ``binop%`` tree), ℕ leaves get ``↑`` in a ℤ
  tree and leaves of open type take the tree's type. The exponent of ``^`` is a tree of its own
  (``rightact%``). ``↑e`` waits for its tree's type, then elaborates ``e`` on its own and
  coerces it. ``a ∣ b`` is a plain application of ``Dvd.dvd`` (no ``binrel%``): ``b`` is
  elaborated against the type of ``a``, so ``(n : ℕ) ∣ (z : ℤ)`` does not elaborate.

Anything outside the fragment is an ``ElabError`` naming the construct and its position.
"""

from __future__ import annotations

from collections.abc import Mapping

from burnqed.embedded.elab.type_vars import ElabError, TypeVars, join_types
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import (
    Binder,
    ModEq,
    BVar,
    Conn,
    Const,
    FVar,
    MVar,
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
_NOTATIONS = ("ℕ", "ℤ", "Prop")
_ARITH = ("+", "-", "*", "/", "%")
_RELS = ("=", "≠", "<", "≤", ">", "≥", "∣")
_CONNS = ("∧", "∨", "→", "↔")
_NUMBER = ("Nat", "Int")
_CONSTRUCT = {
    "app": "function application",
    "proj": "projection",
    "anon": "anonymous constructor ⟨...⟩",
    "hole": "?_",
    "blank": "_",
    "by": "by-block",
    "fun": "function (fun)",
    "cdot": "·",
}
_COE = "coe?"  # a postponed ``↑e`` until its target type is known (never leaves this module)


def position(text: str, pos: int) -> tuple[int, int]:
    """1-based line and 0-based column of a character offset (Lean's convention)."""
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1)
    return line, col


def elab_prop(s: Syn, scope: Scope) -> Term:
    """Elaborate a proposition."""
    e = _Elab()
    return e.finish(e.prop(s, scope))


def elab_type(s: Syn, scope: Scope) -> str | Term:
    """A binder type: "Nat", "Int", "Prop", or a proposition (an implication's premise)."""
    e = _Elab()
    got = e.type_(s, scope)
    return got if isinstance(got, str) else e.finish(got)


def elab_value(s: Syn, scope: Scope, expected: str | None = None) -> Term:
    """Elaborate a number of type ``expected`` (or of its tree's own type)."""
    e = _Elab()
    return e.finish(e.tree(s, scope, expected))


def _strip(s: Syn) -> Syn:
    while s.kind == "paren":
        s = s.args[0]
    return s


def _unsupported(s: Syn) -> ElabError:
    what = _CONSTRUCT.get(s.kind, s.kind)
    return ElabError(f"unsupported construct in this fragment: {what}", s.pos)


def _cast(t: Term) -> Term:
    """``↑t`` from Nat to Int (a numeral is one of type Int)."""
    if isinstance(t, Num):
        return Num(t.value, "Int")
    return Op("cast", (t,), "Int")


class _Elab:
    """One elaboration: its type metavariables and the checks left for the end."""

    def __init__(self) -> None:
        self.types = TypeVars()
        self.binders: list[tuple[str, str, int]] = []  # (type var, name, pos)
        self.numbers: list[tuple[str, int]] = []  # tree types: Nat or Int in the end
        self.negs: list[tuple[str, int]] = []  # types of unary minus: Int in the end
        self.exps: list[tuple[str, int]] = []  # exponent types: Nat in the end
        self.coes: list[tuple[str, str, int]] = []  # (target, inner type, pos) of ↑e

    # ---------------------------------------------------------------- propositions
    def prop(self, s: Syn, scope: Scope) -> Term:
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
            if kind == "val" and self.types.get(type_of(term)) in (None, "Prop"):
                self.types.assign(type_of(term), "Prop", s.pos)
                return term
            raise ElabError(f"type mismatch: '{s.value}' is not a proposition", s.pos)
        if k == "binop":
            op = s.value
            if op in _CONNS:
                return Conn(op, (self.prop(s.args[0], scope), self.prop(s.args[1], scope)))
            if op == "∣":
                # Dvd.dvd a b: a plain application, b against the type of a
                a = self.tree(s.args[0], scope, None)
                b = self.tree(s.args[1], scope, type_of(a))
                return Rel(op, a, b)
            if op in _RELS:
                return self.tree(s, scope, None, rel=True)
            raise ElabError(
                f"type mismatch: arithmetic '{op}' where a proposition is expected", s.pos
            )
        if k == "modeq":
            # Nat.ModEq n a b / Int.ModEq n a b: an application, each argument elaborated
            # against ℕ / ℤ (so a ℕ leaf under [ZMOD n] is cast, as Lean's coercion inserts ↑)
            ty = "Nat" if s.value == "MOD" else "Int"
            n, a, b = (self.tree(x, scope, ty) for x in s.args)
            return ModEq(ty, n, a, b)
        if k == "unop" and s.value == "¬":
            return Conn("¬", (self.prop(s.args[0], scope),))
        if k == "binder":
            q, groups = s.value
            return self._binders(q, groups, 0, s.args[0], scope, s.pos)
        if k == "ascribe" and self.type_(s.args[1], scope) == "Prop":
            return self.prop(s.args[0], scope)
        if k in ("num", "unop", "ascribe"):
            raise ElabError(
                "type mismatch: a number where a proposition is expected", s.pos
            )
        raise _unsupported(s)

    def _binders(
        self, q: str, groups: list, i: int, body: Syn, scope: Scope, pos: int
    ) -> Term:
        if i == len(groups):
            return self.prop(body, scope)
        name, ty_syn, implicit = groups[i]
        ty: str | Term
        if ty_syn is None:
            ty = self.types.new()
            self.binders.append((ty, name, pos))
        else:
            ty = self.type_(ty_syn, scope)
        inner = dict(scope)
        if isinstance(ty, str):
            inner[name] = ("val", BVar(name, ty))
            rest = self._binders(q, groups, i + 1, body, inner, pos)
            return Binder(q, name, ty, rest, implicit)
        # a binder whose type is a proposition: an implication (∀) or a conjunction (∃)
        inner[name] = ("proof", ty)
        rest = self._binders(q, groups, i + 1, body, inner, pos)
        return Conn("→" if q == "∀" else "∧", (ty, rest))

    def type_(self, s: Syn, scope: Scope) -> str | Term:
        """A binder type (locals first: ``∀ (ℕ : Prop) (x : ℕ), …`` has a premise ``ℕ``)."""
        s = _strip(s)
        if s.kind == "ident" and s.value in _NOTATIONS:
            # `ℕ`, `ℤ` are notations for the constants (hygienic), `Prop` a keyword: no
            # local of that name can shadow them
            return _TYPES[s.value]
        if s.kind == "ident":
            entry = scope.get(s.value)
            if entry is not None:
                kind, term = entry
                if kind == "val" and self.types.get(type_of(term)) in (None, "Prop"):
                    self.types.assign(type_of(term), "Prop", s.pos)
                    return term
                raise ElabError(f"type expected, '{s.value}' is not a type", s.pos)
            if s.value in _TYPES:
                return _TYPES[s.value]
            if s.value not in ("True", "False") and (
                s.value[:1].isupper() or s.value in ("ℝ", "ℚ", "ℂ")
            ):
                raise ElabError(
                    f"unsupported type '{s.value}' (the fragment has Nat, Int and Prop)",
                    s.pos,
                )
        return self.prop(s, scope)

    # ---------------------------------------------------------------- arithmetic trees (binop%)
    def tree(
        self, s: Syn, scope: Scope, expected: str | None, rel: bool = False
    ) -> Term:
        """A ``binop%`` tree against an optional expected type (a ``binrel%`` one with
        ``rel``: the relation at its root, no expected type); returns its term."""
        leaves: list[tuple[Term, Syn]] = []
        negs: list[int] = []

        def collect(x: Syn, root: bool = False) -> tuple:
            x = _strip(x)
            if root and rel:
                return ("rel", x.value, collect(x.args[0]), collect(x.args[1]))
            if x.kind == "binop" and x.value in _ARITH:
                return ("op", x.value, collect(x.args[0]), collect(x.args[1]))
            if x.kind == "binop" and x.value == "^":
                base = collect(x.args[0])
                # rightact%: the exponent is elaborated on its own
                exp = self.tree(x.args[1], scope, None)
                self.types.flag(type_of(exp), "exp")
                self.exps.append((type_of(exp), x.args[1].pos))
                return ("pow", base, exp)
            if x.kind == "unop" and x.value == "-":
                negs.append(x.pos)
                return ("neg", collect(x.args[0]))
            leaves.append((self._leaf(x, scope), x))
            return ("leaf", len(leaves) - 1)

        shape = collect(s, root=True)
        top = self.types.get(expected) if expected is not None else None
        for term, x in leaves:
            have = self.types.get(type_of(term))
            if have == "Prop":
                raise ElabError(
                    "type mismatch: a proposition where a number is expected", x.pos
                )
            if have is not None:
                top = join_types(top, have)
        out: list[Term] = []
        if top is not None:
            ty = top
            for term, x in leaves:
                have = self.types.get(type_of(term))
                if have is None:
                    self.types.assign(type_of(term), ty, x.pos)
                    if isinstance(term, Op) and term.op == _COE:
                        self._resume(term, ty, x.pos)
                    out.append(term)
                elif have == ty:
                    out.append(term)
                else:
                    out.append(_cast(term))
        else:
            ty = self.types.new()
            for term, x in leaves:
                self.types.union(ty, type_of(term), x.pos)
                out.append(term)
            if negs:
                self.types.flag(ty, "neg")
        if expected is not None:
            want = self.types.get(expected)
            if want is None:
                self.types.union(expected, ty, s.pos)
            elif want != self.types.get(ty):
                raise ElabError(
                    f"type mismatch: an {self.types.get(ty)} term where a {want} is expected",
                    s.pos,
                )
        self.numbers.append((ty, s.pos))
        self.negs.extend((ty, p) for p in negs)

        def build(node: tuple) -> Term:
            tag = node[0]
            if tag == "leaf":
                return out[node[1]]
            if tag == "op":
                return Op(node[1], (build(node[2]), build(node[3])), ty)
            if tag == "pow":
                return Op("^", (build(node[1]), node[2]), ty)
            if tag == "neg":
                return Op("neg", (build(node[1]),), ty)
            return Rel(node[1], build(node[2]), build(node[3]))

        return build(shape)

    def _resume(self, coe: Op, ty: str, pos: int) -> None:
        """``↑e`` once its target type is known: an ``e`` of open type takes it."""
        inner = type_of(coe.args[0])
        if self.types.get(inner) is None:
            self.types.assign(inner, ty, pos)

    def _leaf(self, x: Syn, scope: Scope) -> Term:
        k = x.kind
        if k == "num":
            return Num(x.value, self.types.new("num"))
        if k == "ident":
            entry = scope.get(x.value)
            if entry is None:
                if x.value in _TYPES or x.value in ("True", "False"):
                    raise ElabError(f"type mismatch: '{x.value}' is not a number", x.pos)
                raise ElabError(f"unknown identifier '{x.value}'", x.pos)
            kind, term = entry
            if kind != "val":
                raise ElabError(
                    f"type mismatch: '{x.value}' is a proof, not a number", x.pos
                )
            if self.types.get(type_of(term)) == "Prop":
                raise ElabError(
                    f"type mismatch: '{x.value}' is a proposition, not a number", x.pos
                )
            return term
        if k == "ascribe":
            aty = self.type_(x.args[1], scope)
            if not isinstance(aty, str) or aty not in _NUMBER:
                raise ElabError("type ascription to a non-number type", x.pos)
            return self.tree(x.args[0], scope, aty)
        if k == "unop" and x.value == "↑":
            # elabCoe: postponed until the tree's type is known; e is elaborated on its own
            inner = self.tree(x.args[0], scope, None)
            target = self.types.new()
            self.coes.append((target, type_of(inner), x.pos))
            return Op(_COE, (inner,), target)
        if (
            k == "binder"
            or (k == "binop" and (x.value in _CONNS or x.value in _RELS))
            or (k == "unop" and x.value == "¬")
        ):
            raise ElabError(
                "type mismatch: a proposition where a number is expected", x.pos
            )
        raise _unsupported(x)

    # ---------------------------------------------------------------- the end: open types settled
    def finish(self, t: Term) -> Term:
        """Settle the open types (postponed coercions first, then default instances), check
        them, and return the term with its types filled in."""
        tys = self.types
        for target, inner, pos in self.coes:
            if tys.get(inner) is None:
                got = tys.settle(target)
                if got is None:
                    tys.union(inner, target, pos)
                else:
                    tys.assign(inner, got, pos)
        for ty, name, pos in self.binders:
            if tys.settle(ty) is None:
                raise ElabError(f"failed to infer binder type of '{name}'", pos)
        for ty, pos in self.numbers:
            got = tys.settle(ty)
            if got is None:
                raise ElabError(
                    "typeclass instance problem is stuck, it is often due to metavariables",
                    pos,
                )
            if got not in _NUMBER:
                raise ElabError(
                    f"type mismatch: a term of type {got} where a number is expected", pos
                )
        for ty, pos in self.negs:
            if tys.settle(ty) != "Int":
                raise ElabError(
                    "failed to synthesize Neg Nat (negation of a natural number)", pos
                )
        for ty, pos in self.exps:
            if tys.settle(ty) != "Nat":
                raise ElabError(
                    "unsupported: exponent of type Int (only Nat exponents)", pos
                )
        for target, inner, pos in self.coes:
            a, b = tys.settle(inner), tys.settle(target)
            if a != b and not (a == "Nat" and b == "Int"):
                raise ElabError(
                    f"type mismatch: ↑ of a term of type {a} where {b} is expected", pos
                )
        return self._fill(t)

    def _ty(self, ty: str) -> str:
        got = self.types.settle(ty)
        if got is None:  # unreachable: every open type was checked in finish
            raise ElabError("failed to infer a type", 0)
        return got

    def _fill(self, t: Term) -> Term:
        if isinstance(t, Num):
            return Num(t.value, self._ty(t.ty))
        if isinstance(t, BVar):
            return BVar(t.name, self._ty(t.ty))
        if isinstance(t, FVar | MVar | Const):
            return t
        if isinstance(t, Op):
            args = tuple(self._fill(a) for a in t.args)
            ty = self._ty(t.ty)
            if t.op == _COE:
                return args[0] if type_of(args[0]) == ty else _cast(args[0])
            if t.op == "neg" and isinstance(args[0], Num):
                return Num(-args[0].value, ty)
            return Op(t.op, args, ty)
        if isinstance(t, Rel):
            return Rel(t.op, self._fill(t.lhs), self._fill(t.rhs))
        if isinstance(t, Conn):
            return Conn(t.op, tuple(self._fill(a) for a in t.args))
        if isinstance(t, ModEq):
            return ModEq(t.ty, self._fill(t.n), self._fill(t.a), self._fill(t.b))
        return Binder(t.q, t.name, self._ty(t.ty), self._fill(t.body), t.implicit)
