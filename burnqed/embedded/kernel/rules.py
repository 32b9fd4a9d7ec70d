"""Checking a proof: one ``match`` over the closed set of rules (``proofs``), each family's
rules checked in its own module (``logic``, ``equality``, ``numbers``); the premises they
return are checked here, recursively."""

from __future__ import annotations

from typing import Any

import burnqed.embedded.kernel.equality as equality
import burnqed.embedded.kernel.logic as logic
import burnqed.embedded.kernel.numbers as numbers
from burnqed.embedded.kernel.context import Sequent, conv, expect_prop
from burnqed.embedded.kernel.proofs import (
    AndIntro,
    AndLeft,
    AndRight,
    Annot,
    Arith,
    ByContra,
    CongrBind,
    Decide,
    DvdElim,
    DvdIntro,
    Em,
    ExistsElim,
    ExistsIntro,
    FalseElim,
    Have,
    Hole,
    Hyp,
    IffIntro,
    IffMp,
    IffMpr,
    Inst,
    Intro,
    ModusPonens,
    NatInd,
    OrElim,
    OrInl,
    OrInr,
    Proof,
    Refl,
    Rewrite,
    Ring,
    Sorry,
    Subst,
    TrueIntro,
)
from burnqed.embedded.kernel.terms import KernelError, Term

__all__ = ["Obligations", "check", "infer"]

Obligations = list[tuple[Any, Sequent]]
"""(goal, sequent) pairs the holes of a proof leave (goal -1 for ``Sorry``)."""


def check(seq: Sequent, p: Proof, out: Obligations) -> None:
    """Check ``p`` proves ``seq``; holes append (goal, sequent) obligations to ``out``.
    A proof is untrusted input: a malformed one (missing or mistyped fields) is refused
    with KernelError like a wrong one."""
    try:
        _check(seq, p, out)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise KernelError(f"malformed proof ({type(exc).__name__}: {exc})") from exc


def infer(seq: Sequent, p: Proof, out: Obligations) -> Term:
    """The proposition a proof in synthesis position proves."""
    match p:
        case Hyp(uid):
            return logic.hyp(seq, uid)
        case Annot(proof, prop):
            expect_prop(seq, prop)
            _check(seq.to(prop), proof, out)
            return prop
        case ModusPonens(major, minor):
            premise, conclusion = logic.modus_ponens(infer(seq, major, out))
            _check(seq.to(premise), minor, out)
            return conclusion
        case Inst(major, value):
            return logic.inst(seq, infer(seq, major, out), value)
        case AndLeft(major) | AndRight(major) | IffMp(major) | IffMpr(major):
            return logic.project(p, infer(seq, major, out))
    raise KernelError(f"{type(p).__name__} cannot infer")


def _premises(premises: logic.Premises, out: Obligations) -> None:
    for seq, p in premises:
        _check(seq, p, out)


def _check(seq: Sequent, p: Proof, out: Obligations) -> None:
    match p:
        case Hole(goal):
            out.append((goal, seq))
        case Sorry():
            out.append((-1, seq))
        case Hyp() | Annot() | ModusPonens() | Inst() | AndLeft() | AndRight() | IffMp() | IffMpr():
            if not conv(infer(seq, p, out), seq.target):
                raise KernelError(f"{type(p).__name__}: proves a different proposition")
        case (
            Intro() | TrueIntro() | AndIntro() | IffIntro() | OrInl() | OrInr() | ExistsIntro() | Have() | ByContra() | Em()
        ):
            _premises(logic.introduce(seq, p), out)
        case OrElim(major) | ExistsElim(major) | FalseElim(major):
            _premises(logic.eliminate(seq, p, infer(seq, major, out)), out)
        case Subst(eq):
            _premises(equality.subst(seq, p, infer(seq, eq, out)), out)
        case Rewrite(eq):
            _premises(equality.rewrite(seq, p, infer(seq, eq, out)), out)
        case CongrBind():
            _premises(equality.congr_bind(seq, p), out)
        case Refl() | Ring():
            equality.same_sides(seq, p)
        case DvdIntro():
            _premises(numbers.dvd_intro(seq, p), out)
        case DvdElim(major):
            _premises(numbers.dvd_elim(seq, p, infer(seq, major, out)), out)
        case NatInd():
            _premises(numbers.nat_ind(seq, p), out)
        case Decide():
            numbers.decide(seq)
        case Arith(facts, cert):
            numbers.arith(seq, [infer(seq, q, out) for q in facts], cert)
        case _:
            raise KernelError("not a proof")
