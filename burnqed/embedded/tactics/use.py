"""Mathlib's ``use e₁, e₂, …`` (issue 37): the arguments fill the explicit fields of
one-constructor types in order, proofs included (``use n + 1, by linarith``).

Mathlib ``Mathlib/Tactic/Use.lean`` (``useLoop``, ``applyTheConstructor``, ``runUse``): the
goals to fill start as the main goal; for each argument, when the first goal is the last one
and its type (weak head normal) is an inductive type with one constructor, the constructor is
applied and its explicit fields become the goals (the same argument goes on); otherwise the
argument refines the first goal, ``refine (e : T)``. No goal left for an argument is "too many
arguments supplied to `use`". The fields left are then tried with ``try with_reducible
use_discharger`` (tactics_basic.discharge_proof); the goals are those fields, then the new goals
of the refinements.

One-constructor types of the fragment: ``∃ x, P`` (``Exists.intro w h``), ``a ∣ b`` on ℕ/ℤ
(its instance unfolds to ``∃ c, b = a * c``), ``P ∧ Q`` (``And.intro``), ``P ↔ Q``
(``Iff.intro``), ``True`` (``True.intro``, no field). ℕ, ℤ, ``∨``, ``False``, ``¬``, ``→`` and
ℕ's ``≤ <`` (``Nat.le`` has two constructors) are refined. Refused, where Lean's answer depends
on unfolding the checker does not do: an argument for an equation as the last goal (``Eq.refl``
has no field, so Lean applies it when the sides are definitionally equal and then has no goal
for the argument) and for an order relation on ℤ (``Int.NonNeg`` has one constructor).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.tactics.proofterm import TacticError, dvd_exists, elab_witness
from burnqed.embedded.elab.state import Goal, goal_scope
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import discharge_proof, elab_in_goal
from burnqed.embedded.elab.expr import Binder, Conn, Const, Rel, Term, instantiate, type_of

__all__: list[str] = []


@dataclass(eq=False)
class _Field:
    """A goal of ``use``: a value of type ``ty`` ("Nat"/"Int"/"Prop" witness) or a proof of ``prop``."""

    ty: str | None = None
    prop: Term | None = None
    value: Term | None = None
    proof: k.Proof | None = None
    ctor: type[k.ExistsIntro | k.DvdIntro | k.AndIntro | k.IffIntro | k.TrueIntro] | None = None  # its kernel rule
    kids: list[_Field] = field(default_factory=list)
    binder: Binder | None = None  # an ∃'s body, instantiated once the witness is known


def _constructor(f: _Field) -> bool:
    """Apply the one constructor of ``f``'s type, if it has one (``applyTheConstructor``)."""
    t = f.prop
    if t is None:
        return False  # ℕ, ℤ: two constructors each; a Prop witness: not an inductive here
    rule: type[k.ExistsIntro | k.DvdIntro] = k.ExistsIntro
    if isinstance(t, Rel) and t.op == "∣":
        t, rule = dvd_exists(t), k.DvdIntro
    if isinstance(t, Binder) and t.q == "∃":
        f.ctor = rule
        f.kids = [_Field(ty=t.ty), _Field(binder=t)]
        return True
    if isinstance(t, Conn) and t.op in ("∧", "↔"):
        f.ctor = k.AndIntro if t.op == "∧" else k.IffIntro
        if t.op == "∧":
            f.kids = [_Field(prop=t.args[0]), _Field(prop=t.args[1])]
        else:
            a, b = t.args
            f.kids = [_Field(prop=Conn("→", (a, b))), _Field(prop=Conn("→", (b, a)))]
        return True
    if t == Const("True"):
        f.ctor = k.TrueIntro
        return True
    if isinstance(t, Rel) and t.op == "=":
        raise TacticError("use: an argument for an equation is not supported by the embedded checker")
    if isinstance(t, Rel) and t.op in ("<", "≤", ">", "≥") and type_of(t.lhs) == "Int":
        raise TacticError("use: an argument for an order relation on ℤ is not supported by the embedded checker")
    return False


def _build(f: _Field) -> k.Proof:
    if f.ctor is k.ExistsIntro or f.ctor is k.DvdIntro:
        w, h = f.kids
        assert w.value is not None
        return f.ctor(kterm(w.value), _build(h))
    if f.ctor is k.AndIntro or f.ctor is k.IffIntro:
        return f.ctor(_build(f.kids[0]), _build(f.kids[1]))
    if f.ctor is k.TrueIntro:
        return k.TrueIntro()
    assert f.proof is not None
    return f.proof


@register("use")
def _use(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    scope = goal_scope(goal)
    root = _Field(prop=goal.target)
    gs = [root]
    acc: list[Goal] = []
    args = list(tac.data["terms"])
    while args:
        if not gs:
            raise TacticError("too many arguments supplied to `use`")
        g, rest = gs[0], gs[1:]
        if not rest and _constructor(g):
            gs = g.kids + rest
            continue
        arg = args.pop(0)
        if g.prop is None:
            assert g.ty is not None
            g.value = elab_witness(arg, scope, g.ty)
            if rest and rest[0].binder is not None:  # the ∃'s body at the witness
                b = rest[0].binder
                rest[0].prop = instantiate(b.body, b.name, g.value)
        else:
            _, pe = elab_in_goal(eng, goal, arg, g.prop, holes=True)
            g.proof = pe.proof() if eng.kernel_on else k.Sorry()
            acc.extend(pe.new_goals)
        gs = rest
    left: list[Goal] = []
    for g in gs:
        if g.prop is None:
            raise TacticError("use: a value left without an argument is not supported by the embedded checker")
        new = goal.with_(eng.fresh(), target=g.prop)
        closer = discharge_proof(new, reducible=True)
        if closer is not None:
            g.proof = closer
        else:
            g.proof = hole(new)
            left.append(new)
    if eng.kernel_on:
        eng.justify(goal, _build(root))
    return left + acc
