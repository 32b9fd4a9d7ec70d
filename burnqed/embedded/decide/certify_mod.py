"""Certificates for remainders of products by a numeral (issue 37): ``x * y % m =
(x % m) * (y % m) % m``, ``x ^ 2 % m``, remainders pinned by a hypothesis ``x % m = c``.

The certificate multiplies the definitions ``x % m = x - m * (x / m)`` the kernel's facts
hold by atoms (its ``prod`` rule, on both sides of a ``cut`` for an ℤ atom with no ``≥ 0``
fact), then cuts on the quotient ``z`` with ``u % m - v % m = m * z`` and leaves each branch to
the linear search of decide/certify.py. Untrusted, like every certificate: the kernel re-checks it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify import Budget, _cut_sides, _search, internal_uid

__all__ = ["prove_mod_product"]


def _mod_definitions(fs: k.FactSet) -> dict[k.Term, tuple[k.Term, int]]:
    """For each atom ``x`` with an atom ``x % m`` (``m`` a nonzero numeral) among the facts:
    ``x ↦ (x % m, index of the fact x % m = x - m * (x / m))``."""
    out: dict[k.Term, tuple[k.Term, int]] = {}
    for x in fs.seen:
        if not (isinstance(x, k.App) and x.head == "%"):
            continue
        m = k.poly(x.args[1]).constant()
        u = k.poly(x.args[0])
        if not m or len(u) != 1 or next(iter(u.values())) != 1:
            continue
        (mono,) = u.keys()
        if len(mono) != 1 or mono[0][1] != 1:
            continue
        base = mono[0][0]
        want = k.Poly.atom(x).add(u, -1).add(k.Poly.atom(k.App("/", x.args, x.sort)), m)
        neg = k.Poly().add(want, -1)
        for i, f in enumerate(fs.facts):
            if isinstance(f, k.Lin) and f.eq and f.poly in (want, neg):
                out[base] = (x, i)
                break
    return out


def _mod_products(fs: k.FactSet) -> list[tuple[int, k.Term]]:
    """The products that turn a degree-2 monomial ``x * y`` into ``(x % m) * (y % m)`` plus a
    multiple of ``m`` (``x = m q + x % m``, times ``y``; then ``y = m q' + y % m`` times
    ``x % m``): what ``Nat.mul_mod`` / ``Int.mul_emod`` / ``Nat.pow_mod`` instances need."""
    defs = _mod_definitions(fs)
    monos: set[k.Monomial] = set()
    for f in fs.facts:
        for g in f.cases if isinstance(f, k.Disj) else ((f,),):
            for h in g if isinstance(g, tuple) else (g,):
                if isinstance(h, k.Lin):
                    monos.update(m for m in h.poly if sum(e for _, e in m) == 2)
    todo: list[tuple[int, k.Term]] = []
    for mono in sorted(monos, key=repr):
        xs = [a for a, e in mono for _ in range(e)]
        x, y = xs
        for first, second in ((x, y), (y, x)):
            if first in defs and second in defs:
                mx, ex = defs[first]
                _, ey = defs[second]
                for pair in ((ex, second), (ey, mx)):
                    if pair not in todo:
                        todo.append(pair)
                break
    # a remainder pinned to a value (h : x % m = c) times itself: (x % m) ^ 2 = c * (x % m)
    for x, (mx, _) in defs.items():
        for i, f in enumerate(fs.facts):
            if isinstance(f, k.Lin) and f.eq and set(f.poly) <= {(), ((mx, 1),)} and ((mx, 1),) in f.poly:
                if (i, mx) not in todo:
                    todo.append((i, mx))
                break
    return todo[:8]


def _quotient(fs: k.FactSet, goal: k.Term) -> k.Poly | None:
    """For a goal ``u % m = v % m`` or ``u % m = d`` (``m``, ``d`` numerals): the integer
    ``z`` with ``u % m - (v % m or d) = m * z``, in the monomials the products of
    ``_mod_products`` make derivable: an atom ``x`` with a remainder among the facts is
    ``m * (x / m) + x % m``, ``x * y`` is ``m * ((x / m) * y + (x % m) * (y / m)) + (x % m) * (y % m)``
    and a remainder pinned by a fact ``x % m = c`` is ``c`` in the rest (None when the rests
    do not differ by a multiple of ``m``)."""
    if not (isinstance(goal, k.App) and goal.head == "=" and isinstance(goal.args[0], k.App) and goal.args[0].head == "%"):
        return None
    lhs, rhs = goal.args
    m = k.poly(lhs.args[1]).constant()
    if not m or m.denominator != 1 or k.poly(lhs) != k.Poly.atom(lhs):
        return None
    m = int(m)
    defs = {x: r for x, (r, _) in _mod_definitions(fs).items() if k.poly(r.args[1]).constant() == m}  # type: ignore[union-attr]
    pinned: dict[k.Term, Fraction] = {}
    for f in fs.facts:
        if isinstance(f, k.Lin) and f.eq and len([mo for mo in f.poly if mo != ()]) == 1:
            ((mono, c),) = [(mo, c) for mo, c in f.poly.items() if mo != ()]
            if len(mono) == 1 and mono[0][1] == 1 and c == 1:
                pinned[mono[0][0]] = -f.poly.get((), Fraction(0))

    def quot(x: k.Term) -> k.Poly:
        return k.Poly.atom(k.App("/", defs[x].args, defs[x].sort))  # type: ignore[union-attr]

    def rem(x: k.Term) -> k.Poly:
        r = defs[x]
        return k.Poly.const(pinned[r]) if r in pinned else k.Poly.atom(r)

    def split(p: k.Poly) -> tuple[k.Poly, k.Poly] | None:  # p = m * w + rest
        w, rest = k.Poly(), k.Poly()
        for mono, c in p.items():
            xs = [a for a, e in mono for _ in range(e)]
            if not xs or not all(x in defs for x in xs):
                rest = rest.add(k.Poly({mono: c}))
                continue
            if len(xs) == 1:
                w, rest = w.add(quot(xs[0]), c), rest.add(rem(xs[0]), c)
            elif len(xs) == 2:
                x, y = xs
                # pinned values only where a product makes them derivable: (x % m) ^ 2
                w = w.add(quot(x).mul(k.Poly.atom(y)).add(k.Poly.atom(defs[x]).mul(quot(y))), c)
                sq = rem(x).mul(rem(y)) if x == y else k.Poly.atom(defs[x]).mul(k.Poly.atom(defs[y]))
                rest = rest.add(sq, c)
            else:
                return None
        return w, rest

    left = split(k.poly(lhs.args[0]))
    if isinstance(rhs, k.App) and rhs.head == "%" and k.poly(rhs.args[1]).constant() == m and k.poly(rhs) == k.Poly.atom(rhs):
        right = split(k.poly(rhs.args[0]))
        q_right = k.Poly.atom(k.App("/", rhs.args, rhs.sort))
    elif k.poly(rhs).constant() is not None:
        right, q_right = (k.Poly(), k.poly(rhs)), None
    else:
        return None
    if left is None or right is None:
        return None
    diff = left[1].add(right[1], -1)
    if any(v.denominator != 1 or int(v) % m for v in diff.values()):
        return None
    z = left[0].add(right[0], -1).add(diff, Fraction(1, m))
    z = z.add(k.Poly.atom(k.App("/", lhs.args, lhs.sort)), -1)
    if q_right is not None:
        z = z.add(q_right)
    return z


def _three_ways(fs: k.FactSet, z: k.Poly | None, budget: Budget) -> tuple[Any, ...] | None:
    """The linear search, after the cuts ``z ≤ -1 ∨ z ≥ 0`` and ``z ≤ 0 ∨ z ≥ 1`` when a
    quotient ``z`` is known (the remainders differ by ``m * z`` and lie in ``[0, m)``)."""
    if z is None or any(v.denominator != 1 for v in z.values()):
        return _search(fs, frozenset(), budget)
    below, rest = _cut_sides(fs, z, -1)
    a = _search(below, frozenset(), budget)
    if a is None:
        return None
    zero, above = _cut_sides(rest, z, 0)
    b = _search(zero, frozenset(), budget)
    c = None if b is None else _search(above, frozenset(), budget)
    return None if c is None else ("cut", z, -1, a, ("cut", z, 0, b, c))


def _with_products(
    fs: k.FactSet, todo: list[tuple[int, k.Term]], budget: Budget, z: k.Poly | None = None
) -> tuple[Any, ...] | None:
    """Multiply each definition equality by its multiplier atom (by the atom's ``≥ 0`` fact,
    or on both sides of a cut at 0 where there is none), then search the linear rest."""
    if not todo:
        return _three_ways(fs, z, budget)
    (e, y), rest = todo[0], todo[1:]
    atom = k.Poly.atom(y)
    neg = k.Poly().add(atom, -1)

    def linear_in_atom(f: object) -> bool:  # ±y + c: y ≥ 0, or a side of an earlier cut on y
        if not isinstance(f, k.Lin):
            return False
        rest = k.Poly({m: c for m, c in f.poly.items() if m != ()})
        return rest in (atom, neg)

    nonneg = next((i for i, f in enumerate(fs.facts) if linear_in_atom(f)), None)

    def times(side: k.FactSet, i: int) -> tuple[Any, ...] | None:
        a, b = side.facts[e], side.facts[i]
        if not (isinstance(a, k.Lin) and isinstance(b, k.Lin)):
            return None
        branch = side.copy()
        branch.add(k.Lin(a.poly.mul(b.poly), a.eq or b.eq))
        sub = _with_products(branch, rest, budget, z)
        return None if sub is None else ("prod", e, i, sub)

    if nonneg is not None:
        return times(fs, nonneg)
    lo, hi = _cut_sides(fs, atom, 0)
    a = times(lo, len(fs.facts))
    b = None if a is None else times(hi, len(fs.facts))
    return None if b is None else ("cut", atom, 0, a, b)


def prove_mod_product(
    seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]], goal: k.Term, *, budget: Budget | None = None
) -> k.Proof | None:
    """``goal`` by contradiction where the remainders of products by a numeral are involved
    (``x * y % m = (x % m) * (y % m) % m``): the certificate multiplies the definitions of
    the remainders by atoms (``_mod_products``) before the linear search. None if not found."""
    # each leaf of the product cuts runs its own linear search: more cuts than one search
    given = budget or Budget()
    budget = given.scaled(4)
    u = internal_uid()
    neg = k.App("→", (goal, k.FALSE), "Prop")
    ctx = seq.to(goal)
    fs = k.FactSet(ctx)
    try:
        for p in [*(t for _, t in premises), neg]:
            fs.add(k.nnf(p, True, ctx))
        todo = _mod_products(fs)
        z = _quotient(fs, goal)
        cert = None
        # the quotient's cuts first: with the right z each leaf is one Farkas combination
        if z is not None:
            cert = _with_products(fs, todo, given.scaled(2), z)
        if cert is None and todo:
            cert = _with_products(fs, todo, budget)
    except k.KernelError:
        return None
    if cert is None:
        return None
    facts = (*(pr for pr, _ in premises), k.Hyp(u))
    return k.ByContra(u, k.Arith(facts, cert))
