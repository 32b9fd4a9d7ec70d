"""Named arguments ``h a (x := e)`` in proof terms (issue 37), as Lean's ``elabAppArgs``
(lean4 ``src/Lean/Elab/App.lean``) binds them; ``(x := e)`` is Lean's ``namedArgument``
(``src/Lean/Parser/Term.lean``), parsed by syntax/parser_named.py."""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.tactics.proofterm_base import TacticError, elab_witness
from burnqed.embedded.elab.state import goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import Binder, Conn, Term, instantiate
from burnqed.embedded.elab.unify import defeq_head, fresh_mvar, instantiate_mvars

__all__ = ["named_app"]


def named_app(pe: Any, head: Syn, args: tuple[Syn, ...], expected: Term | None) -> tuple[Term, Any]:
    """``h a (x := e) b`` with ``h`` a hypothesis (Lean's ``elabAppArgs``,
    src/Lean/Elab/App.lean: a named argument binds the ∀-binder of that name, implicit or
    not; the positional ones fill the other explicit binders in order). The catalogue's
    binder names are not Mathlib's: a named argument of a built-in lemma is refused, and so
    are a name no binder has, a named premise, and an explicit binder left before a named
    one (Lean would abstract it: ``fun x => h x e``)."""
    if head.kind != "ident" or pe.goal.hyp_named(head.value) is None:
        raise TacticError("named arguments are supported only for hypotheses in the embedded checker")
    named = {a.value: a.args[0] for a in args if a.kind == "named"}
    if len(named) != sum(a.kind == "named" for a in args):
        raise TacticError("named argument given twice")
    positional = [a for a in args if a.kind != "named"]
    fty, b = pe._infer(head, None)
    binders, t = set(), fty
    while isinstance(t, Binder | Conn) and (isinstance(t, Binder) and t.q == "∀" or isinstance(t, Conn) and t.op == "→"):
        if isinstance(t, Binder):
            binders.add(t.name)
        t = t.body if isinstance(t, Binder) else t.args[1]
    for name in named:
        if name not in binders:
            raise TacticError(f"invalid argument name '{name}' for function '{head.value}'")
    scope = goal_scope(pe.goal)
    while named or positional:
        fty = defeq_head(instantiate_mvars(fty, pe.sub))
        if isinstance(fty, Binder) and fty.q == "∀":
            if fty.name in named:
                val: Term = elab_witness(named.pop(fty.name), scope, fty.ty)
            elif fty.implicit:
                val = fresh_mvar(fty.ty, fty.name)
            elif positional:
                arg = positional.pop(0)
                val = fresh_mvar(fty.ty, fty.name) if arg.kind in ("blank", "hole") else elab_witness(arg, scope, fty.ty)
            else:
                raise TacticError(
                    f"named arguments after the missing explicit argument '{fty.name}' are not supported by the embedded checker"
                )
            fty = instantiate(fty.body, fty.name, val)
            b = (lambda f, v: lambda: k.Inst(f(), pe.kt(v)))(b, val)
        elif isinstance(fty, Conn) and fty.op == "→" and positional and not named:
            _, q = pe._check(positional.pop(0), fty.args[0])
            fty = fty.args[1]
            b = (lambda f, g: lambda: k.ModusPonens(f(), g()))(b, q)
        elif named:
            raise TacticError(f"invalid argument name '{next(iter(named))}' for function '{head.value}'")
        else:
            raise TacticError(f"function expected, the term has type\n  {pe.show(fty)}")
    return pe._peel_into(instantiate_mvars(fty, pe.sub), b)
