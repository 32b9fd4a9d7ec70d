"""Products of equalities with monomials (the kernel's ``mul_eq`` step), for certificates that
substitute an equation inside non-linear terms.

``simp [h]`` / ``simp_all`` with ``h : a = x + 1`` rewrite ``a * b = 72`` into
``(x + 1) * b = 72``: Lean proves that step by congruence, the kernel by arithmetic. The
linear search sees ``a * b`` and ``x * b`` as unrelated monomials; the difference of the two
sides is ``(a - x - 1) * b``, an element of the ideal of the equations. ``substitutions`` adds,
for an equation with a degree-one atom ``x`` and each monomial ``x · m`` of the facts, the
product of the equation with ``m`` (as ``linear_combination`` / Polyrith certificates multiply
hypotheses by polynomial coefficients: Mathlib/Tactic/LinearCombination.lean), a few rounds deep,
so that a Farkas combination can substitute. Nothing here is trusted: the kernel recomputes
every product.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify_int import lins

__all__ = ["substitutions"]


def _monomials(fs: k.FactSet) -> list[k.Monomial]:
    out: dict[k.Monomial, None] = {}

    def visit(f: Any) -> None:
        if isinstance(f, k.Lin):
            for m in f.poly:
                if sum(e for _, e in m) >= 2:
                    out.setdefault(m, None)
        elif isinstance(f, k.Disj):
            for case in f.cases:
                for g in case:
                    visit(g)

    for f in fs.facts:
        visit(f)
    return list(out)


def _divide(m: k.Monomial, x: k.Term) -> k.Monomial | None:
    """``m / x`` when ``x`` divides ``m`` (None otherwise, or when the quotient is 1)."""
    if not any(t == x for t, _ in m):
        return None
    out = tuple((t, e - 1 if t == x else e) for t, e in m)
    out = tuple((t, e) for t, e in out if e > 0)
    return out or None


def substitutions(fs: k.FactSet, rounds: int = 2, limit: int = 48) -> list[tuple[Any, ...]]:
    """Add ``eq · m = 0`` facts to ``fs`` (in place) and return their certificate steps
    (``("mul_eq", index, monomial polynomial)``, in the order added)."""
    steps: list[tuple[Any, ...]] = []
    done: set[tuple[int, k.Monomial]] = set()
    for _ in range(rounds):
        eqs = [(i, f) for i, f in lins(fs) if f.eq]
        monos = _monomials(fs)
        added = False
        for i, f in eqs:
            solvable = [m[0][0] for m in f.poly if len(m) == 1 and m[0][1] == 1]
            for x in solvable:
                for m in monos:
                    cof = _divide(m, x)
                    if cof is None or (i, cof) in done:
                        continue
                    done.add((i, cof))
                    q = k.Poly({cof: k.Poly.const(1)[()]})
                    steps.append(("mul_eq", i, q))
                    fs.add(k.Lin(f.poly.mul(q), True))
                    added = True
                    if len(steps) >= limit:
                        return steps
        if not added:
            break
    return steps
