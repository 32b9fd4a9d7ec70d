"""The independent proof kernel of the embedded backend (the de Bruijn criterion).

Tactics of the embedded checker may be wrong; this module decides whether a proof counts.
It imports nothing from the elaborator or the tactics (only the standard library), and
everything it accepts is checked here from small rules:

- Terms: ``Lit`` numerals (exact ints), ``Var`` bound variables as de Bruijn indices (so
  capture is impossible by construction), ``Free`` context entries by id, ``App`` for
  arithmetic (``+ - * / % ^ neg cast``), relations (``= < ≤ ∣``), connectives
  (``∧ ∨ → ↔``) and the constants ``True``/``False``, ``Bind`` for ``∀``/``∃`` over
  Nat, Int or Prop. Every term is sort-checked (``sort_of``). ``>``/``≥``/``≠``/``¬`` are
  Lean's reducible abbreviations and are unfolded by whoever builds terms.
- A ``Sequent`` is a context (ordered ``Entry`` s: variables of a sort, hypotheses of a
  proposition) and a target. Its meaning: for all values of the variables, the
  hypotheses imply the target.
- A ``Proof`` is a tree ``Proof(rule, args)``; ``check`` verifies it against a sequent and
  returns the obligations its ``hole`` s leave (child goals, proved by their own proofs).
  Natural deduction (intro, app, inst, and/or/iff/exists intro and elimination, false
  elimination, have, by_contra and em — classical, as Mathlib), Nat induction, subst and
  rewriting (``rw`` with a motive; congruence under binders), and three certificate rules
  for decision procedures: ``ring`` (polynomial normal forms recomputed here), ``decide``
  (exact evaluation of a closed proposition) and ``arith`` (a refutation tree over
  linear facts: case splits, integer cuts, products and squares, and Farkas combinations
  with exact rational coefficients whose sum must be a negative constant). A solver's
  "unsat" alone is never accepted.
- Arithmetic is Lean's: Nat subtraction truncates, ``x / 0 = 0``, ``x % 0 = x``, Int
  ``/`` and ``%`` are ``Int.ediv``/``Int.emod``, ``0 ^ 0 = 1``; numbers are exact
  (``int`` and ``Fraction``), never floats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import Any

__all__ = [
    "ARITH_HEADS",
    "App",
    "Bind",
    "Entry",
    "FactSet",
    "Free",
    "KernelError",
    "Lin",
    "Lit",
    "Poly",
    "Proof",
    "PropLit",
    "Sequent",
    "Var",
    "abstract",
    "check",
    "conv",
    "covers",
    "evaluate",
    "instantiate",
    "poly",
    "sort_of",
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


# ---------------------------------------------------------------- contexts and sorts


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
        if not isinstance(entry.ty, str):
            _expect_prop(self, entry.ty)
        return Sequent((*self.ctx, entry), self.target)

    def to(self, target: Term) -> Sequent:
        """Same context, another target."""
        return Sequent(self.ctx, target)


_SIG: dict[str, tuple[str, ...]] = {"neg": ("Int",), "cast": ("Nat",)}


def sort_of(seq: Sequent, t: Term, bound: tuple[str, ...] = ()) -> str:
    """The sort of a well-formed term (raises KernelError otherwise)."""
    if isinstance(t, Lit):
        if t.sort not in ("Nat", "Int") or (t.sort == "Nat" and t.value < 0):
            raise KernelError(f"bad numeral {t}")
        return t.sort
    if isinstance(t, Var):
        if t.idx >= len(bound):
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


def _expect_prop(seq: Sequent, t: Term) -> None:
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


# ---------------------------------------------------------------- polynomials


Monomial = tuple[tuple[Term, int], ...]


class Poly(dict[Monomial, Fraction]):
    """A polynomial over integer-valued atoms (exact coefficients; zero terms dropped)."""

    @staticmethod
    def const(c: int | Fraction) -> Poly:
        """A constant."""
        p = Poly()
        if c:
            p[()] = Fraction(c)
        return p

    @staticmethod
    def atom(t: Term) -> Poly:
        """One atom."""
        p = Poly()
        p[((t, 1),)] = Fraction(1)
        return p

    def add(self, other: Poly, k: int | Fraction = 1) -> Poly:
        """``self + k * other``."""
        out = Poly(self)
        for m, c in other.items():
            v = out.get(m, Fraction(0)) + k * c
            if v:
                out[m] = v
            else:
                out.pop(m, None)
        return out

    def mul(self, other: Poly) -> Poly:
        """Product (bounded size)."""
        out = Poly()
        for m1, c1 in self.items():
            for m2, c2 in other.items():
                out = out.add(Poly({_mono_mul(m1, m2): c1 * c2}))
                if len(out) > MAX_MONOMIALS:
                    raise KernelError("polynomial too large")
        return out

    def constant(self) -> Fraction | None:
        """The value when constant."""
        if not self:
            return Fraction(0)
        if len(self) == 1 and () in self:
            return self[()]
        return None


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    powers: dict[Term, int] = dict(a)
    for t, k in b:
        powers[t] = powers.get(t, 0) + k
    return tuple(sorted(powers.items(), key=lambda x: repr(x[0])))


def _ediv(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = a // b if b > 0 else -(a // -b)
    return q if a - b * q >= 0 else q + (1 if b < 0 else -1)


def _arith(head: str, a: int, b: int, sort: str) -> int:
    if head == "+":
        v = a + b
    elif head == "-":
        v = a - b if sort == "Int" else max(a - b, 0)
    elif head == "*":
        v = a * b
    elif head == "/":
        v = _ediv(a, b)
    elif head == "%":
        v = a - b * _ediv(a, b)
    else:
        if b > MAX_BITS or (abs(a) > 1 and b * abs(a).bit_length() > MAX_BITS):
            raise KernelError("number too large")
        v = a**b
    if abs(v).bit_length() > MAX_BITS:
        raise KernelError("number too large")
    return v


def poly(t: Term) -> Poly:
    """The polynomial of an arithmetic term (Nat and Int both map into the integers:
    ``↑`` is the identity there); truncated subtraction, division and remainder that
    cannot be computed, and powers with an unknown exponent, are atoms."""
    if isinstance(t, Lit):
        return Poly.const(t.value)
    if isinstance(t, Free | Var):
        return Poly.atom(t)
    if not isinstance(t, App) or t.head not in ARITH_HEADS:
        raise KernelError("not an arithmetic term")
    h = t.head
    if h == "cast":
        return poly(t.args[0])
    if h == "neg":
        return Poly().add(poly(t.args[0]), -1)
    a, b = poly(t.args[0]), poly(t.args[1])
    ca, cb = a.constant(), b.constant()
    if h in ("/", "%", "-", "^") and ca is not None and cb is not None:
        return Poly.const(_arith(h, int(ca), int(cb), t.sort))
    if h == "+":
        return a.add(b)
    if h == "-" and t.sort == "Int":
        return a.add(b, -1)
    if h == "*":
        return a.mul(b)
    if h == "^":
        rest = Poly(b)
        k = rest.pop((), Fraction(0))
        if k < 0 or k > MAX_EXPONENT:
            raise KernelError("exponent too large")
        out = Poly.const(1)
        for _ in range(int(k)):
            out = out.mul(a)
        if rest:  # x ^ (e + k) = x ^ e * x ^ k; x ^ e is an atom
            base_exp = App("^", (t.args[0], _from_poly(rest)), t.sort)
            out = out.mul(Poly.atom(base_exp))
        return out
    return Poly.atom(t)  # truncated -, / and % with an unknown side


def _from_poly(p: Poly) -> Term:
    """A canonical Nat term for an exponent polynomial (the key of an ``x ^ e`` atom)."""
    out: Term | None = None
    for m, c in sorted(p.items(), key=repr):
        term: Term = Lit(int(c), "Nat")
        for x, k in m:
            for _ in range(k):
                term = App("*", (term, x), "Nat")
        out = term if out is None else App("+", (out, term), "Nat")
    return out if out is not None else Lit(0, "Nat")


def atoms(p: Poly) -> list[Term]:
    """The atoms of a polynomial, in first-occurrence order."""
    seen: dict[Term, None] = {}
    for m in p:
        for x, _ in m:
            seen.setdefault(x, None)
    return list(seen)


# ---------------------------------------------------------------- evaluation (decide)


def evaluate(t: Term) -> bool:
    """The truth of a closed quantifier-free proposition (Lean's semantics)."""
    if isinstance(t, App):
        h = t.head
        if h in ("True", "False"):
            return h == "True"
        if h in CONNS:
            a, b = evaluate(t.args[0]), evaluate(t.args[1])
            return {"∧": a and b, "∨": a or b, "→": (not a) or b, "↔": a == b}[h]
        if h in RELS:
            x, y = (poly(s).constant() for s in t.args)
            if x is None or y is None:
                raise KernelError("decide: the proposition is not closed")
            if h == "=":
                return x == y
            if h == "<":
                return x < y
            if h == "≤":
                return x <= y
            return int(y) - int(x) * _ediv(int(y), int(x)) == 0
    raise KernelError("decide: the proposition is not closed and quantifier-free")


# ---------------------------------------------------------------- facts for arith certificates


@dataclass(frozen=True)
class Lin:
    """``poly ≥ 0`` (``eq`` false) or ``poly = 0`` (``eq`` true)."""

    poly: Poly
    eq: bool

    def __hash__(self) -> int:
        return hash((frozenset(self.poly.items()), self.eq))


@dataclass(frozen=True, slots=True)
class PropLit:
    """A propositional atom (a Prop variable, a quantified formula, ...) or its negation."""

    atom: Term
    positive: bool


@dataclass(frozen=True, slots=True)
class Disj:
    """A disjunction of conjunctions of facts (negation normal form)."""

    cases: tuple[tuple[Fact, ...], ...]


Fact = Lin | PropLit | Disj | bool


def _tighten(f: Lin) -> Lin | bool:
    c = f.poly.get((), Fraction(0))
    rest = [v for m, v in f.poly.items() if m != ()]
    if not rest:
        return c == 0 if f.eq else c >= 0
    if any(v.denominator != 1 for v in f.poly.values()):
        return f
    g = 0
    for v in rest:
        g = gcd(g, int(v))
    if g <= 1:
        return f
    if f.eq and c.numerator % g:
        return False  # g divides every other coefficient, not the constant
    out = Poly({m: v / g for m, v in f.poly.items() if m != ()})
    k = Fraction(int(c) // g) if not f.eq else c / g
    return Lin(out.add(Poly.const(k)), f.eq)


def _cmp(a: Term, b: Term, strict: bool) -> Lin:
    """``a < b`` (strict) or ``a ≤ b`` as ``b - a (- 1) ≥ 0`` over the integers."""
    return Lin(poly(b).add(poly(a), -1).add(Poly.const(-1 if strict else 0)), False)


def nnf(t: Term, positive: bool, seq: Sequent) -> Fact:
    """A proposition (or its negation) in negation normal form over linear facts."""
    if isinstance(t, App):
        h, args = t.head, t.args
        if h in ("True", "False"):
            return (h == "True") == positive
        if h == "∧" or h == "∨":
            a, b = nnf(args[0], positive, seq), nnf(args[1], positive, seq)
            return _disj((a, b)) if (h == "∧") == positive else _disj((a,), (b,))
        if h == "→":
            if positive:
                return _disj((nnf(args[0], False, seq),), (nnf(args[1], True, seq),))
            return _disj((nnf(args[0], True, seq), nnf(args[1], False, seq)))
        if h == "↔":
            p, q = nnf(args[0], True, seq), nnf(args[1], True, seq)
            np, nq = nnf(args[0], False, seq), nnf(args[1], False, seq)
            return _disj((p, q), (np, nq)) if positive else _disj((p, nq), (np, q))
        if h in RELS:
            a, b = args
            if h == "=":
                if positive:
                    return Lin(poly(a).add(poly(b), -1), True)
                return Disj(((_cmp(a, b, True),), (_cmp(b, a, True),)))
            if h == "<":
                return _cmp(a, b, True) if positive else _cmp(b, a, False)
            if h == "≤":
                return _cmp(a, b, False) if positive else _cmp(b, a, True)
            k = poly(a).constant()
            if k is not None:  # k ∣ e ↔ e % k = 0 (also for k = 0: e % 0 = e)
                r = poly(App("%", (b, a), sort_of(seq, a)))
                return Lin(r, True) if positive else Lin(r.add(Poly.const(-1)), False)
    return PropLit(t, positive)


def _disj(*cases: tuple[Fact, ...]) -> Fact:
    """A disjunction of conjunctions, with constant cases and literals folded away."""
    out = []
    for case in cases:
        kept = tuple(f for f in case if f is not True)
        if any(f is False for f in kept):
            continue
        if not kept:
            return True
        out.append(kept)
    if not out:
        return False
    return Disj(tuple(out))


def _neg(t: Term) -> Term:
    return App("→", (t, FALSE), "Prop")


class FactSet:
    """The facts of one branch of an ``arith`` refutation; adding a fact flattens
    conjunctions, tightens integer facts and adds the defining facts of new atoms
    (Nat atoms are ≥ 0; ``/``, ``%`` by a numeral and truncated ``-`` are pinned down)."""

    def __init__(self, nat_atoms: frozenset[Term]) -> None:
        self.facts: list[Fact] = []
        self.nat = set(nat_atoms)
        self.seen: set[Term] = set()

    def copy(self) -> FactSet:
        """An independent copy (for a case split)."""
        out = FactSet(frozenset(self.nat))
        out.facts, out.seen = list(self.facts), set(self.seen)
        return out

    def add(self, f: Fact) -> None:
        """Add a fact (and what it implies about its atoms)."""
        if isinstance(f, Disj) and len(f.cases) == 1:
            for g in f.cases[0]:
                self.add(g)
            return
        if isinstance(f, Lin):
            f = _tighten(f)
        self.facts.append(f)
        if isinstance(f, Lin):
            for x in atoms(f.poly):
                self._atom(x)
        elif isinstance(f, Disj):
            for case in f.cases:
                for g in case:
                    if isinstance(g, Lin):
                        for x in atoms(g.poly):
                            self._atom(x)

    def _atom(self, x: Term) -> None:
        if x in self.seen:
            return
        self.seen.add(x)
        if isinstance(x, App) and x.head in ("/", "%", "-", "^") and x.sort == "Nat":
            self.nat.add(x)
        if x in self.nat:
            self.add(Lin(Poly.atom(x), False))
        if not isinstance(x, App) or x.head not in ("/", "%", "-"):
            return
        a, b = poly(x.args[0]), poly(x.args[1])
        if x.head == "-":  # Nat: (a ≥ b ∧ x = a - b) ∨ (a < b ∧ x = 0)
            d = a.add(b, -1)
            self.add(
                Disj(
                    (
                        (Lin(d, False), Lin(Poly.atom(x).add(d, -1), True)),
                        (Lin(Poly().add(d, -1).add(Poly.const(-1)), False), Lin(Poly.atom(x), True)),
                    )
                )
            )
            return
        k = b.constant()
        if k is None:
            return
        q = Poly.atom(App("/", x.args, x.sort))
        if k == 0:
            self.add(Lin(q, True))
            r = a
        else:  # a = k q + r with 0 ≤ r ≤ |k| - 1
            r = a.add(q, -k)
            self.add(Lin(r, False))
            self.add(Lin(Poly.const(abs(k) - 1).add(r, -1), False))
        if x.head == "%":
            self.add(Lin(Poly.atom(x).add(r, -1), True))


def nat_atoms(seq: Sequent) -> frozenset[Term]:
    """The context's Nat variables."""
    return frozenset(Free(e.uid) for e in seq.ctx if e.ty == "Nat")


def _refute(fs: FactSet, cert: Any) -> None:
    """Check a refutation certificate for the facts of one branch."""
    if not isinstance(cert, tuple) or not cert:
        raise KernelError("arith: malformed certificate")
    kind = cert[0]
    if kind == "false":
        if fs.facts[cert[1]] is not False:
            raise KernelError("arith: fact is not False")
        return
    if kind == "contra":
        a, b = fs.facts[cert[1]], fs.facts[cert[2]]
        if not (isinstance(a, PropLit) and isinstance(b, PropLit) and a.atom == b.atom and a.positive != b.positive):
            raise KernelError("arith: facts are not complementary")
        return
    if kind == "split":
        f = fs.facts[cert[1]]
        if not isinstance(f, Disj) or len(cert[2]) != len(f.cases):
            raise KernelError("arith: split on a fact that is not a disjunction")
        for case, sub in zip(f.cases, cert[2], strict=True):
            branch = fs.copy()
            branch.add(Disj((case,)))
            _refute(branch, sub)
        return
    if kind == "cut":  # over the integers: p ≤ c ∨ p ≥ c + 1
        p, c = cert[1], cert[2]
        if not isinstance(p, Poly) or not isinstance(c, int) or any(v.denominator != 1 for v in p.values()):
            raise KernelError("arith: malformed cut")
        lo, hi = fs.copy(), fs.copy()
        lo.add(Lin(Poly.const(c).add(p, -1), False))
        hi.add(Lin(p.add(Poly.const(-c - 1)), False))
        _refute(lo, cert[3])
        _refute(hi, cert[4])
        return
    if kind in ("prod", "square"):
        if kind == "square":
            p = cert[1]
            if not isinstance(p, Poly):
                raise KernelError("arith: malformed square")
            new = Lin(p.mul(p), False)
        else:
            a, b = fs.facts[cert[1]], fs.facts[cert[2]]
            if not (isinstance(a, Lin) and isinstance(b, Lin)):
                raise KernelError("arith: product of non-arithmetic facts")
            new = Lin(a.poly.mul(b.poly), a.eq or b.eq)
        branch = fs.copy()
        branch.add(new)
        _refute(branch, cert[-1])
        return
    if kind == "farkas":
        total = Poly()
        for i, c in cert[1]:
            f = fs.facts[i]
            c = Fraction(c)
            if not isinstance(f, Lin) or (c < 0 and not f.eq):
                raise KernelError("arith: bad Farkas coefficient")
            total = total.add(f.poly, c)
        v = total.constant()
        if v is None or v >= 0:
            raise KernelError("arith: the combination is not a negative constant")
        return
    raise KernelError(f"arith: unknown certificate step {kind!r}")


def refute(seq: Sequent, props: list[Term], cert: Any) -> None:
    """Check that the propositions (proved in ``seq``) are contradictory by ``cert``."""
    fs = FactSet(nat_atoms(seq))
    for p in props:
        fs.add(nnf(p, True, seq))
    try:
        _refute(fs, cert)
    except (IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise KernelError(f"arith: malformed certificate ({exc})") from exc


# ---------------------------------------------------------------- proofs


@dataclass(frozen=True)
class Proof:
    """A proof tree node: a rule name and its arguments (see ``check``)."""

    rule: str
    args: tuple[Any, ...] = ()


def infer(seq: Sequent, p: Proof, out: list[tuple[int, Sequent]]) -> Term:
    """The proposition a proof in synthesis position proves."""
    r, a = p.rule, p.args
    if r == "hyp":
        e = seq.lookup(a[0])
        if e is None or isinstance(e.ty, str):
            raise KernelError(f"hyp: no hypothesis {a[0]}")
        return e.ty
    if r == "annot":
        _expect_prop(seq, a[1])
        check(seq.to(a[1]), a[0], out)
        return a[1]
    if r == "app":
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "→"):
            raise KernelError("app: not an implication")
        check(seq.to(f.args[0]), a[1], out)
        return f.args[1]
    if r == "inst":
        f = infer(seq, a[0], out)
        if not (isinstance(f, Bind) and f.q == "∀"):
            raise KernelError("inst: not a ∀")
        if loose(a[1]) or sort_of(seq, a[1]) != f.sort:
            raise KernelError("inst: the value has the wrong sort")
        return instantiate(f.body, a[1])
    if r in ("and_l", "and_r", "iff_mp", "iff_mpr"):
        f = infer(seq, a[0], out)
        want = "∧" if r.startswith("and") else "↔"
        if not (isinstance(f, App) and f.head == want):
            raise KernelError(f"{r}: expected {want}")
        x, y = f.args
        if r == "and_l":
            return x
        if r == "and_r":
            return y
        return App("→", (x, y) if r == "iff_mp" else (y, x), "Prop")
    raise KernelError(f"rule {r!r} cannot infer")


def _open(seq: Sequent, uid: int, b: Bind) -> tuple[Sequent, Term]:
    s = seq.add(Entry(uid, b.sort))
    return s, instantiate(b.body, Free(uid))


def check(seq: Sequent, p: Proof, out: list[tuple[int, Sequent]]) -> None:
    """Check ``p`` proves ``seq``; holes append (goal id, sequent) obligations to ``out``."""
    if not isinstance(p, Proof):
        raise KernelError("not a proof")
    r, a, t = p.rule, p.args, seq.target
    if r == "hole":
        out.append((a[0], seq))
        return
    if r in ("hyp", "annot", "app", "inst", "and_l", "and_r", "iff_mp", "iff_mpr"):
        got = infer(seq, p, out)
        if not conv(got, t):
            raise KernelError(f"{r}: proves a different proposition")
        return
    if r == "intro":
        if isinstance(t, Bind) and t.q == "∀":
            s, body = _open(seq, a[0], t)
            check(s.to(body), a[1], out)
        elif isinstance(t, App) and t.head == "→":
            check(seq.add(Entry(a[0], t.args[0])).to(t.args[1]), a[1], out)
        else:
            raise KernelError("intro: nothing to introduce")
        return
    if r == "true_i":
        if t != TRUE:
            raise KernelError("true_i: target is not True")
        return
    if r in ("and_i", "iff_i"):
        want = "∧" if r == "and_i" else "↔"
        if not (isinstance(t, App) and t.head == want):
            raise KernelError(f"{r}: target is not {want}")
        x, y = t.args
        if want == "↔":
            x, y = App("→", (x, y), "Prop"), App("→", (y, x), "Prop")
        check(seq.to(x), a[0], out)
        check(seq.to(y), a[1], out)
        return
    if r in ("or_l", "or_r"):
        if not (isinstance(t, App) and t.head == "∨"):
            raise KernelError(f"{r}: target is not ∨")
        check(seq.to(t.args[0 if r == "or_l" else 1]), a[0], out)
        return
    if r == "ex_i":
        if not (isinstance(t, Bind) and t.q == "∃") or loose(a[0]) or sort_of(seq, a[0]) != t.sort:
            raise KernelError("ex_i: not an ∃ or a witness of the wrong sort")
        check(seq.to(instantiate(t.body, a[0])), a[1], out)
        return
    if r == "or_e":
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "∨"):
            raise KernelError("or_e: not a disjunction")
        check(seq.add(Entry(a[1], f.args[0])), a[2], out)
        check(seq.add(Entry(a[3], f.args[1])), a[4], out)
        return
    if r == "ex_e":
        f = infer(seq, a[0], out)
        if not (isinstance(f, Bind) and f.q == "∃"):
            raise KernelError("ex_e: not an ∃")
        s, body = _open(seq, a[1], f)
        check(s.add(Entry(a[2], body)), a[3], out)
        return
    if r == "dvd_i":  # a ∣ b from b = a * c (the definition of ∣ on Nat and Int)
        if not (isinstance(t, App) and t.head == "∣"):
            raise KernelError("dvd_i: target is not ∣")
        a_, b_ = t.args
        s_ = sort_of(seq, a_)
        if loose(a[0]) or sort_of(seq, a[0]) != s_:
            raise KernelError("dvd_i: witness of the wrong sort")
        check(seq.to(App("=", (b_, App("*", (a_, a[0]), s_)), "Prop")), a[1], out)
        return
    if r == "dvd_e":  # from a ∣ b: a new c with b = a * c
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "∣"):
            raise KernelError("dvd_e: not a divisibility")
        a_, b_ = f.args
        s_ = sort_of(seq, a_)
        s2 = seq.add(Entry(a[1], s_))
        eq = App("=", (b_, App("*", (a_, Free(a[1])), s_)), "Prop")
        check(s2.add(Entry(a[2], eq)), a[3], out)
        return
    if r == "false_e":
        if infer(seq, a[0], out) != FALSE:
            raise KernelError("false_e: not a proof of False")
        return
    if r == "have":
        _expect_prop(seq, a[1])
        check(seq.to(a[1]), a[2], out)
        check(seq.add(Entry(a[0], a[1])), a[3], out)
        return
    if r == "by_contra":
        check(seq.add(Entry(a[0], _neg(t))).to(FALSE), a[1], out)
        return
    if r == "em":
        _expect_prop(seq, a[0])
        check(seq.add(Entry(a[1], a[0])), a[2], out)
        check(seq.add(Entry(a[3], _neg(a[0]))), a[4], out)
        return
    if r == "nat_ind":
        x, z, k, ih, step = a
        e = seq.lookup(x)
        if e is None or e.ty != "Nat":
            raise KernelError("nat_ind: not a Nat variable")
        # hypotheses about x are left behind (weakening): revert them into the target first
        base = Sequent(
            tuple(h for h in seq.ctx if isinstance(h.ty, str) or x not in frees(h.ty)), t
        )
        motive = abstract(t, Free(x))
        check(base.to(instantiate(motive, Lit(0, "Nat"))), z, out)
        s = base.add(Entry(k, "Nat"))
        s = s.add(Entry(ih, instantiate(motive, Free(k))))
        check(s.to(instantiate(motive, App("+", (Free(k), Lit(1, "Nat")), "Nat"))), step, out)
        return
    if r == "subst":  # eq : x = e (or e = x), x a variable not in e: x := e everywhere
        f = infer(seq, a[0], out)
        x = a[1]
        if not (isinstance(f, App) and f.head == "="):
            raise KernelError("subst: not an equation")
        lhs, rhs = f.args
        e = rhs if lhs == Free(x) else lhs if rhs == Free(x) else None
        entry = seq.lookup(x)
        if e is None or entry is None or not isinstance(entry.ty, str) or x in frees(e):
            raise KernelError("subst: not an equation of a variable")
        ctx = tuple(
            Entry(h.uid, h.ty if isinstance(h.ty, str) else replace_free(h.ty, x, e))
            for h in seq.ctx
            if h.uid != x
        )
        check(Sequent(ctx, replace_free(t, x, e)), a[2], out)
        return
    if r == "rw":  # eq : l = r (or l ↔ r); motive[l] is the target, prove motive[r]
        f = infer(seq, a[0], out)
        motive, rev = a[1], a[2]
        if not (isinstance(f, App) and f.head in ("=", "↔")):
            raise KernelError("rw: not an equation or iff")
        lhs, rhs = f.args[::-1] if rev else f.args
        hole = "Prop" if f.head == "↔" else sort_of(seq, lhs)
        if sort_of(seq, motive, (hole,)) != "Prop":
            raise KernelError("rw: the motive is not a proposition")
        if not conv(instantiate(motive, lhs), t):
            raise KernelError("rw: the motive does not give the target")
        check(seq.to(instantiate(motive, rhs)), a[3], out)
        return
    if r == "congr_bind":  # (Q x, A x) ↔ (Q x, B x) from ∀ x, A x ↔ B x
        if not (isinstance(t, App) and t.head == "↔"):
            raise KernelError("congr_bind: target is not ↔")
        x, y = t.args
        if not (isinstance(x, Bind) and isinstance(y, Bind) and (x.q, x.sort) == (y.q, y.sort)):
            raise KernelError("congr_bind: binders differ")
        s = seq.add(Entry(a[0], x.sort))
        body = App("↔", (instantiate(x.body, Free(a[0])), instantiate(y.body, Free(a[0]))), "Prop")
        check(s.to(body), a[1], out)
        return
    if r in ("refl", "ring"):
        if not (isinstance(t, App) and t.head in ("=", "↔", "≤")):
            raise KernelError(f"{r}: target is not =, ↔ or ≤")
        x, y = t.args
        if conv(x, y) if t.head == "↔" else x == y:
            return
        if t.head == "↔" or poly(x) != poly(y):
            raise KernelError(f"{r}: the sides differ")
        return
    if r == "decide":
        if frees(t) or loose(t) or not evaluate(t):
            raise KernelError("decide: the proposition is not closed or is false")
        return
    if r == "arith":  # facts proved by a[0], refuted by certificate a[1]; target False
        if t != FALSE:
            raise KernelError("arith: the target must be False")
        props = [infer(seq, q, out) for q in a[0]]
        refute(seq, props, a[1])
        return
    if r == "sorry":
        out.append((-1, seq))
        return
    raise KernelError(f"unknown rule {r!r}")
