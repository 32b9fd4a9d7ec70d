"""Function terms in proofs: ``congr_arg f h`` / ``congrArg f h`` with ``f`` a ``fun x => e``
or a ``(· % 10)`` placeholder function (issue 37).

Lean's ``congrArg {α β} {a₁ a₂ : α} (f : α → β) (h : a₁ = a₂) : f a₁ = f a₂`` (lean4
``src/Init/Prelude.lean``; Mathlib's ``congr_arg`` is the same lemma). The type Lean gives the
application is beta-reduced: the type of an application is computed with
``Expr.instantiateBetaRevRange`` (lean4 ``src/Lean/Meta/InferType.lean``, ``inferAppType``),
which beta-reduces ``f a₁`` once ``f`` is a ``fun``; so ``congr_arg (· % 10) h`` with
``h : a + b = 2`` proves ``(a + b) % 10 = 2 % 10``. Here the function's body is elaborated
once with the bound name a fresh local, then instantiated at each side. The kernel proof is a
rewrite of ``h`` under the motive ``z ↦ e[a₁] = e[z]`` closed by ``refl``. Only functions from a
number type to the same number type are read (``fun x => (x : ℤ)`` and Prop-valued
functions are refused: the fragment's terms have no function type).
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify import internal_uid
from burnqed.embedded.elab.elaborate import ElabError, elab_value
from burnqed.embedded.tactics.proofterm_base import TacticError
from burnqed.embedded.elab.state import goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import FVar, Rel, Term, replace_fvar, type_of
from burnqed.embedded.elab.unify import instantiate_mvars

__all__ = ["CONGR_ARG", "congr_arg"]

CONGR_ARG = frozenset({"congr_arg", "congrArg"})


def _strip(s: Syn) -> Syn:
    while s.kind == "paren":
        s = s.args[0]
    return s


def congr_arg(pe: Any, args: tuple[Syn, ...]) -> tuple[Term, Any]:
    """``congr_arg f h``: the proposition and its kernel proof builder (``pe`` is the ProofElab)."""
    if len(args) != 2:
        raise TacticError("congr_arg: expected a function and a proof of an equation")
    fn, h = _strip(args[0]), args[1]
    if fn.kind != "fun":
        raise TacticError("congr_arg: only a `fun x => e` or `(· …)` function is supported in this fragment")
    hty, hb = pe._infer(h, None)
    hty = instantiate_mvars(hty, pe.sub)
    if not (isinstance(hty, Rel) and hty.op == "="):
        raise TacticError(f"congr_arg: the second argument is not an equation\n  {pe.show(hty)}")
    lhs, rhs = hty.lhs, hty.rhs
    ty = type_of(lhs)
    name, ty_syn = fn.value
    uid = internal_uid()
    scope = dict(goal_scope(pe.goal))
    scope[name] = ("val", FVar(uid, ty))
    try:
        if ty_syn is not None and elab_value(Syn("ascribe", fn.pos, None, (Syn("ident", fn.pos, name), ty_syn)), scope) != FVar(uid, ty):
            raise TacticError("congr_arg: the function's argument type is not the equation's")
        body = elab_value(fn.args[0], scope, ty)
    except ElabError as exc:
        raise TacticError(exc.message) from exc
    if type_of(body) != ty:
        raise TacticError("congr_arg: only a function from a number type to itself is supported")
    at_l, at_r = replace_fvar(body, uid, lhs), replace_fvar(body, uid, rhs)
    prop = Rel("=", at_l, at_r)

    def build() -> k.Proof:
        # motive z ↦ e[a₁] = e[z]: at a₂ it is the proposition, at a₁ it is closed by refl
        motive = k.abstract(pe.kt(Rel("=", at_l, body)), k.Free(uid))
        pf = k.Rewrite(hb(), motive, True, k.Refl())
        return k.Annot(pf, pe.kt(prop))

    return prop, build
