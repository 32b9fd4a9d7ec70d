"""What tactics/proofterm.py builds on and the elaboration of an INSTANCE_LEMMAS lemma applied to
arguments (issue 37): such a lemma's general statement has no kernel proof, so the statement
it has once applied is proved as it stands, by an arithmetic certificate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import sequent
from burnqed.embedded.decide.certify import prove_fact
from burnqed.embedded.decide.certify_powmod import prove_mod
from burnqed.embedded.elab.elaborate import ElabError, Scope, elab_prop, elab_value
from burnqed.embedded.elab.lemmas import lemma_instances
from burnqed.embedded.elab.state import goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import Binder, Conn, Term, instantiate, mvars
from burnqed.embedded.elab.unify import fresh_mvar, instantiate_mvars, unify

__all__ = ["TacticError", "conclusion", "elab_witness", "instance_app"]


class TacticError(Exception):
    """A tactic failed; the message is Lean-like text for a severity-error message."""


def elab_witness(s: Syn, scope: Scope, ty: str) -> Term:
    """Elaborate ``s`` as a value of binder type ``ty`` (a proposition for ``Prop``); failures are tactic errors."""
    try:
        return elab_prop(s, scope) if ty == "Prop" else elab_value(s, scope, ty)
    except ElabError as exc:
        raise TacticError(exc.message) from exc


def conclusion(t: Term) -> Term:
    """A statement's conclusion, its ∀s made metavariables and its premises dropped."""
    while True:
        if isinstance(t, Binder) and t.q == "∀":
            t = instantiate(t.body, t.name, fresh_mvar(t.ty, t.name))
        elif isinstance(t, Conn) and t.op == "→":
            t = t.args[1]
        else:
            return t


def instance_app(pe: Any, name: str, args: tuple[Syn, ...], expected: Term | None) -> tuple[Term, Callable[[], k.Proof]]:
    """An INSTANCE_LEMMAS lemma applied to ``args``: the statement it then has is proved as
    it stands, in the goal's context from the proofs of the premises given, by an arithmetic
    certificate (its general statement is never trusted)."""
    inst = lemma_instances(name)
    errors: list[Exception] = []
    for cand in inst:
        saved = dict(pe.sub), list(pe.new_goals), list(pe.postponed)
        premises: list[tuple[Term, Callable[[], k.Proof]]] = []

        def fail() -> k.Proof:
            raise TacticError(f"the kernel has no proof of {name} in general, only of its instances")

        try:
            fty, _ = pe._peel_into(cand, fail)
            scope = goal_scope(pe.goal)
            for arg in args:
                fty, _ = pe._peel_into(instantiate_mvars(fty, pe.sub), fail)
                if isinstance(fty, Binder) and fty.q == "∀":
                    val: Term = fresh_mvar(fty.ty, fty.name) if arg.kind in ("blank", "hole") else elab_witness(arg, scope, fty.ty)
                    fty = instantiate(fty.body, fty.name, val)
                elif isinstance(fty, Conn) and fty.op == "→":
                    _, q = pe._check(arg, fty.args[0])
                    premises.append((fty.args[0], q))
                    fty = fty.args[1]
                else:
                    raise TacticError(f"function expected, the term has type\n  {pe.show(fty)}")
            fty, _ = pe._peel_into(instantiate_mvars(fty, pe.sub), fail)
            if len(inst) > 1 and expected is not None and unify(conclusion(fty), instantiate_mvars(expected, pe.sub), pe.sub) is None:
                raise TacticError(f"type mismatch: {name}")
        except (TacticError, ElabError) as exc:
            errors.append(exc)
            pe.sub, pe.new_goals = dict(saved[0]), list(saved[1])
            pe.postponed = list(saved[2])
            continue
        final = fty

        def build(final: Term = final, premises: list[tuple[Term, Callable[[], k.Proof]]] = premises) -> k.Proof:
            stmt = instantiate_mvars(final, pe.sub)
            if mvars(stmt):
                raise TacticError(f"could not synthesize the arguments of {name}")
            g = pe.kt(stmt)
            facts = [(q(), pe.kt(instantiate_mvars(t, pe.sub))) for t, q in premises]
            seq = sequent(pe.goal).to(g)
            pf = prove_fact(seq, facts, g) or prove_mod(seq, facts, g)
            if pf is None:
                raise TacticError(f"the kernel found no proof of this instance of {name}: {pe.show(stmt)}")
            return k.Annot(pf, g)

        return fty, build
    raise TacticError(str(errors[0]) if errors else f"unknown identifier '{name}'")
