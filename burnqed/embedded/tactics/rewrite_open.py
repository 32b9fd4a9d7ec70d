"""``rw``'s last rule leaving a metavariable in the target, closed by ``rw``'s ``rfl`` as
Lean does (the rest of ``rw`` is tactics/rewrite.py)."""

from __future__ import annotations

from burnqed.embedded.elab.expr import Conn, Rel, Term, mvars
from burnqed.embedded.elab.unify import closes_by_reducible_rfl
from burnqed.embedded.tactics.proofterm import TacticError, instantiate_mvars, unify

__all__ = ["close_open_rewrite"]


def close_open_rewrite(target: Term, subs: dict[int, Term]) -> Term:
    """The target of the last rule of a ``rw`` whose right side keeps a metavariable the
    pattern did not fix (``rw [Nat.div_eq_of_eq_mul_left]`` on ``s = 450 / r`` leaves
    ``s = ?k``): Lean's ``rewrite`` keeps ``?k`` and ``rw``'s ``with_reducible rfl`` assigns it
    (lean4 src/Init/Tactics.lean, macro ``rw``; src/Lean/Meta/Tactic/Rewrite.lean collects the
    unassigned ``?k`` and the premises as new goals, and the assigned ``?k`` drops out). Here
    ``?k`` is fixed by matching one side of the equation or iff syntactically against the
    other, ``subs`` extended with it; the instantiated target then closes by ``rfl``. Anything
    else keeps Lean's refusal for a motive with uninstantiated arguments."""
    refused = TacticError("tactic 'rewrite' failed, motive is not type correct (uninstantiated arguments)")
    if isinstance(target, Rel) and target.op == "=":
        a, b = target.lhs, target.rhs
    elif isinstance(target, Conn) and target.op == "↔":
        a, b = target.args
    else:
        raise refused
    if mvars(a) and mvars(b):
        raise refused
    pat, other = (a, b) if mvars(a) else (b, a)
    got = unify(pat, other, {}, False)
    if got is None:
        raise refused
    subs.update(got)
    closed = instantiate_mvars(target, subs)
    if mvars(closed) or not closes_by_reducible_rfl(closed):
        raise refused
    return closed
