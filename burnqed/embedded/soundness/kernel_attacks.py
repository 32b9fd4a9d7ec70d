"""Hostile certificates against the kernel's ``arith`` rule (``burnqed bench soundness``).

The kernel treats a certificate as untrusted input; this campaign tests that claim. It
draws small sequents ``hyps ⊢ False`` over Int and Nat variables (divisibility, ``/`` and
``%`` with zero and negative divisors, truncated subtraction, casts, powers), keeps those
that are false (an assignment satisfying every hypothesis, found by exact evaluation with
Lean's semantics in ``burnqed.embedded.soundness.lean_semantics``, independently of the
kernel), and hands the kernel certificates for them:

- ``random``: random ``split``/``cut``/``prod``/``square``/``farkas``/``contra``/``false``
  trees over the branch's facts, with polynomials over well-sorted atoms, ill-sorted ones
  (a Nat-typed ``x / 2`` over an Int ``x``, an Int ``x - 5`` posing as truncated), numerals,
  bound variables, non-normal atoms, zero or negative exponents and malformed numbers;
- ``guided``: a prefix of ``square``/``cut`` steps over such atoms, completed by the
  certificate search (decide/certify.py) run on a fact set that believes the prefix's atoms as
  the kernel did before it checked them: a refutation there is exactly the attack of
  issue 24;
- ``search``: the certificate search itself on the false sequent, linear and nonlinear
  (any wrong encoding of a relation or atom makes it find a refutation);
- ``mutated``: certificates of a true sibling sequent (one more hypothesis) with indices,
  coefficients and constants perturbed.

An accepted certificate for a false sequent is a false acceptance.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.kernel import App, Entry, Free, Lit, Poly, Sequent
from burnqed.embedded.soundness.lean_semantics import satisfiable

__all__ = ["CertTally", "run_hostile"]

X, Y, M, N = Free(1), Free(2), Free(3), Free(4)
SORTS = {1: "Int", 2: "Int", 3: "Nat", 4: "Nat"}
FALSE = App("False", (), "Prop")


# ---------------------------------------------------------------- random sequents


def _lit(rng: random.Random, sort: str) -> Lit:
    return Lit(rng.choice((0, 1, 2, 3, 5) if sort == "Nat" else (0, 1, -1, 2, -2, 3, -3, 5)), sort)


def _zero(rng: random.Random, sort: str) -> k.Term:
    """A term whose value is 0 (or can be): the divisors of issue 24."""
    if sort == "Nat":
        return rng.choice(
            (Lit(0, "Nat"), App("*", (M, Lit(0, "Nat")), "Nat"), App("-", (N, N), "Nat"), App("-", (M, N), "Nat"), M)
        )
    return rng.choice(
        (
            Lit(0, "Int"),
            App("*", (X, Lit(0, "Int")), "Int"),
            App("cast", (App("-", (N, N), "Nat"),), "Int"),
            App("cast", (App("-", (M, N), "Nat"),), "Int"),
            App("-", (X, X), "Int"),
            X,
        )
    )


def _term(rng: random.Random, sort: str, depth: int) -> k.Term:
    if depth <= 0 or rng.random() < 0.3:
        r = rng.random()
        if r < 0.45:
            return rng.choice((X, Y) if sort == "Int" else (M, N))
        if r < 0.75:
            return _lit(rng, sort)
        if sort == "Int" and r < 0.9:
            return App("cast", (rng.choice((M, N)),), "Int")
        return _zero(rng, sort)
    h = rng.choice(("+", "-", "*", "/", "%", "/", "%", "^", "neg", "cast"))
    if h == "neg":
        return App("neg", (_term(rng, "Int", depth - 1),), "Int") if sort == "Int" else _term(rng, sort, depth - 1)
    if h == "cast":
        return App("cast", (_term(rng, "Nat", depth - 1),), "Int") if sort == "Int" else _term(rng, sort, depth - 1)
    if h == "^":
        exp = rng.choice((Lit(0, "Nat"), Lit(1, "Nat"), Lit(2, "Nat"), N, App("+", (N, Lit(1, "Nat")), "Nat")))
        return App("^", (_term(rng, sort, depth - 1), exp), sort)
    b = _zero(rng, sort) if h in ("/", "%") and rng.random() < 0.4 else _term(rng, sort, depth - 1)
    return App(h, (_term(rng, sort, depth - 1), b), sort)


def _prop(rng: random.Random, depth: int = 1) -> k.Term:
    if depth > 0 and rng.random() < 0.3:
        c = rng.choice(("∧", "∨", "→", "¬"))
        if c == "¬":
            return App("→", (_prop(rng, depth - 1), FALSE), "Prop")
        return App(c, (_prop(rng, depth - 1), _prop(rng, depth - 1)), "Prop")
    sort = rng.choice(("Int", "Nat"))
    r = rng.choice(("=", "<", "≤", "∣", "∣"))
    a = _zero(rng, sort) if r == "∣" and rng.random() < 0.5 else _term(rng, sort, 2)
    p = App(r, (a, _term(rng, sort, 2)), "Prop")
    return App("→", (p, FALSE), "Prop") if rng.random() < 0.4 else p


def _zero_divisor_props(rng: random.Random) -> list[k.Term]:
    """``¬ z ∣ t`` with ``z`` zero-valued, beside a bound on ``t``: the shape of issue 24
    (``¬ 0 ∣ t`` says ``t ≠ 0``, and on Int ``t`` may be negative)."""
    sort = rng.choice(("Int", "Int", "Nat"))
    t = _term(rng, sort, 1)
    dvd = App("∣", (_zero(rng, sort), t), "Prop")
    bound = App(rng.choice(("<", "≤")), (t, _lit(rng, sort)), "Prop")
    return [App("→", (dvd, FALSE), "Prop"), bound] + [_prop(rng) for _ in range(rng.randint(0, 1))]


def _sequent(hyps: list[k.Term]) -> Sequent:
    ctx = tuple(Entry(uid, s) for uid, s in SORTS.items())
    ctx += tuple(Entry(100 + i, h) for i, h in enumerate(hyps))
    return Sequent(ctx, FALSE)


def _arith(seq: Sequent, cert: Any) -> k.Proof:
    hyps = tuple(k.Hyp(e.uid) for e in seq.ctx if not isinstance(e.ty, str))
    return k.Arith(hyps, cert)


# ---------------------------------------------------------------- certificates


def _ill_atoms() -> list[k.Term]:
    """Atoms the kernel must refuse in a certificate (ill-sorted, not closed, not in
    normal form, malformed numerals)."""
    return [
        App("/", (X, Lit(2, "Nat")), "Nat"),  # the attack of issue 24: Nat division of an Int
        App("%", (X, Lit(3, "Nat")), "Nat"),
        App("-", (X, Lit(5, "Int")), "Int"),  # Int subtraction posing as a truncated one
        App("-", (X, Y), "Nat"),
        App("/", (X, Lit(Fraction(1, 2), "Int")), "Int"),  # type: ignore[arg-type]
        App("/", (X, Lit(-2, "Nat")), "Int"),
        App("+", (X, Lit(0, "Int")), "Int"),  # not in normal form
        App("^", (X, Lit(2, "Nat")), "Int"),
        App("cast", (M,), "Int"),
        Lit(3, "Int"),
        k.Var(0),
        Free(99),
        App("^", (M, N), "Int"),
        App("=", (X, Y), "Prop"),
    ]


def _well_atoms(fs: k.FactSet) -> list[k.Term]:
    out: dict[k.Term, None] = {X: None, Y: None, M: None, N: None}
    for f in fs.facts:
        if isinstance(f, k.Lin):
            for x in k.atoms(f.poly):
                out.setdefault(x, None)
    return list(out)


def _rand_poly(rng: random.Random, atoms: list[k.Term], integral: bool) -> Any:
    p: dict[Any, Any] = {}
    for _ in range(rng.randint(1, 3)):
        x = rng.choice(atoms)
        e = rng.choice((1, 1, 1, 2)) if rng.random() < 0.95 else rng.choice((0, -1, 65))
        c: Any = rng.choice((1, -1, 2, -3)) if integral else rng.choice((1, -1, Fraction(1, 2), 2))
        p[((x, e),)] = c
    if rng.random() < 0.5:
        p[()] = rng.choice((0, 1, -1, -5))
    if rng.random() < 0.03:
        p[((X, 1),)] = rng.choice((0.5, True, "1", float("inf")))
    return Poly({m: c for m, c in p.items() if c}) if rng.random() < 0.97 else p


def _random_cert(rng: random.Random, fs: k.FactSet, atoms: list[k.Term], depth: int) -> Any:
    n = len(fs.facts)
    lins = [i for i, f in enumerate(fs.facts) if isinstance(f, k.Lin)]
    disj = [i for i, f in enumerate(fs.facts) if isinstance(f, k.Disj)]
    kinds = ["farkas", "farkas", "false", "contra"] + ["split", "cut", "prod", "square", "mul_eq"] * (depth > 0)
    kind = rng.choice(kinds)
    idx = lambda: rng.randrange(-1, n + 1) if rng.random() < 0.05 else rng.randrange(max(n, 1))  # noqa: E731
    if kind == "farkas":
        pool = lins or [0]
        pairs = tuple(
            (rng.choice(pool), rng.choice((1, 1, 2, 3, Fraction(1, 2), -1, 0)))
            for _ in range(rng.randint(1, min(4, len(pool) + 1)))
        )
        return ("farkas", pairs)
    if kind == "false":
        return ("false", idx())
    if kind == "contra":
        return ("contra", idx(), idx())
    if kind == "split":
        i = rng.choice(disj) if disj and rng.random() < 0.9 else idx()
        f = fs.facts[i] if 0 <= i < n else None
        cases = f.cases if isinstance(f, k.Disj) else ((),)
        subs = []
        for case in cases:
            branch = fs.copy()
            try:
                branch.add(k.Disj((case,)))
            except k.KernelError:
                branch = fs
            subs.append(_random_cert(rng, branch, atoms, depth - 1))
        return ("split", i, tuple(subs))
    if kind == "prod":
        return ("prod", rng.choice(lins or [0]), rng.choice(lins or [0]), _random_cert(rng, fs, atoms, depth - 1))
    if kind == "square":
        return ("square", _rand_poly(rng, atoms, False), _random_cert(rng, fs, atoms, depth - 1))
    if kind == "mul_eq":  # any fact, equality or not, times a random polynomial
        return ("mul_eq", rng.choice(lins or [0]), _rand_poly(rng, atoms, rng.random() < 0.9), _random_cert(rng, fs, atoms, depth - 1))
    c = rng.randint(-3, 3)
    p = _rand_poly(rng, atoms, True)
    return ("cut", p, c, _random_cert(rng, fs, atoms, depth - 1), _random_cert(rng, fs, atoms, depth - 1))


class _Credulous(k.FactSet):
    """A fact set that believes every atom as the kernel did before issue 24 (no sort or
    normal-form check; Nat by the atom's own label): the attacker's planning model."""

    def copy(self) -> _Credulous:
        out = _Credulous(self.seq)
        out.facts, out.seen = list(self.facts), set(self.seen)
        return out

    def _atom(self, x: k.Term) -> None:
        if x in self.seen:
            return
        self.seen.add(x)
        sort = x.sort if isinstance(x, App) else SORTS.get(getattr(x, "uid", 0), "Int")
        if sort == "Nat":
            self.add(k.Lin(Poly.atom(x), False))
        if isinstance(x, App) and x.head == "-" and len(x.args) == 2:
            self.add(k.arith._tsub_facts(x))
        elif isinstance(x, App) and x.head in ("/", "%") and len(x.args) == 2:
            try:
                for g in k.arith._divmod_facts(x):
                    self.add(g)
            except (k.KernelError, TypeError, ValueError, ZeroDivisionError):
                pass


# z3 resource units of each small search of a guided attack (a count, so a campaign's seed
# gives the same attacks whatever the load)
_ATTACK_RLIMIT = 200_000


def _guided(rng: random.Random, seq: Sequent, props: list[k.Term]) -> Any:
    """A square/cut prefix over ill-sorted atoms, completed by the certificate search on a
    fact set that believes them."""
    from burnqed.embedded.decide.certify import Budget, _search

    fs = _Credulous(seq)
    for p in props:
        fs.add(k.nnf(p, True, seq))
    ill = [a for a in _ill_atoms() if isinstance(a, App) and a.sort != "Prop"]
    x = rng.choice(ill)
    try:
        if rng.random() < 0.5:
            p = Poly.atom(x).add(Poly.const(rng.choice((0, -1, 1))))
            fs.add(k.Lin(p.mul(p), False))
            sub = _search(fs, frozenset(), Budget(nodes=48, cuts=2, rlimit=_ATTACK_RLIMIT))
            return None if sub is None else ("square", p, sub)
        p, c = Poly.atom(x), rng.randint(-2, 1)
        lo, hi = fs.copy(), fs.copy()
        lo.add(k.Lin(Poly.const(c).add(p, -1), False))
        hi.add(k.Lin(p.add(Poly.const(-c - 1)), False))
        a = _search(lo, frozenset(), Budget(nodes=48, cuts=2, rlimit=_ATTACK_RLIMIT))
        b = _search(hi, frozenset(), Budget(nodes=48, cuts=2, rlimit=_ATTACK_RLIMIT)) if a is not None else None
        return None if b is None else ("cut", p, c, a, b)
    except (k.KernelError, TypeError, ValueError, ZeroDivisionError):
        return None


def _mutate(rng: random.Random, cert: Any) -> Any:
    """A certificate with one index, coefficient or constant perturbed."""
    if not isinstance(cert, tuple) or not cert:
        return cert
    kind = cert[0]
    if kind == "farkas" and cert[1]:
        pairs = list(cert[1])
        j = rng.randrange(len(pairs))
        i, c = pairs[j]
        choice = rng.random()
        if choice < 0.3:
            pairs[j] = (i + rng.choice((-1, 1)), c)
        elif choice < 0.6:
            pairs[j] = (i, c * rng.choice((-1, 2, Fraction(1, 2))))
        else:
            pairs.pop(j)
        return ("farkas", tuple(pairs))
    if kind == "cut":
        if rng.random() < 0.5:
            return ("cut", cert[1], cert[2] + rng.choice((-1, 1)), cert[3], cert[4])
        return ("cut", cert[1], cert[2], _mutate(rng, cert[3]), _mutate(rng, cert[4]))
    if kind == "split":
        subs = list(cert[2])
        if subs:
            j = rng.randrange(len(subs))
            subs[j] = _mutate(rng, subs[j])
        return ("split", cert[1], tuple(subs))
    if kind in ("prod", "square", "mul_eq"):
        return (*cert[:-1], _mutate(rng, cert[-1]))
    if kind in ("false", "contra"):
        return (kind, *(i + rng.choice((-1, 0, 1)) for i in cert[1:]))
    return cert


# ---------------------------------------------------------------- campaign


@dataclass
class CertTally:
    """What one hostile-certificate run found."""

    sequents: int = 0
    false_sequents: int = 0
    attempts: dict[str, int] = field(default_factory=lambda: {"random": 0, "guided": 0, "search": 0, "mutated": 0})
    refused: int = 0
    false_accepted: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: CertTally) -> None:
        """Add another tally to this one."""
        self.sequents += other.sequents
        self.false_sequents += other.false_sequents
        for key, v in other.attempts.items():
            self.attempts[key] = self.attempts.get(key, 0) + v
        self.refused += other.refused
        self.false_accepted += other.false_accepted
        self.seconds += other.seconds


def _hostile_chunk(args: tuple[int, int]) -> CertTally:
    """Hostile certificates until ``count`` attempts (one worker)."""
    from burnqed.embedded.decide.certify import refutation

    seed, count = args
    rng = random.Random(seed)
    tally = CertTally()
    t0 = time.perf_counter()

    def attempt(kind: str, seq: Sequent, cert: Any) -> None:
        tally.attempts[kind] += 1
        try:
            k.check(seq, _arith(seq, cert), [])
        except k.KernelError:
            tally.refused += 1
            return
        except RecursionError:
            tally.refused += 1
            return
        tally.false_accepted.append({"kind": kind, "sequent": repr(seq), "certificate": repr(cert)[:2000]})

    while sum(tally.attempts.values()) < count:
        if rng.random() < 0.2:
            props = _zero_divisor_props(rng)
        else:
            props = [_prop(rng) for _ in range(rng.randint(1, 3))]
        seq = _sequent(props)
        tally.sequents += 1
        if satisfiable(seq) is None:
            continue  # possibly true: not an attack
        tally.false_sequents += 1
        fs = k.FactSet(seq)
        try:
            for p in props:
                fs.add(k.nnf(p, True, seq))
        except k.KernelError:
            continue
        atoms = _well_atoms(fs) + _ill_atoms()
        for _ in range(12):
            attempt("random", seq, _random_cert(rng, fs, atoms, rng.randint(0, 3)))
        if rng.random() < 0.25:
            cert = _guided(rng, seq, props)
            if cert is not None:
                attempt("guided", seq, cert)
                for _ in range(3):
                    attempt("mutated", seq, _mutate(rng, cert))
        if rng.random() < 0.3:
            cert = refutation(seq, props, nonlinear=rng.random() < 0.3)
            attempt("search", seq, cert if cert is not None else ("farkas", ()))
        if rng.random() < 0.25:
            extra = App("→", (App("=", (X, X), "Prop"), FALSE), "Prop")  # x ≠ x: the sibling is true
            sibling = [*props, extra]
            cert = refutation(_sequent(sibling), sibling)
            if cert is not None:
                for _ in range(4):
                    attempt("mutated", seq, _mutate(rng, cert))
    tally.seconds = time.perf_counter() - t0
    return tally


def run_hostile(*, seed: int = 0, count: int = 1000, workers: int = 1) -> CertTally:
    """At least ``count`` hostile certificates for false sequents, in ``workers`` processes."""
    from concurrent.futures import ProcessPoolExecutor

    per = -(-count // workers)
    jobs = [(seed * 1000 + i, per) for i in range(workers)]
    total = CertTally()
    if workers == 1:
        total.merge(_hostile_chunk(jobs[0]))
        return total
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_hostile_chunk, jobs):
            total.merge(part)
    return total
