"""``ring_nf`` (goal and ``at h``) leaving the normal form, and ``ring`` falling back to it
(issue 37).

Mathlib (``Mathlib/Tactic/Ring/RingNF.lean``): ``macro "ring" : tactic => `(tactic| first |
ring1 | try_this ring_nf)``, so a ``ring`` that cannot close an equation rewrites the goal to
its ring normal form and leaves it (with a "Try this: ring_nf" suggestion); ``ring_nf``
rewrites every ring expression of the goal or hypothesis to its normal form, closes an
equation whose sides become equal, and fails when nothing changes ("ring_nf failed").

Here the sides of a relation between numbers (``= ≠ < ≤ > ≥``) are normalized: the
polynomial (decide/polynomials.py, atoms as there) printed with monomials by ascending degree, the atoms
in their order of first appearance and the coefficient last (``x * 2``), as Mathlib prints
its normal form. Each side is replaced by a rewrite with ``side = normal form``, an equation
the kernel's ``ring`` rule checks. Where the result differs from Mathlib's printing the
checker may refuse a later step that depends on the exact form, never accept more: the new
goal is the old one up to a kernel-checked identity. Refused here (Lean may do more): other
propositions (∧, ¬, …), an order relation whose sides become equal, a hypothesis that
becomes trivial, atoms of variable exponents.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.tactics import auto as tactics_auto
from burnqed.embedded.elab.evaluate import TooLarge
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.decide.certify import internal_uid
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.decide.polynomials import _lib, estimate_terms, MAX_TERMS, to_sympy
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.elab.expr import FVar, Num, Op, Rel, Term, alpha_key, subterms, type_of

__all__ = ["normal_form"]

_NUMBER = ("Nat", "Int")


def normal_form(t: Term, max_expand: int) -> Term | None:
    """``t`` as Mathlib's ring normal form prints it, or None when it cannot be read back."""
    ty = type_of(t)
    if ty not in _NUMBER or estimate_terms(t, max_expand) > MAX_TERMS:
        return None
    sp = _lib()
    atoms: dict[object, Any] = {}
    try:
        e = sp.expand(to_sympy(t, atoms, max_expand))
    except TooLarge:
        return None
    back: dict[Any, Term] = {}
    for s in subterms(t):
        sym = atoms.get(alpha_key(s))
        if sym is not None and sym not in back:
            back[sym] = s if type_of(s) == ty else Op("cast", (s,), ty)
    syms = sorted(atoms.values(), key=lambda s: int(str(s)[1:]))
    if any(s not in back for s in syms):
        return None  # an atom of a variable exponent: no term to print it
    if not syms:
        return Num(int(e), ty) if e.is_Integer and (ty == "Int" or int(e) >= 0) else None
    poly = sp.Poly(e, *syms)
    monos = sorted(poly.terms(), key=lambda mc: (sum(mc[0]), tuple(-x for x in mc[0])))
    out: Term | None = None
    for exps, c in monos:
        if not c.is_Integer or (ty == "Nat" and c < 0):
            return None
        c = int(c)
        m: Term | None = None
        for sym, x in zip(syms, exps, strict=True):
            if x:
                f = back[sym] if x == 1 else Op("^", (back[sym], Num(x, "Nat")), ty)
                m = f if m is None else Op("*", (m, f), ty)
        mag = abs(c)
        m = Num(mag, ty) if m is None else m if mag == 1 else Op("*", (m, Num(mag, ty)), ty)
        if out is None:
            out = m if c > 0 else Op("neg", (m,), ty)
        elif c > 0:
            out = Op("+", (out, m), ty)
        elif ty == "Int":
            out = Op("-", (out, m), ty)
        else:
            return None
    return out if out is not None else Num(0, ty)


def _sides(eng: Engine, prop: Term) -> tuple[Term, Term] | None:
    """The normalized sides of a relation between numbers (None: not one)."""
    if not (isinstance(prop, Rel) and prop.op in ("=", "≠", "<", "≤", ">", "≥") and type_of(prop.lhs) in _NUMBER):
        return None
    cap = eng.ctx.config.max_expand_exponent
    lhs, rhs = normal_form(prop.lhs, cap), normal_form(prop.rhs, cap)
    if lhs is None or rhs is None:
        return None
    return lhs, rhs


def _steps(prop: Rel, lhs: Term, rhs: Term) -> list[tuple[k.Proof, k.Term, Term]]:
    """The rewrites of ``prop``'s sides: (proof of side = normal form, motive, result)."""
    out = []
    cur = prop
    for side in (0, 1):
        old, new = (cur.lhs, lhs) if side == 0 else (cur.rhs, rhs)
        if old == new:
            continue
        z = FVar(internal_uid(), type_of(old))
        shape = Rel(cur.op, z, cur.rhs) if side == 0 else Rel(cur.op, cur.lhs, z)
        eq = k.Annot(k.Ring(), kterm(Rel("=", old, new)))
        cur = Rel(cur.op, new, cur.rhs) if side == 0 else Rel(cur.op, cur.lhs, new)
        out.append((eq, k.abstract(kterm(shape), k.Free(z.uid)), cur))
    return out


def _ring_nf_goal(eng: Engine, goal: Goal) -> list[Goal]:
    t = goal.target
    sides = _sides(eng, t)
    if sides is None:
        raise TacticError("ring_nf failed: the embedded checker normalizes only a relation between numbers")
    lhs, rhs = sides
    assert isinstance(t, Rel)
    if lhs == t.lhs and rhs == t.rhs:
        raise TacticError("ring_nf failed")
    if lhs == rhs:
        if t.op != "=":
            raise TacticError("ring_nf: an order relation between equal sides is not closed by the embedded checker")
        eng.justify(goal, k.Ring())
        return []
    steps = _steps(t, lhs, rhs)
    child = goal.with_(eng.fresh(), target=steps[-1][2])
    body = hole(child)
    for eq, motive, _ in reversed(steps):
        body = k.Rewrite(eq, motive, False, body)
    eng.justify(goal, body)
    return [child]


def _ring_nf_hyp(eng: Engine, goal: Goal, name: str) -> Goal:
    h = goal.hyp_named(name)
    if h is None or isinstance(h.ty, str):
        raise TacticError(f"unknown hypothesis '{name}'")
    sides = _sides(eng, h.ty)
    if sides is None:
        raise TacticError("ring_nf failed: the embedded checker normalizes only a relation between numbers")
    lhs, rhs = sides
    assert isinstance(h.ty, Rel)
    if lhs == h.ty.lhs and rhs == h.ty.rhs:
        raise TacticError("ring_nf failed")
    if lhs == rhs:
        raise TacticError("ring_nf: a hypothesis that becomes trivial is not supported by the embedded checker")
    got: k.Proof = k.Hyp(h.uid)
    for eq, motive, cur in _steps(h.ty, lhs, rhs):
        # motive[new] is the next statement; rewriting it back gives the previous one
        got = k.Annot(k.Rewrite(eq, motive, True, got), kterm(cur))
    new = Hyp(eng.fresh(), h.user, Rel(h.ty.op, lhs, rhs), h.hygienic)
    child = goal.with_(eng.fresh(), hyps=tuple(new if x.uid == h.uid else x for x in goal.hyps))
    eng.justify(goal, k.Have(new.uid, kterm(new.ty), got, hole(child)))
    return child


@register("ring_nf")
def _ring_nf(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    locs = tac.data.get("at") or ["⊢"]
    if "*" in locs:
        raise TacticError("ring_nf at * is not supported by the embedded checker")
    for name in locs:
        if name != "⊢":
            goal = _ring_nf_hyp(eng, goal, name)
    if "⊢" in locs:
        return _ring_nf_goal(eng, goal)
    return [goal]


_RING1 = tactics_auto._ring  # noqa: SLF001 - tactics_auto's ring is ring1 here: closes an equation or fails


@register("ring")
def _ring(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """``first | ring1 | try_this ring_nf`` (RingNF.lean's ``ring`` macro)."""
    try:
        return _RING1(eng, goal, tac)
    except TacticError as exc:
        if isinstance(exc.__cause__, TooLarge):
            # the checker's own size bound, not ring1 failing: Lean's ring_nf would go on
            # where the checker cannot follow, so it refuses and names the bound
            raise
        return _ring_nf_goal(eng, goal)
