"""Certificates for the kernel's ``arith`` rule, found with z3 and checked by the kernel.

Nothing here is trusted. ``refutation`` searches a refutation tree for a set of kernel
facts exactly as the kernel's ``FactSet`` reads them: it splits disjunctions, closes
branches on complementary literals, asks z3 (linear real arithmetic, exact rationals) for
Farkas multipliers, and where the rational relaxation is satisfiable but the integers are
not, cuts on a fractional monomial (branch and bound). ``nonlinear`` adds products of
pairs of facts and squares of atoms first, as Mathlib's nlinarith does. ``prove_fact``
wraps it as a kernel proof (``by_contra`` + ``arith``); ``lemma_proof`` proves the closed
statement of a built-in lemma.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from functools import lru_cache
from typing import Any

from burnqed.lean import kernel as k
from burnqed.lean.embedded.smt import _lib

__all__ = ["Budget", "lemma_proof", "prove_fact", "refutation", "internal_uid"]

_internal = itertools.count(1)


def internal_uid() -> int:
    """A context id no goal uses (negative: goals' ids are positive)."""
    return -next(_internal)


class Budget:
    """Bounds of one certificate search: nodes, integer cuts and a deadline."""

    def __init__(self, nodes: int = 256, cuts: int = 24, deadline: float | None = None, z3_ms: int = 2000) -> None:
        self.nodes = nodes
        self.cuts = cuts
        self.deadline = deadline
        self.z3_ms = z3_ms

    def tick(self) -> bool:
        """Spend one node; False when out of nodes or time."""
        self.nodes -= 1
        return self.nodes >= 0 and (self.deadline is None or time.monotonic() < self.deadline)

    def ms(self) -> int:
        """Time bound of the next z3 call."""
        if self.deadline is None:
            return self.z3_ms
        return max(1, min(self.z3_ms, int((self.deadline - time.monotonic()) * 1000)))


def _q(z3: Any, v: Fraction) -> Any:
    return z3.Q(v.numerator, v.denominator)


def _lins(fs: k.FactSet) -> list[tuple[int, k.Lin]]:
    return [(i, f) for i, f in enumerate(fs.facts) if isinstance(f, k.Lin)]


_FM_ROWS = 64


def _int_row(poly: k.Poly, sign: int) -> dict[Any, int]:
    scale = math.lcm(*(c.denominator for c in poly.values())) if poly else 1
    return {m: sign * int(c * scale) for m, c in poly.items()}


def _fourier_motzkin(lins: list[tuple[int, k.Lin]]) -> tuple[Any, ...] | None | bool:
    """Farkas multipliers by Fourier–Motzkin elimination over the integers (small systems);
    False when the system is too large for it (ask z3), None when there are none."""
    rows: list[tuple[dict[Any, int], dict[int, int]]] = []
    for i, f in lins:
        scale = math.lcm(*(c.denominator for c in f.poly.values())) if f.poly else 1
        rows.append((_int_row(f.poly, 1), {i: scale}))
        if f.eq:
            rows.append((_int_row(f.poly, -1), {i: -scale}))
    while True:
        for poly, combo in rows:
            if all(m == () for m in poly) and poly.get((), 0) < 0:
                return ("farkas", tuple(sorted((i, Fraction(c)) for i, c in combo.items() if c)))
        monos = {m for poly, _ in rows for m in poly if m != ()}
        if not monos:
            return None

        def cost(m: Any) -> int:
            pos = sum(1 for poly, _ in rows if poly.get(m, 0) > 0)
            return pos * sum(1 for poly, _ in rows if poly.get(m, 0) < 0) - pos

        m = min(monos, key=cost)
        keep = [r for r in rows if not r[0].get(m)]
        pos = [r for r in rows if r[0].get(m, 0) > 0]
        neg = [r for r in rows if r[0].get(m, 0) < 0]
        if len(keep) + len(pos) * len(neg) > _FM_ROWS:
            return False
        for pp, pc in pos:
            for np_, nc in neg:
                a, b = -np_[m], pp[m]  # a·p + b·n cancels m
                g = math.gcd(a, b)
                a, b = a // g, b // g
                poly = {x: a * pp.get(x, 0) + b * np_.get(x, 0) for x in pp.keys() | np_.keys()}
                poly = {x: c for x, c in poly.items() if c}
                combo = {i: a * pc.get(i, 0) + b * nc.get(i, 0) for i in pc.keys() | nc.keys()}
                h = math.gcd(*poly.values(), *combo.values())
                if h > 1:  # both scale together, so dividing keeps the row exact
                    poly = {x: c // h for x, c in poly.items()}
                    combo = {i: c // h for i, c in combo.items()}
                keep.append((poly, combo))
        rows = keep


def _farkas(fs: k.FactSet, budget: Budget) -> tuple[Any, ...] | None:
    lins = _lins(fs)
    if not lins:
        return None
    quick = _fourier_motzkin(lins)
    if quick is not False:
        return quick  # type: ignore[return-value]
    z3 = _lib()
    s = z3.SolverFor("QF_LRA")
    s.set("timeout", budget.ms())
    lam = {i: z3.Real(f"l{i}") for i, _ in lins}
    monos: dict[k.Monomial, list[Any]] = {}
    const = []
    for i, f in lins:
        if not f.eq:
            s.add(lam[i] >= 0)
        for m, c in f.poly.items():
            if m == ():
                const.append(lam[i] * _q(z3, c))
            else:
                monos.setdefault(m, []).append(lam[i] * _q(z3, c))
    for terms in monos.values():
        s.add(z3.Sum(terms) == 0)
    if not const:
        return None
    s.add(z3.Sum(const) <= -1)
    if s.check() != z3.sat:
        return None
    model = s.model()
    out = []
    for i, _ in lins:
        v = model.eval(lam[i], model_completion=True).as_fraction()
        if v:
            out.append((i, Fraction(v)))
    return ("farkas", tuple(out))


def _relaxation(fs: k.FactSet, budget: Budget) -> dict[k.Monomial, Fraction] | None:
    """Values of the monomials in a model of the rational relaxation (None: infeasible)."""
    z3 = _lib()
    s = z3.SolverFor("QF_LRA")
    s.set("timeout", budget.ms())
    var: dict[k.Monomial, Any] = {}
    for _, f in _lins(fs):
        terms = []
        for m, c in f.poly.items():
            if m == ():
                terms.append(_q(z3, c))
            else:
                if m not in var:
                    var[m] = z3.Real(f"m{len(var)}")
                terms.append(var[m] * _q(z3, c))
        total = z3.Sum(terms) if terms else z3.RealVal(0)
        s.add(total == 0 if f.eq else total >= 0)
    if s.check() != z3.sat:
        return None
    model = s.model()
    return {m: Fraction(model.eval(x, model_completion=True).as_fraction()) for m, x in var.items()}


def _eliminated(fs: k.FactSet) -> list[k.Poly]:
    """Equalities after eliminating monomials with a unit coefficient (Gauss over the
    integers): what is left carries the divisibility the relaxation ignores."""
    work = [f.poly for _, f in _lins(fs) if f.eq]
    done: list[k.Poly] = []
    while work:
        e = work.pop()
        others = work + done
        unit = next(
            (m for m, c in e.items() if m != () and abs(c) == 1 and any(m in w for w in others)),
            None,
        )
        if unit is None:
            done.append(e)
            continue
        work = [w.add(e, -w[unit] / e[unit]) if unit in w else w for w in work]
        done = [w.add(e, -w[unit] / e[unit]) if unit in w else w for w in done]
    return done


def _cuts(fs: k.FactSet, values: dict[k.Monomial, Fraction]) -> list[tuple[k.Poly, int]]:
    """Integer cuts ``p ≤ c ∨ p ≥ c + 1`` that the relaxation's solution violates: scaled
    parts of eliminated equalities first, then single monomials."""
    out: list[tuple[k.Poly, int]] = []

    def value(p: k.Poly) -> Fraction:
        return sum((c * values.get(m, Fraction(0)) for m, c in p.items()), Fraction(0))

    for e in _eliminated(fs):
        for g in sorted({abs(int(c)) for m, c in e.items() if m != () and c.denominator == 1 and abs(c) > 1}):
            part = k.Poly({m: c / g for m, c in e.items() if m != () and c.denominator == 1 and int(c) % g == 0})
            v = value(part)
            if part and v.denominator != 1:
                out.append((part, math.floor(v)))
    for m, v in values.items():
        if v.denominator != 1:
            out.append((k.Poly({m: Fraction(1)}), math.floor(v)))
    return out


def _search(fs: k.FactSet, split: frozenset[int], budget: Budget) -> tuple[Any, ...] | None:
    if not budget.tick():
        return None
    lits: dict[tuple[k.Term, bool], int] = {}
    for i, f in enumerate(fs.facts):
        if f is False:
            return ("false", i)
        if isinstance(f, k.PropLit):
            other = lits.get((f.atom, not f.positive))
            if other is not None:
                return ("contra", other, i)
            lits[(f.atom, f.positive)] = i
    got = _farkas(fs, budget)
    if got is not None:
        return got
    disj = [i for i, f in enumerate(fs.facts) if isinstance(f, k.Disj) and i not in split]
    if disj:
        # a disjunction with the fewest cases first keeps the tree small
        i = min(disj, key=lambda j: len(fs.facts[j].cases))  # type: ignore[union-attr]
        subs = []
        for case in fs.facts[i].cases:  # type: ignore[union-attr]
            branch = fs.copy()
            branch.add(k.Disj((case,)))
            sub = _search(branch, split | {i}, budget)
            if sub is None:
                return None
            subs.append(sub)
        return ("split", i, tuple(subs))
    if budget.cuts <= 0:
        return None
    values = _relaxation(fs, budget)
    if values is None:
        return None
    for p, c in _cuts(fs, values)[:3]:
        if budget.cuts <= 0:
            return None
        budget.cuts -= 1
        lo, hi = fs.copy(), fs.copy()
        lo.add(k.Lin(k.Poly.const(c).add(p, -1), False))
        hi.add(k.Lin(p.add(k.Poly.const(-c - 1)), False))
        a = _search(lo, split, budget)
        if a is None:
            continue
        b = _search(hi, split, budget)
        if b is not None:
            return ("cut", p, c, a, b)
    return None


def _square_bases(t: k.Term, out: dict[k.Term, None]) -> None:
    """Bases of even powers and self-products in ``t`` (Mathlib's nlinarith squares them)."""
    if isinstance(t, k.App):
        if t.head == "^" and isinstance(t.args[1], k.Lit) and t.args[1].value % 2 == 0:
            out.setdefault(t.args[0], None)
        if t.head == "*" and t.args[0] == t.args[1]:
            out.setdefault(t.args[0], None)
        for a in t.args:
            _square_bases(a, out)
    elif isinstance(t, k.Bind):
        return


def _completed_squares(p: k.Poly) -> list[k.Poly]:
    """For each atom x with an x² term: the linear form whose square completes it
    (x + b/2a + Σ c_y/2a · y from the x and x·y terms)."""
    out: list[k.Poly] = []
    for x in k.atoms(p):
        a = p.get(((x, 2),))
        if not a:
            continue
        form = k.Poly.atom(x)
        lin = p.get(((x, 1),))
        if lin:
            form = form.add(k.Poly.const(lin / (2 * a)))
        for m, c in p.items():
            if len(m) == 2 and all(e == 1 for _, e in m) and any(t == x for t, _ in m):
                other = next(t for t, _ in m if t != x)
                form = form.add(k.Poly.atom(other), c / (2 * a))
        out.append(form)
    return out


def _square_candidates(
    fs: k.FactSet, props: list[k.Term], extra: tuple[k.Poly, ...]
) -> list[k.Poly]:
    bases: dict[k.Term, None] = {}
    for p in props:
        _square_bases(p, bases)
    out: list[k.Poly] = list(extra)
    for b in bases:
        try:
            out.append(k.poly(b))
        except k.KernelError:
            continue
    for f in fs.facts:
        if isinstance(f, k.Lin):
            out.extend(_completed_squares(f.poly))
            for x in k.atoms(f.poly):
                out.append(k.Poly.atom(x))
    uniq: list[k.Poly] = []
    for p in out:
        if p not in uniq:
            uniq.append(p)
    return uniq


def refutation(
    seq: k.Sequent,
    props: list[k.Term],
    *,
    nonlinear: bool = False,
    squares: tuple[k.Poly, ...] = (),
    budget: Budget | None = None,
) -> tuple[Any, ...] | None:
    """A certificate that ``props`` (true in ``seq``'s context) are contradictory, or None."""
    budget = budget or Budget()
    fs = k.FactSet(k.nat_atoms(seq))
    try:
        for p in props:
            fs.add(k.nnf(p, True, seq))
        if not nonlinear:
            return _search(fs, frozenset(), budget)
        wrappers: list[tuple[Any, ...]] = []
        base = [i for i, f in _lins(fs)]
        for p in _square_candidates(fs, props, squares)[:8]:
            wrappers.append(("square", p))
            fs.add(k.Lin(p.mul(p), False))
        for i, j in itertools.combinations_with_replacement(base[:8], 2):
            wrappers.append(("prod", i, j))
            a, b = fs.facts[i], fs.facts[j]
            if not (isinstance(a, k.Lin) and isinstance(b, k.Lin)):
                continue
            fs.add(k.Lin(a.poly.mul(b.poly), a.eq or b.eq))
        cert = _search(fs, frozenset(), budget)
        if cert is None:
            return None
        for w in reversed(wrappers):
            cert = (*w, cert)
        return cert
    except k.KernelError:
        return None


def prove_fact(
    seq: k.Sequent,
    premises: list[tuple[k.Proof, k.Term]],
    goal: k.Term,
    *,
    nonlinear: bool = False,
    squares: tuple[k.Poly, ...] = (),
    budget: Budget | None = None,
) -> k.Proof | None:
    """A kernel proof of ``goal`` in ``seq``'s context from the premises, by contradiction
    and an arithmetic certificate (None when none is found)."""
    u = internal_uid()
    neg = k.App("→", (goal, k.FALSE), "Prop")
    ctx = seq.to(goal)
    cert = refutation(
        ctx, [p for _, p in premises] + [neg], nonlinear=nonlinear, squares=squares, budget=budget
    )
    if cert is None:
        return None
    facts = (*(pr for pr, _ in premises), k.Proof("hyp", (u,)))
    return k.Proof("by_contra", (u, k.Proof("arith", (facts, cert))))


def _hyp_uid(p: k.Proof) -> list[int]:
    return [p.args[0]] if p.rule == "hyp" else []


def _dvd_proof(seq: k.Sequent, hyps: list[int], witnesses: tuple[k.Term, ...] = ()) -> k.Proof | None:
    """Divisibility by its definition: unfold ``a ∣ b`` hypotheses into ``b = a * c``,
    substitute, and find a witness for the target among products of the new variables."""
    for i, h in enumerate(hyps):
        e = seq.lookup(h)
        if e is not None and isinstance(e.ty, k.App) and e.ty.head == "∣":
            c, eq = internal_uid(), internal_uid()
            a, b = e.ty.args
            srt = k.sort_of(seq, a)
            inner = seq.add(k.Entry(c, srt)).add(
                k.Entry(eq, k.App("=", (b, k.App("*", (a, k.Free(c)), srt)), "Prop"))
            )
            rest = hyps[:i] + hyps[i + 1 :]
            if isinstance(b, k.Free) and b.uid not in k.frees(a) and k.sort_of(seq, b) == srt:
                ctx = tuple(
                    k.Entry(x.uid, x.ty if isinstance(x.ty, str) else k.replace_free(x.ty, b.uid, k.App("*", (a, k.Free(c)), srt)))
                    for x in inner.ctx
                    if x.uid != b.uid
                )
                sub = k.Sequent(ctx, k.replace_free(inner.target, b.uid, k.App("*", (a, k.Free(c)), srt)))
                body = _dvd_proof(sub, rest, (*witnesses, k.Free(c)))
                if body is None:
                    return None
                return k.Proof("dvd_e", (k.Proof("hyp", (h,)), c, eq, k.Proof("subst", (k.Proof("hyp", (eq,)), b.uid, body))))
            body = _dvd_proof(inner, rest, (*witnesses, k.Free(c)))
            return None if body is None else k.Proof("dvd_e", (k.Proof("hyp", (h,)), c, eq, body))
    t = seq.target
    if not (isinstance(t, k.App) and t.head == "∣"):
        return None
    a, b = t.args
    srt = k.sort_of(seq, a)
    vars_ = [k.Free(x.uid) for x in seq.ctx if x.ty == srt]
    cands: list[k.Term] = [k.Lit(1, srt), k.Lit(0, srt), *vars_]
    if len(witnesses) >= 2:
        prod = witnesses[0]
        for w in witnesses[1:]:
            prod = k.App("*", (prod, w), srt)
        cands.insert(0, prod)
    for w in cands:
        if k.poly(b) == k.poly(k.App("*", (a, w), srt)):
            return k.Proof("dvd_i", (w, k.Proof("ring")))
    return None


@lru_cache(maxsize=1024)
def lemma_proof(statement: k.Term) -> k.Proof | None:
    """A kernel proof of a closed statement (a built-in lemma): introduce its binders and
    premises, then an arithmetic certificate (squares of atoms allowed). Checked here."""
    seq = k.Sequent((), statement)
    intros: list[int] = []
    premises: list[tuple[k.Proof, k.Term]] = []
    t = statement
    while True:
        if isinstance(t, k.Bind) and t.q == "∀":
            u = internal_uid()
            intros.append(u)
            seq = seq.add(k.Entry(u, t.sort))
            t = k.instantiate(t.body, k.Free(u))
        elif isinstance(t, k.App) and t.head == "→" and t.args[1] != k.FALSE:
            u = internal_uid()
            intros.append(u)
            seq = seq.add(k.Entry(u, t.args[0]))
            premises.append((k.Proof("hyp", (u,)), t.args[0]))
            t = t.args[1]
        else:
            break
    body = (
        prove_fact(seq.to(t), premises, t)
        or prove_fact(seq.to(t), premises, t, nonlinear=True)
        or _dvd_proof(seq.to(t), [u for pr, _ in premises for u in _hyp_uid(pr)])
    )
    if body is None:
        return None
    for u in reversed(intros):
        body = k.Proof("intro", (u, body))
    try:
        k.check(k.Sequent((), statement), body, [])
    except k.KernelError:
        return None
    return body


def _has_binder(t: k.Term) -> bool:
    if isinstance(t, k.Bind):
        return True
    return isinstance(t, k.App) and any(_has_binder(a) for a in t.args)


def _iff(a: k.Term, b: k.Term) -> k.Term:
    return k.App("↔", (a, b), "Prop")


def _instances(
    seq: k.Sequent, sources: list[tuple[k.Proof, k.Term]], scope: list[int], limit: int = 48
) -> list[tuple[k.Proof, k.Term]]:
    """∀-rules instantiated at the variables in scope (one or two binders), for the leaves."""
    out: list[tuple[k.Proof, k.Term]] = []
    vars_ = [(u, e.ty) for u in scope if (e := seq.lookup(u)) is not None and isinstance(e.ty, str)]
    for pf, prop in sources:
        frontier = [(pf, prop)]
        for _ in range(2):
            nxt = []
            for p, t in frontier:
                if not (isinstance(t, k.Bind) and t.q == "∀"):
                    continue
                for u, sort in vars_:
                    if sort == t.sort:
                        nxt.append((k.Proof("inst", (p, k.Free(u))), k.instantiate(t.body, k.Free(u))))
            out.extend(nxt)
            frontier = nxt
            if len(out) > limit:
                return out[:limit]
    return out


def prove_iff(
    seq: k.Sequent,
    a: k.Term,
    b: k.Term,
    sources: list[tuple[k.Proof, k.Term]],
    scope: list[int] | None = None,
    budget: Budget | None = None,
) -> k.Proof | None:
    """A kernel proof of ``a ↔ b`` (a simplification step): congruence under binders,
    binders over an unused variable dropped, and quantifier-free leaves proved by
    certificates from the hypotheses and the rules (``sources``: proofs of rule
    propositions; ∀-rules are instantiated at the variables in scope)."""
    scope = list(scope or [])
    if k.conv(a, b):
        return k.Proof("refl", ())
    if isinstance(a, k.Bind) and isinstance(b, k.Bind) and (a.q, a.sort) == (b.q, b.sort):
        u = internal_uid()
        inner = seq.add(k.Entry(u, a.sort))
        body = prove_iff(
            inner, k.instantiate(a.body, k.Free(u)), k.instantiate(b.body, k.Free(u)), sources, [*scope, u], budget
        )
        return None if body is None else k.Proof("congr_bind", (u, body))
    if isinstance(a, k.Bind) and not isinstance(b, k.Bind):
        # the binder went away (its variable is no longer used): Q x, A ↔ Q x, B ↔ B
        mid = k.Bind(a.q, a.sort, b)
        first = prove_iff(seq, a, mid, sources, scope, budget)
        if first is None:
            return None
        return prove_fact(
            seq.to(_iff(a, b)),
            [
                (k.Proof("annot", (first, _iff(a, mid))), _iff(a, mid)),
                (k.Proof("annot", (_drop_unused(mid), _iff(mid, b))), _iff(mid, b)),
            ],
            _iff(a, b),
            budget=budget,
        )
    premises = [(k.Proof("hyp", (e.uid,)), e.ty) for e in seq.ctx if not isinstance(e.ty, str)]
    premises += [(p, t) for p, t in sources if not _has_binder(t)]
    premises += _instances(seq, sources, scope)
    if not (_has_binder(a) or _has_binder(b)):
        return prove_fact(seq.to(_iff(a, b)), premises, _iff(a, b), budget=budget)
    if isinstance(a, k.App) and isinstance(b, k.App) and a.head == b.head and a.head in ("∧", "∨", "→", "↔"):
        parts = []
        for x, y in zip(a.args, b.args, strict=True):
            p = prove_iff(seq, x, y, sources, scope, budget)
            if p is None:
                return None
            parts.append((k.Proof("annot", (p, _iff(x, y))), _iff(x, y)))
        return prove_fact(seq.to(_iff(a, b)), parts, _iff(a, b), budget=budget)
    return prove_fact(seq.to(_iff(a, b)), premises, _iff(a, b), budget=budget)


def _drop_unused(a: k.Bind) -> k.Proof:
    """A proof of ``(Q x, C) ↔ C`` where x does not occur in C."""
    h, u, v = internal_uid(), internal_uid(), internal_uid()
    witness = k.Lit(0, a.sort) if a.sort != "Prop" else k.TRUE
    if a.q == "∀":
        there = k.Proof("intro", (h, k.Proof("inst", (k.Proof("hyp", (h,)), witness))))
        back = k.Proof("intro", (h, k.Proof("intro", (u, k.Proof("hyp", (h,))))))
    else:
        there = k.Proof("intro", (h, k.Proof("ex_e", (k.Proof("hyp", (h,)), u, v, k.Proof("hyp", (v,))))))
        back = k.Proof("intro", (h, k.Proof("ex_i", (witness, k.Proof("hyp", (h,))))))
    return k.Proof("iff_i", (there, back))
