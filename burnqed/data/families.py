"""Statement families of the benchmark: each draws one statement and its reference proof.

A family fixes the *shape* of a statement and of its proof; the random generator varies
numbers, variable names, types and the order of operands, so a policy that learns a
family from a training set meets the same shapes with new surfaces in the held-out set.
The first tactic always follows from the goal's shape (∀/→ → ``intro``, ∃ → ``use``,
∧/↔ → ``constructor``, ∨ → ``left``/``right``, a ∧/∃/∨ hypothesis → ``obtain``/``rcases``),
and an arithmetic closer (omega, norm_num, ring, nlinarith, linarith) ends each branch.
Proofs are checked by the embedded checker at generation time (burnqed.data.benchmark).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FAMILIES", "Draft", "Family", "families_by_level"]


@dataclass(frozen=True)
class Draft:
    """A candidate statement with its (unverified) reference proof."""

    statement: str
    proof: list[str]


@dataclass(frozen=True)
class Family:
    """A named statement shape; ``level`` is the nominal number of proof steps."""

    name: str
    level: int
    make: Callable[[random.Random], Draft]


_NAT_NAMES = ("n", "m", "k", "a", "b", "c", "x", "y")
_INT_NAMES = ("x", "y", "z", "a", "b", "c")
_HYP = ("h", "hx", "h₀", "hn")


def _names(rng: random.Random, count: int, pool: tuple[str, ...] = _NAT_NAMES) -> list[str]:
    return rng.sample(pool, count)


def _ty(rng: random.Random) -> str:
    return rng.choice(("Nat", "ℕ"))


def _sum(rng: random.Random, left: str, right: str) -> str:
    """``left + right`` in either order."""
    return f"{left} + {right}" if rng.random() < 0.5 else f"{right} + {left}"


def _prod(rng: random.Random, left: str, right: str) -> str:
    """``left * right`` in either order."""
    return f"{left} * {right}" if rng.random() < 0.5 else f"{right} * {left}"


# ---------------------------------------------------------------- level 1: one tactic


def _numeral_eval(rng: random.Random) -> Draft:
    a, b, c = rng.randint(2, 30), rng.randint(2, 30), rng.randint(0, 50)
    form = rng.randrange(4)
    if form == 0:
        stmt = f"{a} * {b} + {c} = {a * b + c}"
    elif form == 1:
        m = rng.randint(2, 9)
        stmt = f"({a} + {b}) % {m} = {(a + b) % m}"
    elif form == 2:
        e = rng.randint(2, 4)
        base = rng.randint(2, 6)
        stmt = f"{base} ^ {e} = {base**e}"
    else:
        stmt = f"{a} * {b} ≠ {a * b + rng.randint(1, 5)}"
    return Draft(stmt, ["norm_num"])


def _linear_forall(rng: random.Random) -> Draft:
    x, y = _names(rng, 2)
    c = rng.randint(1, 9)
    form = rng.randrange(3)
    if form == 0:
        stmt, intro = f"∀ ({x} {y} : {_ty(rng)}), {x} < {y} → {x} + {c} ≤ {y} + {c - 1}", f"intro {x} {y} h"
    elif form == 1:
        stmt, intro = f"∀ ({x} : {_ty(rng)}), {x} + {c} > {x}", f"intro {x}"
    else:
        stmt, intro = f"∀ ({x} {y} : {_ty(rng)}), {x} ≤ {y} → {c} * {x} ≤ {c} * {y}", f"intro {x} {y} h"
    return Draft(stmt, [intro, "omega"])


def _exists_witness(rng: random.Random) -> Draft:
    # `use` discharges a closed goal itself (rfl / decide), as Lean's use_discharger does
    x = rng.choice(("x", "n", "m", "k"))
    w, a = rng.randint(0, 20), rng.randint(1, 20)
    form = rng.randrange(3)
    if form == 0:
        stmt = f"∃ ({x} : {_ty(rng)}), {_sum(rng, x, str(a))} = {w + a}"
    elif form == 1:
        k = rng.randint(2, 9)
        stmt = f"∃ ({x} : {_ty(rng)}), {_prod(rng, str(k), x)} = {k * w}"
    else:
        w = rng.randint(2, 12)
        stmt = f"∃ ({x} : {_ty(rng)}), {x} * {x} = {w * w}"
    return Draft(stmt, [f"use {w}", "norm_num"])


def _exists_int(rng: random.Random) -> Draft:
    x = rng.choice(_INT_NAMES[:3])
    a, b = rng.randint(10, 40), rng.randint(1, 9)
    # the witness is negative (b - a < 0), which no ℕ-minded guess finds
    ty = rng.choice(("Int", "ℤ"))
    return Draft(f"∃ ({x} : {ty}), {_sum(rng, x, str(a))} = {b}", [f"use {b - a}", "norm_num"])


# ---------------------------------------------------------------- level 2


def _intro_ring(rng: random.Random) -> Draft:
    x, y = _names(rng, 2)
    c = rng.randint(1, 6)
    form = rng.randrange(3)
    if form == 0:
        stmt = f"∀ ({x} : {_ty(rng)}), ({x} + {c}) * ({x} + {c}) = {x} * {x} + {2 * c} * {x} + {c * c}"
        intro = f"intro {x}"
    elif form == 1:
        stmt = f"∀ ({x} {y} : {_ty(rng)}), ({x} + {y}) ^ 2 = {x} ^ 2 + 2 * {x} * {y} + {y} ^ 2"
        intro = f"intro {x} {y}"
    else:
        stmt = f"∀ ({x} {y} : {_ty(rng)}), {c} * ({x} * {y}) = ({c} * {x}) * {y}"
        intro = f"intro {x} {y}"
    return Draft(stmt, [intro, "ring"])


def _or_exists(rng: random.Random) -> Draft:
    x = rng.choice(("x", "n", "m"))
    k, w = rng.randint(2, 9), rng.randint(1, 12)
    good = f"∃ ({x} : ℕ), {_prod(rng, str(k), x)} = {k * w}"
    bad = f"∃ ({x} : ℕ), {_prod(rng, str(k), x)} = {k * w + rng.randint(1, k - 1)}"
    if rng.random() < 0.5:
        return Draft(f"({good}) ∨ ({bad})", ["left", f"use {w}", "norm_num"])
    return Draft(f"({bad}) ∨ ({good})", ["right", f"use {w}", "norm_num"])


def _exists_pair(rng: random.Random) -> Draft:
    p, q = rng.randint(1, 9), rng.randint(1, 9)
    x, y = rng.choice((("x", "y"), ("a", "b"), ("m", "n")))
    stmt = f"∃ ({x} {y} : ℕ), {x} + {y} = {p + q} ∧ {x} * {y} = {p * q} ∧ {x} ≤ {y}"
    p, q = min(p, q), max(p, q)
    return Draft(stmt, [f"use {p}", f"use {q}", "norm_num"])


# ---------------------------------------------------------------- level 3


def _forall_exists(rng: random.Random) -> Draft:
    n, m = rng.sample(("n", "m", "k", "a", "b", "x"), 2)
    c = rng.randint(0, 9)
    form = rng.randrange(3)
    if form == 0:
        stmt, witness = f"∀ ({n} : ℕ), ∃ ({m} : ℕ), {m} > {n} + {c}", f"{n} + {c + 1}"
    elif form == 1:
        d = rng.randint(c, c + 9)
        stmt, witness = f"∀ ({n} : ℕ), ∃ ({m} : ℕ), {m} + {c} = {n} + {d}", f"{n} + {d - c}"
    else:
        k = rng.randint(2, 5)
        stmt, witness = f"∀ ({n} : ℕ), ∃ ({m} : ℕ), {m} ≥ {k} * {n} ∧ {m} % {k} = 0", f"{k} * {n}"
    return Draft(stmt, [f"intro {n}", f"use {witness}", "omega"])


def _forall_exists_square(rng: random.Random) -> Draft:
    n, m = rng.sample(("n", "m", "k", "a", "b", "x"), 2)
    c = rng.randint(0, 9)
    stmt = f"∀ ({n} : ℕ), ∃ ({m} : ℕ), {m} > {n} * {n} + {c}"
    return Draft(stmt, [f"intro {n}", f"use {n} * {n} + {c + 1}", "omega"])


def _rw_square(rng: random.Random) -> Draft:
    x, y = _names(rng, 2)
    c, d = rng.randint(1, 9), rng.randint(0, 9)
    h = rng.choice(_HYP)
    stmt = f"∀ ({x} {y} : {_ty(rng)}), {x} = {y} + {c} → {x} * {x} + {d} = ({y} + {c}) ^ 2 + {d}"
    return Draft(stmt, [f"intro {x} {y} {h}", f"rw [{h}]", "ring"])


def _and_exists_fact(rng: random.Random) -> Draft:
    x = rng.choice(("x", "n", "m"))
    w, a, b = rng.randint(2, 12), rng.randint(2, 20), rng.randint(2, 20)
    ex = f"∃ ({x} : ℕ), {x} * {x} = {w * w}"
    fact = f"{a} * {b} = {a * b}"
    if rng.random() < 0.5:
        return Draft(f"({ex}) ∧ {fact}", ["constructor", f"use {w}", "norm_num"])
    return Draft(f"{fact} ∧ ({ex})", ["constructor", "norm_num", f"use {w}"])


def _lt_exists_gap(rng: random.Random) -> Draft:
    x, y, d = rng.sample(("a", "b", "x", "y", "n", "m", "d"), 3)
    form = rng.randrange(2)
    if form == 0:
        stmt = f"∀ ({x} {y} : ℕ), {x} < {y} → ∃ ({d} : ℕ), {y} = {x} + {d} + 1"
        witness = f"{y} - {x} - 1"
    else:
        stmt = f"∀ ({x} {y} : ℕ), {x} ≤ {y} → ∃ ({d} : ℕ), {x} + {d} = {y}"
        witness = f"{y} - {x}"
    return Draft(stmt, [f"intro {x} {y} h", f"use {witness}", "omega"])


def _mod_exists(rng: random.Random) -> Draft:
    n, k = rng.sample(("n", "m", "k", "a", "q"), 2)
    c = rng.randint(2, 9)
    r = rng.randint(0, c - 1)
    return Draft(f"∀ ({n} : ℕ), {n} % {c} = {r} → ∃ ({k} : ℕ), {n} = {c} * {k} + {r}", [f"intro {n} h", f"use {n} / {c}", "omega"])


# ---------------------------------------------------------------- level 4


def _and_hyp_rw(rng: random.Random) -> Draft:
    a, b = _names(rng, 2)
    c = rng.randint(2, 12)
    d = rng.randint(0, 9)
    stmt = f"∀ ({a} {b} : {_ty(rng)}), {a} = {c} ∧ {b} = {a} * {a} + {d} → {b} = {c * c + d}"
    return Draft(stmt, [f"intro {a} {b} h", "obtain ⟨h₁, h₂⟩ := h", "rw [h₂, h₁]", "norm_num"])


def _exists_from_exists(rng: random.Random) -> Draft:
    n, k, m = rng.sample(("n", "m", "k", "j", "t"), 3)
    c, j = rng.randint(2, 7), rng.randint(1, 5)
    stmt = f"∀ ({n} : ℕ), (∃ ({k} : ℕ), {n} = {c} * {k}) → ∃ ({m} : ℕ), {n} + {c * j} = {c} * {m}"
    return Draft(stmt, [f"intro {n} h", f"obtain ⟨{k}, h{k}⟩ := h", f"use {k} + {j}", "omega"])


def _and_hyp_rw2(rng: random.Random) -> Draft:
    x, y = _names(rng, 2)
    c, d = rng.randint(1, 9), rng.randint(1, 9)
    stmt = f"∀ ({x} {y} : {_ty(rng)}), {x} = {y} + {c} ∧ {y} = {d} → {x} * {x} = {(c + d) ** 2}"
    return Draft(stmt, [f"intro {x} {y} h", "obtain ⟨h₁, h₂⟩ := h", "rw [h₁]", "rw [h₂]", "norm_num"])


def _exists_from_and(rng: random.Random) -> Draft:
    a, b, d = rng.sample(("a", "b", "x", "y", "d", "k"), 3)
    c = rng.randint(5, 30)
    stmt = f"∀ ({a} {b} : ℕ), {a} < {b} ∧ {b} < {c} → ∃ ({d} : ℕ), {a} + {d} = {b} ∧ {d} < {c}"
    return Draft(stmt, [f"intro {a} {b} h", "obtain ⟨h₁, h₂⟩ := h", f"use {b} - {a}", "omega"])


def _exists_two_facts(rng: random.Random) -> Draft:
    n, m = rng.sample(("n", "m", "k", "a", "b"), 2)
    k = rng.randint(2, 5)
    stmt = f"∀ ({n} : ℕ), ∃ ({m} : ℕ), {m} > {n} ∧ {m} % {k} = 0"
    return Draft(stmt, [f"intro {n}", f"use {k} * {n} + {k}", "constructor", "omega", "omega"])


# ---------------------------------------------------------------- level 5


def _exists_mul_transfer(rng: random.Random) -> Draft:
    n, k, m = rng.sample(("n", "m", "k", "j", "t"), 3)
    c, d = rng.randint(2, 7), rng.randint(2, 9)
    stmt = f"∀ ({n} : ℕ), (∃ ({k} : ℕ), {n} = {c} * {k}) → ∃ ({m} : ℕ), {n} * {d} = {c} * {m}"
    return Draft(stmt, [f"intro {n} h", f"obtain ⟨{k}, h{k}⟩ := h", f"use {k} * {d}", f"rw [h{k}]", "ring"])


def _exists_lower(rng: random.Random) -> Draft:
    n, k = rng.sample(("n", "m", "k", "a", "b"), 2)
    c = rng.randint(1, 9)
    stmt = f"∀ ({n} : ℕ), {c} ≤ {n} → ∃ ({k} : ℕ), {n} = {k} + {c} ∧ {k} ≤ {n}"
    return Draft(stmt, [f"intro {n} h", f"use {n} - {c}", "constructor", "omega", "omega"])


def _or_cases(rng: random.Random) -> Draft:
    n = rng.choice(("n", "x", "m"))
    a, b = sorted(rng.sample(range(12), 2))
    bound = b * b + rng.randint(0, 10)
    stmt = f"∀ ({n} : ℕ), {n} = {a} ∨ {n} = {b} → {n} * {n} ≤ {bound}"
    return Draft(stmt, [f"intro {n} h", "rcases h with h | h", "rw [h]", "norm_num", "rw [h]", "norm_num"])


def _exists_square_transfer(rng: random.Random) -> Draft:
    x, k, m = rng.sample(("x", "n", "k", "j", "m"), 3)
    c = rng.randint(2, 6)
    stmt = f"∀ ({x} : ℕ), (∃ ({k} : ℕ), {x} = {k} * {k}) → ∃ ({m} : ℕ), {x} * {c * c} = {m} * {m}"
    return Draft(stmt, [f"intro {x} h", f"obtain ⟨{k}, h{k}⟩ := h", f"use {c} * {k}", f"rw [h{k}]", "ring"])


# ---------------------------------------------------------------- level 6


def _exists_split(rng: random.Random) -> Draft:
    a, b, c = rng.choice((("n", "a", "b"), ("m", "x", "y"), ("k", "p", "q"), ("a", "b", "c")))
    form = rng.randrange(2)
    if form == 0:
        stmt = f"∀ ({a} : ℕ), ∃ ({b} {c} : ℕ), {b} + {c} = {a} ∧ {b} ≤ {c}"
        wb, wc = f"{a} / 2", f"{a} - {a} / 2"
    else:
        k = rng.randint(2, 5)
        stmt = f"∀ ({a} : ℕ), ∃ ({b} {c} : ℕ), {a} = {k} * {b} + {c} ∧ {c} < {k}"
        wb, wc = f"{a} / {k}", f"{a} % {k}"
    return Draft(stmt, [f"intro {a}", f"use {wb}", f"use {wc}", "constructor", "omega", "omega"])




def _iff_exists(rng: random.Random) -> Draft:
    n, k = rng.sample(("n", "m", "a", "b"), 2)
    c = rng.randint(1, 9)
    stmt = f"∀ ({n} : ℕ), (∃ ({k} : ℕ), {n} = {k} + {c}) ↔ {c} ≤ {n}"
    return Draft(
        stmt,
        [f"intro {n}", "constructor", "intro h", f"obtain ⟨{k}, h{k}⟩ := h", "omega", "intro h", f"use {n} - {c}", "omega"],
    )


def _and_or_hyp(rng: random.Random) -> Draft:
    n = rng.choice(("n", "x", "m"))
    a, b = sorted(rng.sample(range(1, 10), 2))
    bound = 2 * b * b + rng.randint(0, 5)
    stmt = f"∀ ({n} : ℕ), ({n} = {a} ∨ {n} = {b}) ∧ {n} > 0 → {n} * {n} + {n} * {n} ≤ {bound}"
    return Draft(
        stmt,
        [f"intro {n} h", "obtain ⟨h₁, h₂⟩ := h", "rcases h₁ with h | h", "rw [h]", "norm_num", "rw [h]", "norm_num"],
    )


def _exists_sum_split(rng: random.Random) -> Draft:
    n, k = rng.sample(("n", "m", "a", "b"), 2)
    c, d = rng.randint(2, 6), rng.randint(1, 9)
    stmt = f"∀ ({n} : ℕ), (∃ ({k} : ℕ), {n} = {c} * {k} + {d}) → {n} ≥ {d} ∧ {n} % {c} = {d % c}"
    return Draft(stmt, [f"intro {n} h", f"obtain ⟨{k}, h{k}⟩ := h", "constructor", "omega", "omega"])


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("numeral_eval", 1, _numeral_eval),
        Family("linear_forall", 2, _linear_forall),
        Family("exists_witness", 1, _exists_witness),
        Family("exists_int", 1, _exists_int),
        Family("intro_ring", 2, _intro_ring),
        Family("or_exists", 2, _or_exists),
        Family("exists_pair", 2, _exists_pair),
        Family("forall_exists", 3, _forall_exists),
        Family("forall_exists_square", 3, _forall_exists_square),
        Family("rw_square", 3, _rw_square),
        Family("and_exists_fact", 3, _and_exists_fact),
        Family("lt_exists_gap", 3, _lt_exists_gap),
        Family("mod_exists", 3, _mod_exists),
        Family("and_hyp_rw", 3, _and_hyp_rw),
        Family("exists_from_exists", 4, _exists_from_exists),
        Family("and_hyp_rw2", 4, _and_hyp_rw2),
        Family("exists_from_and", 4, _exists_from_and),
        Family("exists_two_facts", 5, _exists_two_facts),
        Family("exists_mul_transfer", 5, _exists_mul_transfer),
        Family("exists_lower", 5, _exists_lower),
        Family("exists_sum_split", 5, _exists_sum_split),
        Family("exists_square_transfer", 5, _exists_square_transfer),
        Family("exists_split", 6, _exists_split),
        Family("or_cases", 6, _or_cases),
        Family("iff_exists", 6, _iff_exists),
        Family("and_or_hyp", 6, _and_or_hyp),
    )
}


def families_by_level() -> dict[int, list[Family]]:
    """The families grouped by nominal level, each list in registry order."""
    levels: dict[int, list[Family]] = {}
    for family in FAMILIES.values():
        levels.setdefault(family.level, []).append(family)
    return levels
