"""Induction and substitution: ``induction n with | zero => … | succ k ih => …`` on a Nat
variable (the kernel's nat_ind, hypotheses that mention the variable reverted) and
``subst`` of a variable by an equation."""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import intro_one
from burnqed.embedded.tactics.le_induction import le_induction
from burnqed.embedded.tactics.cases import justify_by_induction, run_alts, subst_eq, subst_var
from burnqed.embedded.elab.expr import Binder, Conn, FVar, Num, Op, Rel, Term, fvars, replace_fvar, subterms

__all__: list[str] = []


@register("induction'")
def _induction_prime(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """Mathlib's ``induction' n with k ih`` (Mathlib/Tactic/Cases.lean, ``induction'``): on a
    Nat variable, ``Nat.rec``'s goals ``zero`` and ``succ`` left open, the names given to the
    succ case's variable and hypothesis in order (unnamed ones inaccessible), dependent
    hypotheses reverted and reintroduced under their names as ``induction`` does."""
    names = tac.data.get("names", [])
    s = tac.data["target"]
    h = goal.hyp_named(s.value) if s.kind == "ident" else None
    if h is not None and not isinstance(h.ty, str):  # induction on `m ≤ n` (Nat.le)
        if tac.data.get("generalizing"):
            raise TacticError("induction' … generalizing on a hypothesis is not supported in this fragment")
        return le_induction(eng, goal, h, names)
    if len(names) > 2:
        raise TacticError("too many variable names provided")
    return _induction(eng, goal, tac, names)


@register("induction")
def _induction(eng: Engine, goal: Goal, tac: Tac, prime_names: list[str] | None = None) -> list[Goal]:
    s = tac.data["target"]
    if s.kind != "ident":
        raise TacticError(
            "induction: the target must be a variable of the fragment (index variables only)"
        )
    var = goal.hyp_named(s.value)
    if var is None:
        raise TacticError(f"unknown identifier '{s.value}'")
    if var.ty != "Nat":
        raise TacticError(
            f"induction on a variable of type {var.ty if isinstance(var.ty, str) else 'Prop'} is not supported"
        )
    alts = tac.data.get("alts")
    gen_names = tac.data.get("generalizing", [])
    pos = goal.hyps.index(var)
    reverted: list[Hyp] = []
    for h in goal.hyps[pos + 1 :]:
        if h.user in gen_names or (
            not isinstance(h.ty, str)
            and fvars(h.ty) & ({var.uid} | {r.uid for r in reverted})
        ):
            reverted.append(h)
    for n in gen_names:
        if not any(r.user == n for r in reverted):
            raise TacticError(f"unknown variable '{n}' in generalizing")
    kept = tuple(h for h in goal.hyps if h.uid != var.uid and h not in reverted)
    motive = goal.target
    for h in reversed(reverted):
        if isinstance(h.ty, str):
            # a binder name no inner binder uses, so the abstraction cannot be captured
            taken = {b.name for b in subterms(motive) if isinstance(b, Binder)}
            bname = h.user
            while bname in taken:
                bname += "'"
            motive = Binder("∀", bname, h.ty, _abstract(motive, h.uid, bname, h.ty))
        else:
            motive = Conn("→", (h.ty, motive))
    names = {name: args for name, args, _b, _p in alts} if alts else {}
    for name in names:
        if name not in ("zero", "succ"):
            raise TacticError(
                f"invalid alternative name '{name}', expected 'zero' or 'succ'"
            )
    succ_args = names.get("succ", prime_names or [])

    def reintro(g: Goal) -> Goal:
        for h in reverted:
            g = intro_one(eng, g, h.user)
        return g

    zero0 = Goal(eng.fresh(), kept, replace_fvar(motive, var.uid, Num(0, "Nat")), "zero")
    zero = reintro(zero0)
    k_name = succ_args[0] if len(succ_args) > 0 and succ_args[0] != "_" else None
    ih_name = succ_args[1] if len(succ_args) > 1 and succ_args[1] != "_" else None
    k = Hyp(eng.fresh(), k_name or "n", "Nat", k_name is None)
    kv = FVar(k.uid, "Nat")
    ih = Hyp(
        eng.fresh(), ih_name or "a", replace_fvar(motive, var.uid, kv), ih_name is None
    )
    succ_target = replace_fvar(motive, var.uid, Op("+", (kv, Num(1, "Nat")), "Nat"))
    succ0 = Goal(eng.fresh(), (*kept, k, ih), succ_target, "succ")
    succ = reintro(succ0)
    justify_by_induction(
        eng, goal, var, motive, reverted, hole(zero0), k.uid, ih.uid, hole(succ0)
    )
    goals = [zero, succ]
    if alts:
        return run_alts(eng, goals, alts, {})
    return goals


@register("subst")
def _subst(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    for name in tac.data["names"]:
        h = goal.hyp_named(name)
        if h is None:
            raise TacticError(f"unknown identifier '{name}'")
        if isinstance(h.ty, str) or not (isinstance(h.ty, Rel) and h.ty.op == "="):
            raise TacticError(
                f"tactic 'subst' failed, invalid equality proof, it is not of the form (x = t) or (t = x)\n  {name}"
            )
        new, pf = subst_eq(eng, goal, h)
        eng.justify(goal, pf)
        goal = new
    return [goal]


def _abstract(t: Term, uid: int, name: str, ty: str) -> Term:
    from burnqed.embedded.elab.expr import BVar

    return replace_fvar(t, uid, BVar(name, ty))


@register("subst_vars")
def _subst_vars(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """Lean's ``subst_vars`` (lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean, ``substVars``):
    ``subst`` every hypothesis ``x = e`` / ``e = x`` with ``x`` a variable not in ``e``,
    until there is none; each one as ``subst`` does it, kernel-checked."""
    while True:
        for h in goal.hyps:
            eq = h.ty
            if isinstance(eq, str) or not (isinstance(eq, Rel) and eq.op == "="):
                continue
            # by the hypothesis itself: an inaccessible one (`left✝` after `cases`) too
            if any(isinstance(v, FVar) and v.uid not in fvars(e) for v, e in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs))):
                new, pf = subst_eq(eng, goal, h)
                eng.justify(goal, pf)
                goal = new
                break
        else:
            return [goal]
