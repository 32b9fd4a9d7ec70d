"""calc (Lean 4 core, Lean/Elab/Calc.lean and Lean/Elab/Tactic/Calc.lean): a chain of
relation steps, each proved, composed by the ``Trans`` instances of ℕ/ℤ orders.

Each later step's ``_`` stands for the previous right-hand side (elaborated at its type, and
it must come out alpha-equal). The composed relation must be the goal itself: Lean would also
accept a chain that ends short of the goal's right-hand side (it adds the missing step as a new
goal), and a goal only definitionally equal to the chain; the embedded checker refuses both.
The kernel sees each step's proof and a certificate that combines them into the goal."""

from __future__ import annotations

import time

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge import hole, kterm, sequent
from burnqed.embedded.certify import Budget, prove_fact
from burnqed.embedded.engine import Engine, register, render
from burnqed.embedded.proofterm import TacticError
from burnqed.embedded.state import Goal
from burnqed.embedded.syntax import Syn
from burnqed.embedded.tactic_syntax import Tac
from burnqed.embedded.tactics_basic import elab_in_goal, prop_in_goal, show
from burnqed.embedded.terms import Rel, Term, alpha_key, mvars, type_of

__all__ = ["compose"]

_ORDER = {"<": 2, "≤": 1, "=": 0}
_FLIP = {">": "<", "≥": "≤"}


def compose(r1: str, r2: str) -> str | None:
    """The relation of ``a r1 b`` and ``b r2 c`` by Mathlib's/core's ``Trans`` instances
    (``=`` with anything; ``≤``/``<`` mixed; ``≥``/``>`` mixed), None when there is none."""
    if r1 == "=":
        return r2
    if r2 == "=":
        return r1
    up = r1 in ("<", "≤") and r2 in ("<", "≤")
    down = r1 in (">", "≥") and r2 in (">", "≥")
    if up:
        return "<" if "<" in (r1, r2) else "≤"
    if down:
        return ">" if ">" in (r1, r2) else "≥"
    return None


def _ascribed(s: Syn, ty: str) -> Syn:
    return Syn("ascribe", s.pos, None, (s, Syn("ident", s.pos, "ℕ" if ty == "Nat" else "ℤ")))


@register("calc")
def _calc(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    facts: list[tuple[k.Proof, k.Term]] = []
    first: Term | None = None
    prev: Term | None = None
    prev_syn: Syn | None = None
    rel: str | None = None
    for syn, kind, body in tac.data["steps"]:
        if prev is not None and prev_syn is not None:
            if not (syn.kind == "binop" and syn.args and syn.args[0].kind == "blank"):
                raise TacticError("invalid 'calc' step, the left-hand side must be '_'")
            syn = Syn(syn.kind, syn.pos, syn.value, (_ascribed(prev_syn, type_of(prev)), *syn.args[1:]))
        prop = prop_in_goal(goal, syn)
        if not (isinstance(prop, Rel) and prop.op in ("=", "<", "≤", ">", "≥")):
            raise TacticError(f"invalid 'calc' step, relation expected\n  {show(goal, prop)}")
        if prev is not None and alpha_key(prop.lhs) != alpha_key(prev):
            raise TacticError(
                f"invalid 'calc' step, left-hand side is\n  {show(goal, prop.lhs)}\nprevious right-hand side is\n  {show(goal, prev)}"
            )
        if kind == "by":
            block = goal.with_(eng.fresh(), target=prop, tag=None)
            left = eng.run(body, [block])
            if left:
                raise TacticError("unsolved goals\n" + render(left))
            pf = hole(block)
        else:
            got, pe = elab_in_goal(eng, goal, body, prop)
            if mvars(got):
                raise TacticError("don't know how to synthesize placeholder in a 'calc' step")
            pf = pe.proof() if eng.kernel_on else k.Sorry()
        facts.append((k.Annot(pf, kterm(prop)), kterm(prop)))
        rel = prop.op if rel is None else compose(rel, prop.op)
        if rel is None:
            raise TacticError("invalid 'calc' step, failed to synthesize `Trans` instance")
        if first is None:
            first = prop.lhs
        prev, prev_syn = prop.rhs, syn.args[1] if len(syn.args) > 1 else syn
    if first is None or prev is None or rel is None:
        raise TacticError("invalid 'calc': no steps")
    result = Rel(rel, first, prev)
    if kterm(result) != kterm(goal.target):
        raise TacticError(
            f"invalid 'calc' step, the chain proves\n  {show(goal, result)}\nbut the goal is\n  {show(goal, goal.target)}\n(the embedded checker does not extend a chain by a goal for the rest)"
        )
    if eng.kernel_on:
        cfg = eng.ctx.config
        deadline = time.monotonic() + cfg.z3_cert_timeout_ms / 1000
        if eng.ctx.deadline is not None:
            deadline = min(deadline, eng.ctx.deadline)
        pf = prove_fact(sequent(goal), facts, kterm(goal.target), budget=Budget(deadline=deadline, z3_ms=cfg.z3_timeout_ms))
        if pf is None:
            raise TacticError("calc: the kernel found no proof combining the steps")
        eng.justify(goal, pf)
    return []
