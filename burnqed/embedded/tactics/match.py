"""The tactic ``match e with | pat => tacs …`` on proofs of ∨ / ∧ / ∃ / ↔ (issue 37).

Lean (lean4 ``src/Lean/Elab/Tactic/Match.lean``, ``mkAuxiliaryMatchTerm``) elaborates
``refine match e with | pat => ?rhs …`` and runs ``case rhs => tacs`` on each alternative, so
each alternative's tactics must close its goal; the match compiler (``src/Lean/Meta/Match``)
reports an uncovered case ("missing cases") and an alternative no case reaches ("redundant
alternative") as errors. The patterns read here are names, ``_``, ``Or.inl p`` / ``Or.inr p``
(also ``.inl`` / ``.inr``), and ``⟨p, …⟩`` / ``And.intro`` / ``Exists.intro`` of names (one
alternative); they are compiled to one rcases pattern, whose goals are the alternatives'
goals in order (rcases_prop builds the kernel proof). The discriminant, a hypothesis or a
term, stays in the context, as in the term Lean elaborates. Anything else is refused.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.tactics.proofterm import TacticError, dvd_exists
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Pattern, Tac
from burnqed.embedded.tactics.basic import elab_in_goal, show
from burnqed.embedded.tactics.cases import rcases_prop
from burnqed.embedded.elab.expr import Binder, Conn, Rel, Term, mvars

__all__: list[str] = []

_INL, _INR = frozenset({"Or.inl", ".inl"}), frozenset({"Or.inr", ".inr"})
_TUPLE = frozenset({"And.intro", "Exists.intro", "Iff.intro", ".intro"})


def _strip(s: Syn) -> Syn:
    while s.kind == "paren":
        s = s.args[0]
    return s


def _ctor(s: Syn) -> tuple[str, tuple[Syn, ...]] | None:
    s = _strip(s)
    if s.kind == "app" and s.args[0].kind == "ident":
        return s.args[0].value, s.args[1:]
    return None


def _leaf(s: Syn) -> Pattern | None:
    """A pattern that binds the whole value: a name or ``_``."""
    s = _strip(s)
    if s.kind == "blank":
        return ("blank",)
    if s.kind == "ident" and "." not in s.value:
        return ("name", s.value)
    return None


def _product(s: Syn) -> Pattern:
    """``⟨p, …⟩`` / ``And.intro p q`` with name, ``_`` or nested product components."""
    s = _strip(s)
    leaf = _leaf(s)
    if leaf is not None:
        return leaf
    c = _ctor(s)
    items = s.args if s.kind == "anon" else c[1] if c is not None and c[0] in _TUPLE else None
    if items is None:
        raise TacticError("match: unsupported pattern in this fragment")
    return ("tuple", [_product(i) for i in items])


def _compile(goal: Goal, prop: Term, alts: list[tuple[Syn, int]], used: set[int]) -> tuple[Pattern, list[int]]:
    """The rcases pattern of the alternatives ``alts`` (pattern, index) at a value of ``prop``,
    and the alternative each of its goals runs (in rcases' goal order)."""
    if not alts:
        raise TacticError(f"missing cases: no alternative matches a proof of\n  {show(goal, prop)}")
    pat, idx = alts[0]
    leaf = _leaf(pat)
    if leaf is not None:
        used.add(idx)
        return leaf, [idx]
    p = dvd_exists(prop) if isinstance(prop, Rel) and prop.op == "∣" else prop
    c = _ctor(pat)
    if c is not None and c[0] in _INL | _INR:
        if not (isinstance(p, Conn) and p.op == "∨"):
            raise TacticError(f"match: the pattern does not match the type\n  {show(goal, prop)}")
        left: list[tuple[Syn, int]] = []
        right: list[tuple[Syn, int]] = []
        for a, i in alts:
            ac = _ctor(a)
            if ac is None or len(ac[1]) != 1 or ac[0] not in _INL | _INR:
                # a name after constructor patterns binds the whole disjunction again
                raise TacticError("match: a pattern mixing constructors and names is not supported in this fragment")
            (left if ac[0] in _INL else right).append((ac[1][0], i))
        lp, li = _compile(goal, p.args[0], left, used)
        rp, ri = _compile(goal, p.args[1], right, used)
        return ("alts", [lp, rp]), li + ri
    if (isinstance(p, Conn) and p.op in ("∧", "↔")) or (isinstance(p, Binder) and p.q == "∃"):
        used.add(idx)
        return _product(pat), [idx]
    raise TacticError(f"match: unsupported pattern for\n  {show(goal, prop)}")


@register("match")
def _match(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    s: Syn = tac.data["term"]
    alts: list[tuple[Syn, Any, int]] = tac.data["alts"]
    h = goal.hyp_named(s.value) if s.kind == "ident" else None
    if h is not None and not isinstance(h.ty, str):
        prop, pf = h.ty, k.Hyp(h.uid)
    else:
        prop, pe = elab_in_goal(eng, goal, s, None)
        if mvars(prop):
            raise TacticError("don't know how to synthesize the implicit arguments of the term")
        pf = pe.proof() if eng.kernel_on else k.Sorry()
    used: set[int] = set()
    pat, order = _compile(goal, prop, [(a[0], i) for i, a in enumerate(alts)], used)
    for i in range(len(alts)):
        if i not in used:
            raise TacticError("redundant alternative")
    base = goal.with_(eng.fresh())
    goals, top = rcases_prop(eng, base, prop, pat, "h", pf)
    if len(goals) != len(order):  # a False case closed by rcases: Lean's match needs no alternative there
        raise TacticError("match: unsupported case split in this fragment")
    eng.justify(goal, top)
    for g, i in zip(goals, order, strict=True):
        left = eng.run(alts[i][1], [g.with_(g.uid, tag=None)])
        if left:
            raise TacticError("unsolved goals\n" + render(left))
    return []
