"""calc (Lean 4 core, Lean/Elab/Calc.lean and Lean/Elab/Tactic/Calc.lean): a chain of
relation steps, each proved, composed by the ``Trans`` instances of ℕ/ℤ orders.

Each later step's ``_`` stands for the previous right-hand side (elaborated at its type, and
it must come out alpha-equal). The composed relation must be the goal itself: Lean would also
accept a chain that ends short of the goal's right-hand side (it adds the missing step as a new
goal), and a goal only definitionally equal to the chain; the embedded checker refuses both.
The kernel sees each step's proof and a certificate that combines them into the goal."""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import Budget, prove_fact
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import elab_in_goal, prop_in_goal, show
from burnqed.embedded.elab.elaborate import ElabError, elab_prop
from burnqed.embedded.elab.expr import ModEq, Rel, Term, alpha_key, mvars, type_of
from burnqed.embedded.elab.state import goal_scope

__all__ = ["compose"]

_ORDER = {"<": 2, "≤": 1, "=": 0}
_GOAL_LHS = "calc✝lhs"  # a name no source text can write (the ✝ of inaccessible names)
_FLIP = {">": "<", "≥": "≤"}


def compose(r1: Any, r2: Any) -> Any:
    """The relation of ``a r1 b`` and ``b r2 c`` by Mathlib's/core's ``Trans`` instances
    (``=`` with anything; ``≤``/``<`` mixed; ``≥``/``>`` mixed; congruences modulo the same
    ``n``, a relation ``("≡", type, key of n)``), None when there is none."""
    if r1 == "=":
        return r2
    if r2 == "=":
        return r1
    if isinstance(r1, tuple) or isinstance(r2, tuple):
        return r1 if r1 == r2 else None
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
    rel: str | tuple[str, str, object] | None = None
    modeq: ModEq | None = None
    for syn, kind, body in tac.data["steps"]:
        at = 1 if syn.kind == "modeq" else 0  # `a ≡ b [MOD n]` is args (n, a, b)
        if kind == "first":
            # `calc a` ⏎ `_ = b := …`: the first step is `a = a := rfl` (lean4
            # src/Lean/Elab/Calc.lean, getCalcFirstStep), no fact to combine
            prop = prop_in_goal(goal, Syn("binop", syn.pos, "=", (syn, syn)))
            assert isinstance(prop, Rel)
            first, prev, prev_syn, rel = prop.lhs, prop.rhs, syn, "="
            continue
        scope = None
        if prev is None and syn.kind in ("binop", "modeq") and len(syn.args) > at and syn.args[at].kind == "blank":
            # a first step `_ = b := …`: the chain's left side is the goal's, as Lean's
            # unification of the chain's relation with the goal assigns it (Calc.lean,
            # `throwCalcFailure` otherwise); here only from a relation goal
            target = goal.target
            left = target.a if isinstance(target, ModEq) else target.lhs if isinstance(target, Rel) else None
            if left is None:
                raise TacticError("invalid 'calc' step, the first left-hand side '_' needs a relation as the goal")
            scope = dict(goal_scope(goal))
            scope[_GOAL_LHS] = ("val", left)
            args = list(syn.args)
            args[at] = Syn("ident", syn.args[at].pos, _GOAL_LHS)
            syn = Syn(syn.kind, syn.pos, syn.value, tuple(args))
        if prev is not None and prev_syn is not None:
            if not (syn.kind in ("binop", "modeq") and len(syn.args) > at and syn.args[at].kind == "blank"):
                raise TacticError("invalid 'calc' step, the left-hand side must be '_'")
            args = list(syn.args)
            args[at] = _ascribed(prev_syn, type_of(prev))
            syn = Syn(syn.kind, syn.pos, syn.value, tuple(args))
        if scope is None:
            prop = prop_in_goal(goal, syn)
        else:
            try:
                prop = elab_prop(syn, scope)
            except ElabError as exc:
                raise TacticError(exc.message) from exc
        if isinstance(prop, ModEq):
            # Mathlib's `Trans (ModEq n) (ModEq n) (ModEq n)` (Mathlib/Data/Nat/ModEq.lean) and
            # core's `Trans r Eq r` / `Trans Eq r r`: a chain of congruences modulo one n
            prop_op, lhs, rhs = ("≡", prop.ty, alpha_key(prop.n)), prop.a, prop.b
        elif isinstance(prop, Rel) and prop.op in ("=", "<", "≤", ">", "≥"):
            prop_op, lhs, rhs = prop.op, prop.lhs, prop.rhs
        else:
            raise TacticError(f"invalid 'calc' step, relation expected\n  {show(goal, prop)}")
        if prev is not None and alpha_key(lhs) != alpha_key(prev):
            raise TacticError(
                f"invalid 'calc' step, left-hand side is\n  {show(goal, lhs)}\nprevious right-hand side is\n  {show(goal, prev)}"
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
        rel = prop_op if rel is None else compose(rel, prop_op)
        if rel is None:
            raise TacticError("invalid 'calc' step, failed to synthesize `Trans` instance")
        if isinstance(prop, ModEq):
            modeq = prop
        if first is None:
            first = lhs
        prev, prev_syn = rhs, syn.args[at + 1] if len(syn.args) > at + 1 else syn
    if first is None or prev is None or rel is None:
        raise TacticError("invalid 'calc': no steps")
    result: Term = ModEq(modeq.ty, modeq.n, first, prev) if isinstance(rel, tuple) and modeq else Rel(str(rel), first, prev)
    if kterm(result) != kterm(goal.target):
        raise TacticError(
            f"invalid 'calc' step, the chain proves\n  {show(goal, result)}\nbut the goal is\n  {show(goal, goal.target)}\n(the embedded checker does not extend a chain by a goal for the rest)"
        )
    if eng.kernel_on:
        budget = Budget.of(eng.ctx)
        pf = prove_fact(sequent(goal), facts, kterm(goal.target), budget=budget)
        if pf is None:
            raise TacticError(f"calc: the kernel found no proof combining the steps{budget.note()}")
        eng.justify(goal, pf)
    return []
