"""Arithmetic and induction: divisibility (Lean's definition of ``∣`` on Nat and Int),
Nat induction, exact evaluation (``Decide``) and refutation certificates (``Arith``).

Like ``logic``: each function refuses a wrong instance and returns the premises still to
check, in order.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded.kernel.arith import refute
from burnqed.embedded.kernel.context import Entry, Sequent, sort_of
from burnqed.embedded.kernel.logic import Premises
from burnqed.embedded.kernel.poly import evaluate
from burnqed.embedded.kernel.proofs import DvdElim, DvdIntro, NatInd
from burnqed.embedded.kernel.terms import App, FALSE, Free, KernelError, Lit, Term, abstract, frees, instantiate, loose

__all__ = ["arith", "decide", "dvd_elim", "dvd_intro", "nat_ind"]


def dvd_intro(seq: Sequent, p: DvdIntro) -> Premises:
    """``a ∣ b`` from ``b = a * c`` (``c`` the witness)."""
    t = seq.target
    if not (isinstance(t, App) and t.head == "∣"):
        raise KernelError("DvdIntro: target is not ∣")
    a, b = t.args
    s = sort_of(seq, a)
    if loose(p.witness) or sort_of(seq, p.witness) != s:
        raise KernelError("DvdIntro: witness of the wrong sort")
    return [(seq.to(App("=", (b, App("*", (a, p.witness), s)), "Prop")), p.body)]


def dvd_elim(seq: Sequent, p: DvdElim, major: Term) -> Premises:
    """From ``a ∣ b``: a new ``c`` with ``b = a * c``."""
    if not (isinstance(major, App) and major.head == "∣"):
        raise KernelError("DvdElim: not a divisibility")
    a, b = major.args
    s = sort_of(seq, a)
    s2 = seq.add(Entry(p.var, s))
    eq = App("=", (b, App("*", (a, Free(p.var)), s)), "Prop")
    return [(s2.add(Entry(p.hyp, eq)), p.body)]


def nat_ind(seq: Sequent, p: NatInd) -> Premises:
    """Induction on a Nat variable: the case 0, and the case ``k + 1`` from the case ``k``."""
    x, t = p.var, seq.target
    e = seq.lookup(x)
    if e is None or e.ty != "Nat":
        raise KernelError("NatInd: not a Nat variable")
    # hypotheses about x are left behind (weakening): revert them into the target first
    base = Sequent(tuple(h for h in seq.ctx if isinstance(h.ty, str) or x not in frees(h.ty)), t)
    motive = abstract(t, Free(x))
    zero = base.to(instantiate(motive, Lit(0, "Nat")))
    s = base.add(Entry(p.k, "Nat"))
    s = s.add(Entry(p.ih, instantiate(motive, Free(p.k))))
    step = s.to(instantiate(motive, App("+", (Free(p.k), Lit(1, "Nat")), "Nat")))
    return [(zero, p.zero), (step, p.step)]


def decide(seq: Sequent) -> None:
    """A closed proposition that evaluates to true."""
    t = seq.target
    if frees(t) or loose(t) or not evaluate(t):
        raise KernelError("Decide: the proposition is not closed or is false")


def arith(seq: Sequent, props: list[Term], cert: Any) -> None:
    """``False`` from the propositions (proved by the facts) refuted by the certificate."""
    if seq.target != FALSE:
        raise KernelError("Arith: the target must be False")
    refute(seq, props, cert)
