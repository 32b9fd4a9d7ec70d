"""Certificates for the kernel's ``arith`` rule, found with z3 and checked by the kernel.

Nothing here is trusted. ``refutation`` searches a refutation tree for a set of kernel
facts exactly as the kernel's ``FactSet`` reads them: it splits disjunctions, closes
branches on complementary literals, asks z3 (linear real arithmetic, exact rationals) for
Farkas multipliers, and where the rational relaxation is satisfiable but the integers are
not, splits a linear form the relaxation bounds to a few integers into its values (the
quotient of a ``%``, as omega does after solving equalities; decide/certify_int.py), else cuts on a
fractional monomial (branch and bound). ``nonlinear`` adds products of
pairs of facts and squares of atoms first, as Mathlib's nlinarith does. ``prove_fact``
wraps it as a kernel proof (``by_contra`` + ``arith``); bridge/lemma_proofs.py builds the proofs of
built-in lemmas and simp's equivalences on top of it.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import Any, NoReturn, Protocol

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify_ideal import substitutions
from burnqed.embedded.decide.certify_int import cuts, fourier_motzkin, lins, narrowest, q, real_sum
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.decide.smt import _lib, bounded_check

_DEFAULTS = EmbeddedConfig()

__all__ = ["Budget", "Request", "SearchInterrupted", "internal_uid", "prove_fact", "refutation"]

_internal = itertools.count(1)


def internal_uid() -> int:
    """A context id no goal uses (negative: goals' ids are positive)."""
    return -next(_internal)


class SearchInterrupted(RuntimeError):
    """z3 was stopped from outside during a search that has no request to answer for it."""


class Request(Protocol):
    """What a certificate search takes from the request it runs in (engine.TacticContext)."""

    config: EmbeddedConfig
    deadline: float | None

    def interrupt(self) -> NoReturn:
        """Raise the request's timeout (Interrupted)."""


class _Shared:
    """What the searches of one certificate (the remainder searches' sub-budgets included)
    share: z3's resource units left and the first bound that ran out."""

    def __init__(self, rlimit: int) -> None:
        self.rlimit = rlimit
        self.total = rlimit
        self.exhausted: tuple[str, int] | None = None


class Budget:
    """Bounds of one certificate search, all counts (never times, so a verdict does not
    depend on the machine's load): nodes, integer cuts and z3 resource units (``rlimit``,
    shared by all its solver calls). The request's ``deadline`` is only a safety net: past
    it the search raises ``Interrupted`` (the timeout answer), never a plain refusal."""

    def __init__(
        self,
        nodes: int | None = None,
        cuts: int | None = None,
        rlimit: int | None = None,
        deadline: float | None = None,
        *,
        config: EmbeddedConfig | None = None,
        shared: _Shared | None = None,
        node_bound: str = "cert_nodes",
        request: Request | None = None,
    ) -> None:
        cfg = config or _DEFAULTS
        self.config = cfg
        self.nodes = cfg.cert_nodes if nodes is None else nodes
        self.cuts = cfg.cert_cuts if cuts is None else cuts
        self.limits = (self.nodes, self.cuts)
        self.shared = shared or _Shared(cfg.cert_rlimit if rlimit is None else rlimit)
        self.deadline = deadline
        self.node_bound = node_bound
        self.request = request

    @classmethod
    def of(cls, request: Request, *, quick: bool = False) -> Budget:
        """The bounds the request's config sets for one search (``quick``: omega's
        solver-free first try, ``cert_quick_nodes`` and no cuts), under its deadline."""
        cfg, deadline = request.config, request.deadline
        if quick:
            return cls(
                cfg.cert_quick_nodes, 0, deadline=deadline, config=cfg, node_bound="cert_quick_nodes", request=request
            )
        return cls(deadline=deadline, config=cfg, request=request)

    def scaled(self, factor: int) -> Budget:
        """``factor`` times this budget's nodes and cuts as it was made, the same z3 units
        and deadline (a remainder search, whose leaves each run a linear search)."""
        nodes, cut_count = self.limits
        return Budget(
            nodes * factor,
            cut_count * factor,
            deadline=self.deadline,
            config=self.config,
            shared=self.shared,
            node_bound=self.node_bound,
            request=self.request,
        )

    @property
    def exhausted(self) -> tuple[str, int] | None:
        """The first bound the search ran out of (``cert_nodes``, ``cert_cuts``,
        ``cert_rlimit``) with its value, None when none did."""
        return self.shared.exhausted

    def note(self) -> str:
        """For a refusal: which bound stopped the search (empty when none did)."""
        if self.exhausted is None:
            return ""
        name, value = self.exhausted
        return (
            f" (the certificate search reached its bound {name} = {value};"
            " a count, not a time: a retry gives the same answer)"
        )

    def _ran_out(self, name: str, value: int) -> None:
        if self.shared.exhausted is None:
            self.shared.exhausted = (name, value)

    def check_time(self) -> None:
        """Raise ``Interrupted`` past the request's deadline (the safety net)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self._interrupt()

    def tick(self) -> bool:
        """Spend one node; False when out of nodes."""
        self.check_time()
        self.nodes -= 1
        if self.nodes < 0:
            self._ran_out(self.node_bound, self.limits[0])
            return False
        return True

    def can_cut(self) -> bool:
        """Whether an integer cut is left (False also records that the cuts ran out)."""
        if self.cuts > 0:
            return True
        self._ran_out("cert_cuts", self.limits[1])
        return False

    def cut(self) -> bool:
        """Spend one integer cut; False when out of cuts."""
        if not self.can_cut():
            return False
        self.cuts -= 1
        return True

    def check(self, solver: Any) -> Any:
        """``solver.check()`` within the z3 units left (``unknown`` when none are left)."""
        if self.shared.rlimit <= 0:
            self._ran_out("cert_rlimit", self.shared.total)
            return _lib().unknown
        result, spent, why = bounded_check(solver, self.shared.rlimit, self.deadline)
        self.shared.rlimit -= spent
        if why == "deadline":  # the safety net fired inside z3: a timeout, not a refusal
            self._interrupt()
        if why == "rlimit":
            self._ran_out("cert_rlimit", self.shared.total)
        return result

    def _interrupt(self) -> NoReturn:
        if self.request is not None:
            self.request.interrupt()
        raise SearchInterrupted("the certificate search was stopped by its deadline")


def _farkas(fs: k.FactSet, budget: Budget) -> tuple[Any, ...] | None:
    rows = lins(fs)
    if not rows:
        return None
    quick = fourier_motzkin(rows)
    if quick is not False:
        return quick  # type: ignore[return-value]
    z3 = _lib()
    s = z3.SolverFor("QF_LRA")
    lam = {i: z3.Real(f"l{i}") for i, _ in rows}
    monos: dict[k.Monomial, list[Any]] = {}
    const = []
    for i, f in rows:
        if not f.eq:
            s.add(lam[i] >= 0)
        for m, c in f.poly.items():
            if m == ():
                const.append(lam[i] * q(z3, c))
            else:
                monos.setdefault(m, []).append(lam[i] * q(z3, c))
    for terms in monos.values():
        s.add(z3.Sum(terms) == 0)
    if not const:
        return None
    s.add(z3.Sum(const) <= -1)
    if budget.check(s) != z3.sat:
        return None
    model = s.model()
    out = []
    for i, _ in rows:
        v = model.eval(lam[i], model_completion=True).as_fraction()
        if v:
            out.append((i, Fraction(v)))
    return ("farkas", tuple(out))


def _cut_sides(fs: k.FactSet, p: k.Poly, c: int) -> tuple[k.FactSet, k.FactSet]:
    """The two branches of the kernel's ``cut`` on ``p``: ``p ≤ c`` and ``p ≥ c + 1``."""
    below, above = fs.copy(), fs.copy()
    below.add(k.Lin(k.Poly.const(c).add(p, -1), False))
    above.add(k.Lin(p.add(k.Poly.const(-c - 1)), False))
    return below, above


def _relaxation(fs: k.FactSet, budget: Budget) -> dict[k.Monomial, Fraction] | None:
    """Values of the monomials in a model of the rational relaxation (None: infeasible)."""
    z3 = _lib()
    s = z3.SolverFor("QF_LRA")
    var: dict[k.Monomial, Any] = {}
    for _, f in lins(fs):
        total = real_sum(z3, f.poly, var)
        s.add(total == 0 if f.eq else total >= 0)
    if budget.check(s) != z3.sat:
        return None
    model = s.model()
    return {m: Fraction(model.eval(x, model_completion=True).as_fraction()) for m, x in var.items()}


_PRODUCT_FACTS = 12  # facts whose pairwise products nlinarith's certificate may use


def _enumerate(
    fs: k.FactSet, split: frozenset[int], budget: Budget, p: k.Poly, lo: int, hi: int
) -> tuple[Any, ...] | None:
    """Cuts ``p ≤ lo - 1 ∨ p ≥ lo``, ``p ≤ v ∨ p ≥ v + 1`` for v = lo..hi: the outer
    branches contradict the bounds, each inner one has ``p = v``."""
    if hi < lo:  # no integer in the range: one cut, both sides out of bounds
        return _cut(fs, split, budget, p, math.floor(Fraction(lo + hi, 2)), None)
    return _cut(fs, split, budget, p, lo - 1, (lo, hi))


def _cut(
    fs: k.FactSet,
    split: frozenset[int],
    budget: Budget,
    p: k.Poly,
    c: int,
    rest: tuple[int, int] | None,
) -> tuple[Any, ...] | None:
    if not budget.cut():
        return None
    below, above = _cut_sides(fs, p, c)
    a = _search(below, split, budget)
    if a is None:
        return None
    if rest is not None and c + 1 <= rest[1]:
        b = _cut(above, split, budget, p, c + 1, rest)
    else:
        b = _search(above, split, budget)
    return None if b is None else ("cut", p, c, a, b)


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
    if not budget.can_cut():
        return None
    values = _relaxation(fs, budget)
    if values is None:
        return None
    ranged = narrowest(fs, values, budget.check)
    if ranged is not None:
        return _enumerate(fs, split, budget, *ranged)
    for p, c in cuts(fs, values)[:3]:
        if not budget.cut():
            return None
        lo, hi = _cut_sides(fs, p, c)
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
    fs = k.FactSet(seq)
    try:
        for p in props[:-1]:
            fs.add(k.nnf(p, True, seq))
        target_at = len(fs.facts)
        if props:
            fs.add(k.nnf(props[-1], True, seq))
        if not nonlinear:
            got = _search(fs, frozenset(), budget)
            if got is not None:
                return got
            # an equation substituted inside non-linear terms (simp's rewriting with `h : a = e`)
            steps = substitutions(fs)
            if not steps or not budget.tick():
                return None
            got = _search(fs, frozenset(), budget)
            for w in reversed(steps):
                got = None if got is None else (*w, got)
            return got
        # Mathlib's linarith proves an equality goal as two runs (Frontend.lean, `linarith`:
        # "target is an equality: splitting", `eq_of_not_lt_of_not_gt`), and nlinarith
        # multiplies each run's negated goal with the other facts: the negated target's cases
        # are split before the products here
        split = next(
            (i for i in range(target_at, len(fs.facts)) if isinstance(fs.facts[i], k.Disj)
             and all(len(c) == 1 and isinstance(c[0], k.Lin) for c in fs.facts[i].cases)),  # type: ignore[union-attr]
            None,
        )
        if split is None:
            return _products(fs, props, squares, budget)
        subs = []
        for case in fs.facts[split].cases:  # type: ignore[union-attr]
            branch = fs.copy()
            branch.add(k.Disj((case,)))
            sub = _products(branch, props, squares, budget)
            if sub is None:
                return None
            subs.append(sub)
        return ("split", split, tuple(subs))
    except k.KernelError:
        return None


def _products(
    fs: k.FactSet, props: list[k.Term], squares: tuple[k.Poly, ...], budget: Budget
) -> tuple[Any, ...] | None:
    """nlinarith's certificate (Mathlib/Tactic/Linarith/Preprocessing.lean nlinarithExtras):
    squares first (the extra ones, then those of terms the facts square), then products of
    pairs of comparisons, the last facts (the negated target, the extra terms) first, as many
    as the bound allows, squares included; then the linear search."""
    wrappers: list[tuple[Any, ...]] = []
    facts = [i for i, _ in lins(fs)]
    for p in _square_candidates(fs, props, squares)[:8]:
        wrappers.append(("square", p))
        fs.add(k.Lin(p.mul(p), False))
    # the negated target and the extra terms first, then the hypotheses, then the squares
    base = facts[::-1] + [i for i, _ in lins(fs) if i not in facts]
    for i, j in itertools.combinations_with_replacement(base[:_PRODUCT_FACTS], 2):
        a, b = fs.facts[i], fs.facts[j]
        if not (isinstance(a, k.Lin) and isinstance(b, k.Lin)):
            continue
        wrappers.append(("prod", i, j))
        fs.add(k.Lin(a.poly.mul(b.poly), a.eq or b.eq))
    cert = _search(fs, frozenset(), budget)
    if cert is None:
        return None
    for w in reversed(wrappers):
        cert = (*w, cert)
    return cert


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
    facts = (*(pr for pr, _ in premises), k.Hyp(u))
    return k.ByContra(u, k.Arith(facts, cert))
