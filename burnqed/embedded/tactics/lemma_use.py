"""Rules from INSTANCE_LEMMAS (elab/lemmas.py): their general statement has no kernel proof, so
each use is proved as the instance it is, by an arithmetic certificate in the goal's context
(issue 37). A statement copied wrong can only make the rewrite fail."""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import kterm, sequent
from burnqed.embedded.decide.certify import Budget, prove_fact
from burnqed.embedded.decide.certify_powmod import prove_mod
from burnqed.embedded.tactics.interpreter import Engine
from burnqed.embedded.tactics.proofterm import TacticError, instantiate_mvars
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.tactics.basic import show
from burnqed.embedded.elab.expr import Conn, Rel, Term, mvars

__all__ = ["PerUse", "instance_proof"]


class PerUse:
    """The builder of an INSTANCE_LEMMAS rule: its general statement has no kernel proof,
    so only an instance can be proved (``_instance_proof``); asked for the general proof, it
    fails the tactic."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> k.Proof:
        raise TacticError(f"the kernel has no proof of {self.name} in general, only of its instances")


def instance_proof(
    eng: Engine, goal: Goal, eq: Any, sub: dict[int, Term], premises: list[tuple[k.Proof, Term]], name: str
) -> k.Proof:
    """A kernel proof of one instance of an INSTANCE_LEMMAS equation, ``lhs = rhs`` (or ↔)
    with its arguments filled in, by an arithmetic certificate from the instance's premises
    in ``goal``'s context; the tactic fails when none is found."""
    lhs, rhs = instantiate_mvars(eq.lhs, sub), instantiate_mvars(eq.rhs, sub)
    if mvars(lhs) or mvars(rhs) or eq.kind not in ("eq", "iff"):
        raise TacticError("tactic 'rewrite' failed, could not synthesize the equation's arguments")
    l, r = kterm(lhs), kterm(rhs)
    target = k.App("↔" if eq.kind == "iff" else "=", (l, r), "Prop")
    facts = [(pf, kterm(t)) for pf, t in premises]
    seq = sequent(goal).to(target)
    budget = Budget.of(eng.ctx)
    pf = prove_fact(seq, facts, target, budget=budget)
    if pf is None:  # its own bounds: the linear search may have used up the first ones
        budget = Budget.of(eng.ctx)
        pf = prove_mod(seq, facts, target, budget=budget)
    if pf is None:
        raise TacticError(
            f"the kernel found no proof of this instance of {name}: "
            f"{show(goal, target_term(lhs, rhs, eq.kind))}{budget.note()}"
        )
    return k.Annot(pf, target)


def target_term(lhs: Term, rhs: Term, kind: str) -> Term:
    """``lhs = rhs`` or ``lhs ↔ rhs`` as an elaborator term (for messages)."""
    return Rel("=", lhs, rhs) if kind == "eq" else Conn("↔", (lhs, rhs))
