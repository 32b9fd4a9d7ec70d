"""Casts between ℕ and ℤ: ``zify``, ``push_cast`` and ``norm_cast`` (issue 37).

Mathlib's ``zify [facts] at loc`` (``Mathlib/Tactic/Zify.lean``) rewrites a relation between
natural numbers into one between their casts to ℤ (``Nat.cast_inj``, ``Nat.cast_le``,
``Nat.cast_lt``: the ``zify_simps`` set) and then ``push_cast``s, with ``Nat.cast_sub`` used
where a fact ``b ≤ a`` is given. ``push_cast`` (``Mathlib/Tactic/NormCast``, lean4
``src/Lean/Elab/Tactic/NormCast.lean``) moves ``↑`` toward the leaves: ``↑(a + b) = ↑a + ↑b``
(``Nat.cast_add``), ``Nat.cast_mul``, ``Nat.cast_pow``, ``Nat.cast_ofNat``. ``norm_cast``
moves them up: a relation between ℤ terms built from casts, numerals, ``+ * ^`` becomes the
relation between the ℕ terms, then ``try trivial`` (lean4 ``src/Init/Tactics.lean``: the
``norm_cast`` macro is ``norm_cast0 loc <;> try trivial``).

Here a truncated subtraction without its fact, ``/`` and ``%`` stay under the cast (Lean
also pushes ``↑`` through ``/`` and ``%`` with ``Int.natCast_ediv``/``Int.natCast_mod``: a
later step that needs that form is refused, nothing more is accepted). Each new statement
is proved from the old one (and the old goal from the new) by an arithmetic certificate the
kernel checks (``↑`` is the identity on the kernel's polynomials). A location that does not
change makes the tactic fail.
"""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import internal_uid, prove_fact
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.lemmas import NO_INSTANCE, ONE_WAY, resolve
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import elab_in_goal
from burnqed.embedded.elab.expr import Conn, Num, Op, Rel, Term, alpha_key, type_of

__all__: list[str] = []

_RELS = ("=", "≠", "<", "≤", ">", "≥")


def _push_nat(t: Term, le_facts: set[tuple[object, object]]) -> Term:
    """``↑t`` (t a natural number) with the cast pushed to the leaves."""
    if isinstance(t, Num):
        return Num(t.value, "Int")
    if isinstance(t, Op) and t.op in ("+", "*"):
        return Op(t.op, (_push_nat(t.args[0], le_facts), _push_nat(t.args[1], le_facts)), "Int")
    if isinstance(t, Op) and t.op == "^":
        return Op("^", (_push_nat(t.args[0], le_facts), t.args[1]), "Int")
    if isinstance(t, Op) and t.op == "-" and (alpha_key(t.args[1]), alpha_key(t.args[0])) in le_facts:
        return Op("-", (_push_nat(t.args[0], le_facts), _push_nat(t.args[1], le_facts)), "Int")
    return Op("cast", (t,), "Int")


def _push(t: Term, le_facts: set[tuple[object, object]]) -> Term:
    """An ℤ term with every cast in it pushed (push_cast)."""
    if isinstance(t, Op) and t.op == "cast":
        return _push_nat(t.args[0], le_facts)
    if isinstance(t, Op) and t.ty == "Int":
        return Op(t.op, tuple(_push(a, le_facts) if type_of(a) == "Int" else a for a in t.args), t.ty)
    return t


def _lift(t: Term) -> Term | None:
    """The ℕ term whose cast ``t`` is (norm_cast), or None."""
    if isinstance(t, Num):
        return Num(t.value, "Nat") if t.value >= 0 else None
    if isinstance(t, Op) and t.op == "cast":
        return t.args[0]
    if isinstance(t, Op) and t.op in ("+", "*"):
        a, b = _lift(t.args[0]), _lift(t.args[1])
        return None if a is None or b is None else Op(t.op, (a, b), "Nat")
    if isinstance(t, Op) and t.op == "^":
        a = _lift(t.args[0])
        return None if a is None else Op("^", (a, t.args[1]), "Nat")
    return None


def _has_cast(t: Term) -> bool:
    return isinstance(t, Op) and (t.op == "cast" or any(_has_cast(a) for a in t.args))


def _rewrite(prop: Term, mode: str, le_facts: set[tuple[object, object]]) -> Term:
    """``prop`` after the tactic (the same object where nothing applies)."""
    if isinstance(prop, Conn):
        new = tuple(_rewrite(a, mode, le_facts) for a in prop.args)
        return prop if all(a is b for a, b in zip(new, prop.args, strict=True)) else Conn(prop.op, new)
    if not (isinstance(prop, Rel) and prop.op in _RELS):
        return prop
    ty = type_of(prop.lhs)
    if mode == "zify" and ty == "Nat":
        return Rel(prop.op, _push_nat(prop.lhs, le_facts), _push_nat(prop.rhs, le_facts))
    if mode in ("zify", "push_cast") and ty == "Int":
        new_rel = Rel(prop.op, _push(prop.lhs, le_facts), _push(prop.rhs, le_facts))
        return prop if new_rel == prop else new_rel
    if mode == "norm_cast" and ty == "Int" and (_has_cast(prop.lhs) or _has_cast(prop.rhs)):
        a, b = _lift(prop.lhs), _lift(prop.rhs)
        if a is not None and b is not None:
            return Rel(prop.op, a, b)
    return prop


def _derive(eng: Engine, goal: Goal, frm: Term, frm_pf: k.Proof, to: Term, facts: list[tuple[k.Proof, k.Term]]) -> k.Proof:
    """A kernel proof of ``to`` from a proof of ``frm`` (and the facts) by a certificate."""
    got = prove_fact(sequent(goal).to(kterm(to)), [(frm_pf, kterm(frm)), *facts], kterm(to))
    if got is None:
        raise TacticError("the kernel found no proof of the cast normalization")
    return k.Annot(got, kterm(to))


def _facts(eng: Engine, goal: Goal, tac: Tac) -> tuple[set[tuple[object, object]], list[tuple[k.Proof, k.Term]]]:
    """The ``[h, …]`` facts: ``b ≤ a`` pairs (for Nat.cast_sub) and their proofs."""
    pairs: set[tuple[object, object]] = set()
    proofs: list[tuple[k.Proof, k.Term]] = []
    for rev, s in tac.data.get("rules", []):
        if s.kind == "ident" and goal.hyp_named(s.value) is None and resolve(s.value) in NO_INSTANCE:
            if rev and resolve(s.value) in ONE_WAY:
                raise TacticError(f"{tac.name} [← {s.value}] is not supported by the embedded checker")
            continue  # `push_cast [Nat.cast_one]`: a lemma that rewrites nothing here, as a simp lemma
        prop, pe = elab_in_goal(eng, goal, s, None)
        if isinstance(prop, Rel) and prop.op in ("≤", "≥", "<", ">") and type_of(prop.lhs) == "Nat":
            small, big = (prop.lhs, prop.rhs) if prop.op in ("≤", "<") else (prop.rhs, prop.lhs)
            pairs.add((alpha_key(small), alpha_key(big)))
        pf = pe.proof() if eng.kernel_on else k.Sorry()
        proofs.append((k.Annot(pf, kterm(prop)), kterm(prop)))
    return pairs, proofs


@register("zify", "push_cast", "norm_cast")
def _cast_tactic(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    if tac.data.get("only"):
        raise TacticError(f"{tac.name} only is not supported by the embedded checker")
    le_facts, facts = _facts(eng, goal, tac)
    locs = tac.data.get("at") or ["⊢"]
    if "*" in locs:
        raise TacticError(f"{tac.name} at * is not supported by the embedded checker")
    for name in locs:
        if name == "⊢":
            continue
        h = goal.hyp_named(name)
        if h is None or isinstance(h.ty, str):
            raise TacticError(f"unknown hypothesis '{name}'")
        new_ty = _rewrite(h.ty, tac.name, le_facts)
        if new_ty == h.ty:
            raise TacticError(f"{tac.name} made no progress at {name}")
        pf = _derive(eng, goal, h.ty, k.Hyp(h.uid), new_ty, facts)
        new = Hyp(eng.fresh(), h.user, new_ty, h.hygienic)
        child = goal.with_(eng.fresh(), hyps=tuple(new if x.uid == h.uid else x for x in goal.hyps))
        eng.justify(goal, k.Have(new.uid, kterm(new_ty), pf, hole(child)))
        goal = child
    if "⊢" not in locs:
        return _then_trivial(eng, tac, [goal])
    new_t = _rewrite(goal.target, tac.name, le_facts)
    if new_t == goal.target:
        raise TacticError(f"{tac.name} made no progress")
    child = goal.with_(eng.fresh(), target=new_t)
    u = internal_uid()  # the new goal's proof, named, so the certificate's context holds it
    seq = sequent(goal).add(k.Entry(u, kterm(new_t)))
    got = prove_fact(seq, [(k.Hyp(u), kterm(new_t)), *facts], kterm(goal.target))
    if got is None:
        raise TacticError("the kernel found no proof of the cast normalization")
    eng.justify(goal, k.Have(u, kterm(new_t), hole(child), got))
    return _then_trivial(eng, tac, [child])


def _then_trivial(eng: Engine, tac: Tac, goals: list[Goal]) -> list[Goal]:
    """lean4 src/Init/Tactics.lean: ``norm_cast`` is ``norm_cast0 loc <;> try trivial``."""
    if tac.name != "norm_cast":
        return goals
    return [g for goal in goals for g in eng.run_text("try trivial", goal)]
