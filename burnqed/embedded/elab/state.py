"""Goals, hypotheses and proof states of the embedded checker, and their wire form.

A ``Goal`` is immutable: hypotheses in order (value variables of type Nat/Int/Prop and
proofs of propositions) and a target. A ``ProofState`` lists the visible goals and, for
the root flags of goal.print, every goal of the proof tree still unassigned
(``open_goals``: dormant goals included when automaticMode is off) and whether a sorry was
used on the way from the root.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from burnqed.embedded.elab.elaborate import ScopeEntry
from burnqed.embedded.elab.expr import FVar, Term, pp
from burnqed.lean.protocol import Expression, Variable
from burnqed.lean.protocol import Goal as WireGoal

__all__ = ["Goal", "Hyp", "ProofState", "display_names", "goal_scope", "to_wire"]


@dataclass(frozen=True, slots=True)
class Hyp:
    """A local: a variable (``ty`` is "Nat", "Int" or "Prop") or a proof (``ty`` is a term)."""

    uid: int
    user: str
    ty: str | Term
    hygienic: bool = False
    # Lean's statement still holds a beta-redex this one shows reduced (``have h := congr_arg
    # (fun x => …) e``): simp's first pass at it makes progress (tactics/hypotheses.py)
    unreduced: bool = False

    @property
    def is_proof(self) -> bool:
        """A hypothesis proving a proposition (not a variable)."""
        return not isinstance(self.ty, str)

    @property
    def fvar(self) -> FVar:
        """The term referring to this variable."""
        return FVar(self.uid, self.ty if isinstance(self.ty, str) else "Proof")


@dataclass(frozen=True, slots=True)
class Goal:
    """One goal: hypotheses, target and optional case tag (userName)."""

    uid: int
    hyps: tuple[Hyp, ...]
    target: Term
    tag: str | None = None

    def hyp_named(self, name: str) -> Hyp | None:
        """The accessible hypothesis a user name refers to (the latest one)."""
        for h in reversed(self.hyps):
            if h.user == name and not h.hygienic:
                return h
        return None

    def with_(
        self,
        uid: int,
        hyps: tuple[Hyp, ...] | None = None,
        target: Term | None = None,
        tag: str | None = "",
    ) -> Goal:
        """A copy under a new id with some parts replaced (tag "" keeps the old one)."""
        return Goal(
            uid,
            self.hyps if hyps is None else hyps,
            self.target if target is None else target,
            self.tag if tag == "" else tag,
        )


@dataclass(frozen=True, slots=True)
class ProofState:
    """A state: visible goals, all unassigned goals of the tree, and the sorry flag."""

    goals: tuple[Goal, ...]
    open_goals: frozenset[int] = field(default_factory=frozenset)
    has_sorry: bool = False
    root: Goal | None = None
    steps: Mapping[int, Any] = field(default_factory=dict)


def display_names(goal: Goal) -> dict[int, str]:
    """How each hypothesis prints: hygienic and shadowed names get ``✝``."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for h in reversed(goal.hyps):
        if h.hygienic or h.user in seen:
            names[h.uid] = h.user + "✝"
        else:
            names[h.uid] = h.user
            seen.add(h.user)
    return names


def goal_scope(goal: Goal) -> dict[str, ScopeEntry]:
    """Names usable in terms typed at this goal."""
    scope: dict[str, ScopeEntry] = {}
    for h in goal.hyps:
        if h.hygienic:
            continue
        if isinstance(h.ty, str):
            scope[h.user] = ("val", FVar(h.uid, h.ty))
        else:
            scope[h.user] = ("proof", h.ty)
    return scope


def to_wire(goal: Goal) -> WireGoal:
    """The protocol Goal object, printed the way Lean prints it."""
    names = display_names(goal)
    variables = []
    for h in goal.hyps:
        shown = names[h.uid]
        inaccessible = shown.endswith("✝")
        ty = h.ty if isinstance(h.ty, str) else pp(h.ty, names)
        variables.append(
            Variable(
                name=f"_uniq.{h.uid}",
                user_name=shown if h.hygienic else h.user,
                is_inaccessible=inaccessible,
                type=Expression(pp=ty),
            )
        )
    return WireGoal(
        name=f"_uniq.{goal.uid}",
        user_name=goal.tag,
        fragment="tactic",
        target=Expression(pp=pp(goal.target, names)),
        vars=variables,
    )
