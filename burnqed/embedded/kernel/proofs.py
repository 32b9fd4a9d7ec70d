"""Proofs: one frozen dataclass per rule, and ``Proof`` the closed union of them.

A proof is untrusted input: the fields are typed for the callers and for readers, and the
kernel still refuses a node whose fields have the wrong values (``rules.check``). Context
ids (``uid``) name new context entries; the premises (``Proof`` fields) are checked in the
order they are declared. Families (where each is checked): natural deduction
(``logic``), equality and rewriting (``equality``), arithmetic and induction
(``numbers``); ``Hole`` and ``Sorry`` leave obligations (``rules``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from burnqed.embedded.kernel.terms import Term

__all__ = [
    "AndIntro",
    "AndLeft",
    "AndRight",
    "Annot",
    "Arith",
    "ByContra",
    "CongrBind",
    "Decide",
    "DvdElim",
    "DvdIntro",
    "Em",
    "ExistsElim",
    "ExistsIntro",
    "FalseElim",
    "Have",
    "Hole",
    "Hyp",
    "IffIntro",
    "IffMp",
    "IffMpr",
    "Inst",
    "Intro",
    "ModusPonens",
    "NatInd",
    "OrElim",
    "OrInl",
    "OrInr",
    "Proof",
    "Refl",
    "Rewrite",
    "Ring",
    "Sorry",
    "Subst",
    "TrueIntro",
]

# ---------------------------------------------------------------- obligations


@dataclass(frozen=True, slots=True)
class Hole:
    """The place of a child goal: the sequent is returned as an obligation for ``goal``."""

    goal: Any


@dataclass(frozen=True, slots=True)
class Sorry:
    """Nothing: the sequent is returned as an obligation that never counts (goal -1)."""


# ---------------------------------------------------------------- natural deduction (logic)


@dataclass(frozen=True, slots=True)
class Hyp:
    """The hypothesis with this context id."""

    uid: int


@dataclass(frozen=True, slots=True)
class Annot:
    """``proof`` checked against ``prop``, which it then proves (synthesis position)."""

    proof: Proof
    prop: Term


@dataclass(frozen=True, slots=True)
class ModusPonens:
    """From ``major : A → B`` and ``minor : A``, ``B``."""

    major: Proof
    minor: Proof


@dataclass(frozen=True, slots=True)
class Inst:
    """From ``major : ∀ x, P x``, ``P value`` (the value sort-checked)."""

    major: Proof
    value: Term


@dataclass(frozen=True, slots=True)
class AndLeft:
    """From ``major : A ∧ B``, ``A``."""

    major: Proof


@dataclass(frozen=True, slots=True)
class AndRight:
    """From ``major : A ∧ B``, ``B``."""

    major: Proof


@dataclass(frozen=True, slots=True)
class IffMp:
    """From ``major : A ↔ B``, ``A → B``."""

    major: Proof


@dataclass(frozen=True, slots=True)
class IffMpr:
    """From ``major : A ↔ B``, ``B → A``."""

    major: Proof


@dataclass(frozen=True, slots=True)
class Intro:
    """``∀ x, P x`` (``uid`` the new variable) or ``A → B`` (``uid`` the hypothesis ``A``)."""

    uid: int
    body: Proof


@dataclass(frozen=True, slots=True)
class TrueIntro:
    """``True``."""


@dataclass(frozen=True, slots=True)
class AndIntro:
    """``A ∧ B`` from both sides."""

    left: Proof
    right: Proof


@dataclass(frozen=True, slots=True)
class IffIntro:
    """``A ↔ B`` from ``A → B`` and ``B → A``."""

    mp: Proof
    mpr: Proof


@dataclass(frozen=True, slots=True)
class OrInl:
    """``A ∨ B`` from ``A``."""

    proof: Proof


@dataclass(frozen=True, slots=True)
class OrInr:
    """``A ∨ B`` from ``B``."""

    proof: Proof


@dataclass(frozen=True, slots=True)
class ExistsIntro:
    """``∃ x, P x`` from ``P witness`` (the witness sort-checked)."""

    witness: Term
    body: Proof


@dataclass(frozen=True, slots=True)
class OrElim:
    """From ``major : A ∨ B``: the target with hypothesis ``A`` (``left_uid``) and with ``B``."""

    major: Proof
    left_uid: int
    left: Proof
    right_uid: int
    right: Proof


@dataclass(frozen=True, slots=True)
class ExistsElim:
    """From ``major : ∃ x, P x``: the target with a new ``x`` (``var``) and ``P x`` (``hyp``)."""

    major: Proof
    var: int
    hyp: int
    body: Proof


@dataclass(frozen=True, slots=True)
class FalseElim:
    """Anything, from ``major : False``."""

    major: Proof


@dataclass(frozen=True, slots=True)
class Have:
    """``proof : prop``, then the target with hypothesis ``prop`` (``uid``)."""

    uid: int
    prop: Term
    proof: Proof
    body: Proof


@dataclass(frozen=True, slots=True)
class ByContra:
    """The target, from ``False`` under its negation (``uid``)."""

    uid: int
    body: Proof


@dataclass(frozen=True, slots=True)
class Em:
    """Excluded middle on ``prop``: the target with ``prop`` (``pos_uid``) and with ``¬prop``."""

    prop: Term
    pos_uid: int
    pos: Proof
    neg_uid: int
    neg: Proof


# ---------------------------------------------------------------- equality and rewriting


@dataclass(frozen=True, slots=True)
class Subst:
    """From ``eq : x = e`` (or ``e = x``), ``x`` a variable not in ``e``: ``x := e`` everywhere."""

    eq: Proof
    var: int
    body: Proof


@dataclass(frozen=True, slots=True)
class Rewrite:
    """From ``eq : l = r`` (or ``l ↔ r``; ``rev`` swaps them): the target is
    ``motive[l]``, prove ``motive[r]`` (``motive`` has one loose bound variable)."""

    eq: Proof
    motive: Term
    rev: bool
    body: Proof


@dataclass(frozen=True, slots=True)
class CongrBind:
    """``(Q x, A x) ↔ (Q x, B x)`` from ``∀ x, A x ↔ B x`` (``uid`` the new variable)."""

    uid: int
    body: Proof


@dataclass(frozen=True, slots=True)
class Refl:
    """``a = a``, ``a ≤ a``, ``A ↔ A``, arithmetic sides up to polynomial normal form."""


@dataclass(frozen=True, slots=True)
class Ring:
    """The same check as ``Refl``, named for what the tactic claims (a ring identity)."""


# ---------------------------------------------------------------- arithmetic and induction


@dataclass(frozen=True, slots=True)
class DvdIntro:
    """``a ∣ b`` from ``b = a * witness``."""

    witness: Term
    body: Proof


@dataclass(frozen=True, slots=True)
class DvdElim:
    """From ``major : a ∣ b``: the target with a new ``c`` (``var``) and ``b = a * c`` (``hyp``)."""

    major: Proof
    var: int
    hyp: int
    body: Proof


@dataclass(frozen=True, slots=True)
class NatInd:
    """Induction on the Nat variable ``var``: ``zero`` proves the case 0, ``step`` the case
    ``k + 1`` with a new ``k`` and hypothesis ``ih`` (the case ``k``)."""

    var: int
    zero: Proof
    k: int
    ih: int
    step: Proof


@dataclass(frozen=True, slots=True)
class Decide:
    """A closed proposition, evaluated exactly."""


@dataclass(frozen=True, slots=True)
class Arith:
    """``False`` from ``facts`` (proofs in synthesis position) refuted by ``cert`` (an
    untrusted refutation certificate, checked by ``arith.refute``)."""

    facts: tuple[Proof, ...]
    cert: Any


Proof = (
    Hole
    | Sorry
    | Hyp
    | Annot
    | ModusPonens
    | Inst
    | AndLeft
    | AndRight
    | IffMp
    | IffMpr
    | Intro
    | TrueIntro
    | AndIntro
    | IffIntro
    | OrInl
    | OrInr
    | ExistsIntro
    | OrElim
    | ExistsElim
    | FalseElim
    | Have
    | ByContra
    | Em
    | Subst
    | Rewrite
    | CongrBind
    | Refl
    | Ring
    | DvdIntro
    | DvdElim
    | NatInd
    | Decide
    | Arith
)
