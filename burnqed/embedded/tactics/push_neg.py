"""push_neg (Mathlib/Tactic/PushNeg.lean) at the target or at hypotheses: negations pushed
inward by Mathlib's steps, each new proposition proved equivalent to the old one for the kernel
(not_forall / not_exists from the kernel's rules, congruence under binders, certificates for
the quantifier-free parts)."""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import internal_uid, prove_fact
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.bridge.lemma_proofs import prove_iff
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.rewrite import _locations, _replace_hyp
from burnqed.embedded.elab.expr import Binder, Conn, FVar, Rel, Term, instantiate, subterms

__all__ = ["push_neg"]


def _neg(t: Term) -> Term:
    """Mathlib's push_neg step on ``¬t`` (Mathlib/Tactic/PushNeg.lean, transformNegationStep:
    not_not, not_and, not_or, not_iff, not_imp, not_forall, not_exists, not_le, not_lt,
    not_ge, not_gt, ¬a = b ↦ a ≠ b, not_ne); anything else stays ``¬t``."""
    if isinstance(t, Conn):
        if t.op == "¬":
            return _push(t.args[0])
        if t.op == "∧":
            return Conn("→", (_push(t.args[0]), _neg(t.args[1])))
        if t.op == "∨":
            return Conn("∧", (_neg(t.args[0]), _neg(t.args[1])))
        if t.op == "→":
            return Conn("∧", (_push(t.args[0]), _neg(t.args[1])))
        if t.op == "↔":
            a, b = _push(t.args[0]), _push(t.args[1])
            return Conn("∨", (Conn("∧", (a, _neg(t.args[1]))), Conn("∧", (_neg(t.args[0]), b))))
    if isinstance(t, Binder):
        q = "∃" if t.q == "∀" else "∀"
        return Binder(q, t.name, t.ty, _neg(t.body))
    if isinstance(t, Rel):
        flip = {"≤": ("<", True), "<": ("≤", True), "≥": ("<", False), ">": ("≤", False), "=": ("≠", False), "≠": ("=", False)}
        if t.op in flip:
            op, swap = flip[t.op]
            return Rel(op, t.rhs, t.lhs) if swap else Rel(op, t.lhs, t.rhs)
    return Conn("¬", (t,))


def push_neg(t: Term) -> Term:
    """``t`` with every negation pushed inward as Mathlib's push_neg does."""
    return _push(t)


def _push(t: Term) -> Term:
    if isinstance(t, Conn):
        if t.op == "¬":
            return _neg(t.args[0])
        return Conn(t.op, tuple(_push(a) for a in t.args))
    if isinstance(t, Binder):
        return Binder(t.q, t.name, t.ty, _push(t.body), t.implicit)
    return t


def _iff(a: Term, b: Term) -> k.Term:
    return k.App("↔", (kterm(a), kterm(b)), "Prop")


def _quantified(t: Term) -> bool:
    return any(isinstance(x, Binder) for x in subterms(t))


def _combine(seq: k.Sequent, parts: list[tuple[k.Proof, k.Term]], goal: k.Term) -> k.Proof | None:
    return prove_fact(seq.to(goal), [(k.Annot(p, t), t) for p, t in parts], goal)


def _open(seq: k.Sequent, b: Binder) -> tuple[k.Sequent, int, Term]:
    u = internal_uid()
    return seq.add(k.Entry(u, b.ty)), u, instantiate(b.body, b.name, FVar(u, b.ty))


def _iff_push(seq: k.Sequent, t: Term) -> k.Proof | None:
    """A kernel proof of ``t ↔ push_neg t``."""
    r = _push(t)
    if not _quantified(t):
        return prove_iff(seq, kterm(t), kterm(r), [])
    if isinstance(t, Binder):
        inner, u, body = _open(seq, t)
        pf = _iff_push(inner, body)
        return None if pf is None else k.CongrBind(u, k.Annot(pf, _iff(body, _push(body))))
    if isinstance(t, Conn) and t.op == "¬":
        return _iff_neg(seq, t.args[0])
    if isinstance(t, Conn):
        parts = []
        for a in t.args:
            pf = _iff_push(seq, a)
            if pf is None:
                return None
            parts.append((pf, _iff(a, _push(a))))
        return _combine(seq, parts, _iff(t, r))
    return None


def _iff_neg(seq: k.Sequent, a: Term) -> k.Proof | None:
    """A kernel proof of ``¬a ↔ push_neg (¬a)`` (not_forall / not_exists built here, the
    connectives combined by certificate from their parts)."""
    na, r = Conn("¬", (a,)), _neg(a)
    if not _quantified(a):
        return prove_iff(seq, kterm(na), kterm(r), [])
    if isinstance(a, Binder):
        inner, x, body = _open(seq, a)
        rec0 = _iff_neg(inner, body)  # ¬P x ↔ Q x
        if rec0 is None:
            return None
        rec = k.Annot(rec0, _iff(Conn("¬", (body,)), _neg(body)))
        h, u, v, q = internal_uid(), internal_uid(), internal_uid(), internal_uid()
        fx = k.Free(x)
        if a.q == "∀":  # ¬∀x, P ↔ ∃x, Q (classical)
            there = k.Intro(h, k.ByContra(u, k.ModusPonens(k.Hyp(h), k.Intro(x, k.ByContra(v, k.ModusPonens(k.Hyp(u), k.ExistsIntro(fx, k.ModusPonens(k.IffMp(rec), k.Hyp(v)))))))))
            back = k.Intro(h, k.Intro(u, k.ExistsElim(k.Hyp(h), x, q, k.ModusPonens(k.ModusPonens(k.IffMpr(rec), k.Hyp(q)), k.Inst(k.Hyp(u), fx)))))
        else:  # ¬∃x, P ↔ ∀x, Q
            there = k.Intro(h, k.Intro(x, k.ModusPonens(k.IffMp(rec), k.Intro(v, k.ModusPonens(k.Hyp(h), k.ExistsIntro(fx, k.Hyp(v)))))))
            back = k.Intro(h, k.Intro(u, k.ExistsElim(k.Hyp(u), x, q, k.ModusPonens(k.ModusPonens(k.IffMpr(rec), k.Inst(k.Hyp(h), fx)), k.Hyp(q)))))
        return k.IffIntro(there, back)
    if isinstance(a, Conn):
        parts = []
        for b in a.args:
            for pf, prop in ((_iff_push(seq, b), _iff(b, _push(b))), (_iff_neg(seq, b), _iff(Conn("¬", (b,)), _neg(b)))):
                if pf is not None:
                    parts.append((pf, prop))
        return _combine(seq, parts, _iff(na, r))
    return None


def _checked_iff(goal: Goal, old: Term, new: Term) -> k.Proof:
    seq = sequent(goal)
    pf = _iff_push(seq, old)
    if pf is None:
        raise TacticError("push_neg: the kernel found no proof of this step")
    return k.Annot(pf, _iff(old, new))


@register("push_neg")
def _push_neg(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    on = eng.kernel_on
    hyps, at_target = _locations(goal, tac.data.get("at"))
    for cur in hyps:
        new = _push(cur.ty)  # type: ignore[arg-type]
        if new == cur.ty:
            raise TacticError(f"push_neg made no progress at {cur.user}")
        after = _replace_hyp(eng, goal, cur, new)
        if on:
            new_h = after.hyps[goal.hyps.index(cur)]
            got = k.ModusPonens(k.IffMp(_checked_iff(goal, cur.ty, new)), k.Hyp(cur.uid))  # type: ignore[arg-type]
            eng.justify(goal, k.Have(new_h.uid, kterm(new), got, hole(after)))
        goal = after
    if at_target:
        new = _push(goal.target)
        if new == goal.target:
            raise TacticError("push_neg made no progress")
        after = goal.with_(eng.fresh(), target=new)
        if on:
            back = k.IffMpr(_checked_iff(goal, goal.target, new))
            eng.justify(goal, k.ModusPonens(back, k.Annot(hole(after), kterm(new))))
        goal = after
    return [goal]
