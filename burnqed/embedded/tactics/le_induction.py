"""``induction' h with k hk ih`` on a hypothesis ``h : m ≤ n`` (issue 37).

``m ≤ n`` on ℕ is the inductive predicate ``Nat.le m n`` (lean4 ``src/Init/Prelude.lean``:
constructors ``refl : Nat.le n n`` and ``step {m} : Nat.le n m → Nat.le n (m + 1)``;
``a < b`` is ``Nat.lt a b := Nat.le (a + 1) b``, ``b ≥ a`` is ``a ≤ b``). Induction on ``h``
(Mathlib's ``induction'``, ``Mathlib/Tactic/Cases.lean``) abstracts the index ``n``, a
variable: goal ``refl`` is the target at ``n := m``, goal ``step`` has ``k : ℕ``,
``hk : m ≤ k``, the induction hypothesis (the target at ``k``) and the target at ``k + 1``;
the names after ``with`` go to ``k``, ``hk``, the hypothesis, in order. Hypotheses that mention
``n`` are reverted and reintroduced as ``induction`` does. Lean's ``hk`` is ``Nat.le m k``,
read here as ``m ≤ k``.

Kernel proof: ``Nat.rec`` on ``n`` of ``m ≤ n → M n`` (``M``: the target with the reverted
premises); at ``0``, ``m = 0`` and the ``refl`` goal is rewritten; at ``k + 1``, either
``m ≤ k`` (the ``step`` goal, with the hypothesis applied to it) or ``m = k + 1`` (the ``refl``
goal rewritten), each equation by an arithmetic certificate.
"""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import internal_uid, prove_fact
from burnqed.embedded.tactics.interpreter import Engine
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.tactics.basic import intro_one
from burnqed.embedded.elab.expr import Conn, FVar, Num, Op, Rel, Term, fvars, replace_fvar

__all__ = ["le_induction"]


def _bounds(t: Term) -> tuple[Term, FVar] | None:
    """(m, n) of a hypothesis read as ``Nat.le m n`` with ``n`` a variable."""
    if not isinstance(t, Rel) or t.op not in ("≤", "≥", "<", ">"):
        return None
    lo, hi = (t.lhs, t.rhs) if t.op in ("≤", "<") else (t.rhs, t.lhs)
    if t.op in ("<", ">"):
        lo = Op("+", (lo, Num(1, "Nat")), "Nat")
    if not (isinstance(hi, FVar) and hi.ty == "Nat") or hi.uid in fvars(lo):
        return None
    return lo, hi


def _fact(seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]], goal: Term) -> k.Proof:
    g = kterm(goal)
    pf = prove_fact(seq.to(g), premises, g)
    if pf is None:
        raise TacticError("induction': the kernel found no proof of a bound")
    return k.Annot(pf, g)


def le_induction(eng: Engine, goal: Goal, hn: Hyp, names: list[str]) -> list[Goal]:
    """The goals ``refl`` and ``step`` of induction on ``hn : m ≤ n``."""
    got = _bounds(hn.ty)  # type: ignore[arg-type]
    if got is None:
        raise TacticError("induction' on a hypothesis needs `m ≤ n` (or <, ≥, >) with n a variable of ℕ")
    if len(names) > 3:
        raise TacticError("too many variable names provided")
    m, nv = got
    var = next(h for h in goal.hyps if h.uid == nv.uid)
    pos = goal.hyps.index(var)
    reverted: list[Hyp] = []
    for h in goal.hyps[pos + 1 :]:
        if h is hn:
            continue
        if isinstance(h.ty, str):
            if h.uid in fvars(m):
                raise TacticError("induction': the bound depends on a later variable")
            continue
        if fvars(h.ty) & ({var.uid} | {r.uid for r in reverted}):
            reverted.append(h)
    kept = tuple(h for h in goal.hyps if h.uid not in {var.uid, hn.uid} | {r.uid for r in reverted})
    motive = goal.target
    for h in reversed(reverted):
        motive = Conn("→", (h.ty, motive))  # type: ignore[arg-type]

    def at(v: Term) -> Term:
        return replace_fvar(motive, var.uid, v)

    def reintro(g: Goal) -> Goal:
        for h in reverted:
            g = intro_one(eng, g, h.user)
        return g

    nm = [x if x != "_" else None for x in names] + [None] * 3
    refl0 = Goal(eng.fresh(), kept, at(m), "refl")
    kh = Hyp(eng.fresh(), nm[0] or "m", "Nat", nm[0] is None)
    kv = FVar(kh.uid, "Nat")
    hk = Hyp(eng.fresh(), nm[1] or "a", Rel("≤", m, kv), nm[1] is None)
    ih = Hyp(eng.fresh(), nm[2] or "a_ih", at(kv), nm[2] is None)
    k1 = Op("+", (kv, Num(1, "Nat")), "Nat")
    step0 = Goal(eng.fresh(), (*kept, kh, hk, ih), at(k1), "step")

    # the kernel proof, in the context `kept` (nat_ind drops what mentions n)
    base = sequent(Goal(eng.fresh(), kept, goal.target, None))
    z = internal_uid()
    zt = k.abstract(kterm(at(FVar(z, "Nat"))), k.Free(z))  # λ z. M z

    def from_refl(eq: k.Proof) -> k.Proof:  # M(v) from the refl goal and eq : m = v
        return k.Rewrite(eq, zt, True, hole(refl0))

    h0 = internal_uid()
    le0 = Rel("≤", m, Num(0, "Nat"))
    s0 = base.add(k.Entry(h0, kterm(le0)))
    zero_pf = k.Intro(h0, from_refl(_fact(s0, [(k.Hyp(h0), kterm(le0))], Rel("=", m, Num(0, "Nat")))))
    kid, ihq, h1, u1, u2 = kh.uid, internal_uid(), internal_uid(), internal_uid(), internal_uid()
    le_k, le_k1 = Rel("≤", m, kv), Rel("≤", m, k1)
    s1 = base.add(k.Entry(kid, "Nat")).add(k.Entry(ihq, kterm(Conn("→", (le_k, at(kv)))))).add(k.Entry(h1, kterm(le_k1)))
    s_no = s1.add(k.Entry(u2, k.neg(kterm(le_k))))
    eq_k1 = _fact(s_no, [(k.Hyp(h1), kterm(le_k1)), (k.Hyp(u2), k.neg(kterm(le_k)))], Rel("=", m, k1))
    use_step = k.Have(hk.uid, kterm(le_k), k.Hyp(u1),
                     k.Have(ih.uid, kterm(at(kv)), k.ModusPonens(k.Hyp(ihq), k.Hyp(u1)), hole(step0)))
    succ_pf = k.Intro(h1, k.Em(kterm(le_k), u1, use_step, u2, from_refl(eq_k1)))
    q = Conn("→", (Rel("≤", m, nv), motive))
    g = internal_uid()
    use = k.ModusPonens(k.Hyp(g), _fact(sequent(goal), [(k.Hyp(hn.uid), kterm(hn.ty))], Rel("≤", m, nv)))  # type: ignore[arg-type]
    for h in reverted:
        use = k.ModusPonens(use, k.Hyp(h.uid))
    eng.justify(goal, k.Have(g, kterm(q), k.NatInd(var.uid, zero_pf, kid, ihq, succ_pf), use))
    return [reintro(refl0), reintro(step0)]
