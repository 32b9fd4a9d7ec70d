"""Generalized field notation on a congruence (issue 37): ``h.add h'``, ``h.pow 3``,
``h.trans h'`` with ``h : a ≡ b [MOD n]`` are ``Nat.ModEq.add h h'``, ``Nat.ModEq.pow 3 h``,
``Nat.ModEq.trans h h'`` (Lean's ``resolveLValLoop`` / ``addLValArg``,
lean4 ``src/Lean/Elab/App.lean``: the head constant of ``h``'s type names the namespace, and
``h`` becomes the first explicit argument whose type has that head). Only a hypothesis name
as ``h`` and a lemma of the catalogue; anything else is left to the projections of
tactics/proofterm.py."""

from __future__ import annotations

from typing import Any

from burnqed.embedded.elab.lemmas import INSTANCE_LEMMAS, LEMMAS, lemma_instances
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.elab.expr import Binder, Conn, ModEq

__all__ = ["modeq_field_app"]


def modeq_field_app(goal: Any, head: Syn, args: tuple[Syn, ...]) -> tuple[Syn, tuple[Syn, ...]] | None:
    """``(lemma name, arguments)`` for ``h.f args`` when ``h`` is a congruence hypothesis and
    ``Nat.ModEq.f`` / ``Int.ModEq.f`` is in the catalogue, else None."""
    if head.kind == "proj" and head.args[0].kind == "ident":
        base, fld = head.args[0], head.value
    elif head.kind == "ident" and "." in head.value:  # the lexer reads `h.add` as one name
        prefix, _, fld = head.value.rpartition(".")
        base = Syn("ident", head.pos, prefix)
    else:
        return None
    hyp = goal.hyp_named(base.value)
    if hyp is None or not isinstance(hyp.ty, ModEq):
        return None
    name = f"{hyp.ty.ty}.ModEq.{fld}"
    if name not in LEMMAS and name not in INSTANCE_LEMMAS:
        return None
    t = lemma_instances(name)[0]
    slot = 0  # the explicit argument h goes to: the first premise that is a congruence
    while True:
        if isinstance(t, Binder) and t.q == "∀":
            slot += 0 if t.implicit else 1
            t = t.body
        elif isinstance(t, Conn) and t.op == "→":
            if isinstance(t.args[0], ModEq):
                break
            slot += 1
            t = t.args[1]
        else:
            return None
    if len(args) < slot:
        return None
    return Syn("ident", head.pos, name), (*args[:slot], base, *args[slot:])
