"""Kernel proofs of the built-in lemmas (``lemma_proof``) and of the equivalences simp
rewrites with (``prove_iff``: congruence under binders plus arithmetic certificates).

Nothing here is trusted: every proof built is checked by the kernel where it is used.
"""

from __future__ import annotations

from functools import lru_cache

from burnqed.embedded import kernel as k
from burnqed.embedded.decide.certify import Budget, internal_uid, prove_fact

__all__ = ["lemma_proof", "prove_iff"]


def _hyp_uid(p: k.Proof) -> list[int]:
    return [p.uid] if isinstance(p, k.Hyp) else []


def _dvd_proof(seq: k.Sequent, hyps: list[int], witnesses: tuple[k.Term, ...] = ()) -> k.Proof | None:
    """Divisibility by its definition: unfold ``a ∣ b`` hypotheses into ``b = a * c``,
    substitute, and find a witness for the target among products of the new variables."""
    for i, h in enumerate(hyps):
        e = seq.lookup(h)
        if e is not None and isinstance(e.ty, k.App) and e.ty.head == "∣":
            c, eq = internal_uid(), internal_uid()
            a, b = e.ty.args
            srt = k.sort_of(seq, a)
            inner = seq.add(k.Entry(c, srt)).add(
                k.Entry(eq, k.App("=", (b, k.App("*", (a, k.Free(c)), srt)), "Prop"))
            )
            rest = hyps[:i] + hyps[i + 1 :]
            if isinstance(b, k.Free) and b.uid not in k.frees(a) and k.sort_of(seq, b) == srt:
                ctx = tuple(
                    k.Entry(x.uid, x.ty if isinstance(x.ty, str) else k.replace_free(x.ty, b.uid, k.App("*", (a, k.Free(c)), srt)))
                    for x in inner.ctx
                    if x.uid != b.uid
                )
                sub = k.Sequent(ctx, k.replace_free(inner.target, b.uid, k.App("*", (a, k.Free(c)), srt)))
                body = _dvd_proof(sub, rest, (*witnesses, k.Free(c)))
                if body is None:
                    return None
                return k.DvdElim(k.Hyp(h), c, eq, k.Subst(k.Hyp(eq), b.uid, body))
            body = _dvd_proof(inner, rest, (*witnesses, k.Free(c)))
            return None if body is None else k.DvdElim(k.Hyp(h), c, eq, body)
    t = seq.target
    if not (isinstance(t, k.App) and t.head == "∣"):
        return None
    a, b = t.args
    srt = k.sort_of(seq, a)
    vars_ = [k.Free(x.uid) for x in seq.ctx if x.ty == srt]
    cands: list[k.Term] = [k.Lit(1, srt), k.Lit(0, srt), *vars_]
    if len(witnesses) >= 2:
        prod = witnesses[0]
        for w in witnesses[1:]:
            prod = k.App("*", (prod, w), srt)
        cands.insert(0, prod)
        total = witnesses[0]  # a ∣ b → a ∣ c → a ∣ b + c: the witness is the sum (Nat.dvd_add)
        for w in witnesses[1:]:
            total = k.App("+", (total, w), srt)
        cands.insert(1, total)
        if srt == "Int":  # a ∣ b → a ∣ c → a ∣ b - c (dvd_sub): the difference
            cands.insert(2, k.App("-", (witnesses[0], witnesses[1]), srt))
    # a ∣ b → a ∣ b * c: the witness times a variable (dvd_mul_of_dvd_left / _right)
    cands += [k.App("*", (w, v), srt) for w in witnesses for v in vars_]
    for w in cands:
        if k.poly(b) == k.poly(k.App("*", (a, w), srt)):
            return k.DvdIntro(w, k.Ring())
    return None


@lru_cache(maxsize=1024)
def lemma_proof(statement: k.Term) -> k.Proof | None:
    """A kernel proof of a closed statement (a built-in lemma): introduce its binders and
    premises, then an arithmetic certificate (squares of atoms allowed). Checked here."""
    seq = k.Sequent((), statement)
    intros: list[int] = []
    premises: list[tuple[k.Proof, k.Term]] = []
    t = statement
    while True:
        if isinstance(t, k.Bind) and t.q == "∀":
            u = internal_uid()
            intros.append(u)
            seq = seq.add(k.Entry(u, t.sort))
            t = k.instantiate(t.body, k.Free(u))
        elif isinstance(t, k.App) and t.head == "→" and t.args[1] != k.FALSE:
            u = internal_uid()
            intros.append(u)
            seq = seq.add(k.Entry(u, t.args[0]))
            premises.append((k.Hyp(u), t.args[0]))
            t = t.args[1]
        else:
            break
    body = (
        prove_fact(seq.to(t), premises, t)
        or prove_fact(seq.to(t), premises, t, nonlinear=True)
        or _dvd_proof(seq.to(t), [u for pr, _ in premises for u in _hyp_uid(pr)])
        or _dvd_cases_proof(seq.to(t), premises)
        or _induction_proof(seq.to(t), premises, intros)
    )
    if body is None:
        return None
    for u in reversed(intros):
        body = k.Intro(u, body)
    try:
        k.check(k.Sequent((), statement), body, [])
    except k.KernelError:
        return None
    return body


def _dvd_cases_proof(seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]]) -> k.Proof | None:
    """A non-divisibility target from an ℕ premise ``a ∣ b``: unfold it into ``b = a * c``, split
    on ``c < 1`` (``c = 0``) or ``1 ≤ c``, and prove each case by a non-linear certificate
    (``0 < n → m ∣ n → m ≤ n``: ``c = 0`` makes ``n = 0``; else ``m ≤ m * c``)."""
    t = seq.target
    for i, (pr, prop) in enumerate(premises):
        if not (isinstance(prop, k.App) and prop.head == "∣" and k.sort_of(seq, prop.args[0]) == "Nat"):
            continue
        a, b = prop.args
        c, eq, lo, hi = internal_uid(), internal_uid(), internal_uid(), internal_uid()
        eq_t = k.App("=", (b, k.App("*", (a, k.Free(c)), "Nat")), "Prop")
        inner = seq.add(k.Entry(c, "Nat")).add(k.Entry(eq, eq_t))
        rest = [*premises[:i], *premises[i + 1 :], (k.Hyp(eq), eq_t)]
        small = k.App("<", (k.Free(c), k.Lit(1, "Nat")), "Prop")
        big = k.App("≤", (k.Lit(1, "Nat"), k.Free(c)), "Prop")
        neg_small = k.App("→", (small, k.FALSE), "Prop")
        zero = prove_fact(inner.add(k.Entry(lo, small)).to(t), [*rest, (k.Hyp(lo), small)], t, nonlinear=True)
        if zero is None:
            continue
        pos_seq = inner.add(k.Entry(hi, neg_small)).to(t)
        one = prove_fact(pos_seq, [*rest, (k.Hyp(hi), neg_small)], big)
        if one is None:
            continue
        mid = internal_uid()
        step = prove_fact(pos_seq.add(k.Entry(mid, big)), [*rest, (k.Hyp(mid), big)], t, nonlinear=True)
        if step is None:
            continue
        return k.DvdElim(pr, c, eq, k.Em(small, lo, zero, hi, k.Have(mid, big, one, step)))
    return None


def _induction_proof(seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]], intros: list[int]) -> k.Proof | None:
    """Induction on an ℕ variable the target mentions and no premise does, the last introduced
    first (a power with that exponent: ``m ≤ n → m ^ i ≤ n ^ i``, ``n < 2 ^ n``): base and step
    each by a certificate (linear, else non-linear), the step with the induction hypothesis."""
    t = seq.target
    for x in reversed(intros):
        entry = seq.lookup(x)
        if entry is None or entry.ty != "Nat" or x not in k.frees(t) or any(x in k.frees(p) for _, p in premises):
            continue
        motive = k.abstract(t, k.Free(x))
        base = k.instantiate(motive, k.Lit(0, "Nat"))
        z = _fact(seq.to(base), premises, base)
        if z is None:
            continue
        kk, ih = internal_uid(), internal_uid()
        ih_ty = k.instantiate(motive, k.Free(kk))
        step_t = k.instantiate(motive, k.App("+", (k.Free(kk), k.Lit(1, "Nat")), "Nat"))
        inner = seq.add(k.Entry(kk, "Nat")).add(k.Entry(ih, ih_ty)).to(step_t)
        step = _fact(inner, [*premises, (k.Hyp(ih), ih_ty)], step_t)
        if step is not None:
            return k.NatInd(x, z, kk, ih, step)
    return None


def _fact(seq: k.Sequent, premises: list[tuple[k.Proof, k.Term]], goal: k.Term) -> k.Proof | None:
    """A linear certificate for ``goal``, else a non-linear one."""
    return prove_fact(seq, premises, goal) or prove_fact(seq, premises, goal, nonlinear=True)


def _has_binder(t: k.Term) -> bool:
    if isinstance(t, k.Bind):
        return True
    return isinstance(t, k.App) and any(_has_binder(a) for a in t.args)


def _iff(a: k.Term, b: k.Term) -> k.Term:
    return k.App("↔", (a, b), "Prop")


def _instances(
    seq: k.Sequent, sources: list[tuple[k.Proof, k.Term]], scope: list[int], limit: int = 48
) -> list[tuple[k.Proof, k.Term]]:
    """∀-rules instantiated at the variables in scope (one or two binders), for the leaves."""
    out: list[tuple[k.Proof, k.Term]] = []
    vars_ = [(u, e.ty) for u in scope if (e := seq.lookup(u)) is not None and isinstance(e.ty, str)]
    for pf, prop in sources:
        frontier = [(pf, prop)]
        for _ in range(2):
            nxt = []
            for p, t in frontier:
                if not (isinstance(t, k.Bind) and t.q == "∀"):
                    continue
                for u, sort in vars_:
                    if sort == t.sort:
                        nxt.append((k.Inst(p, k.Free(u)), k.instantiate(t.body, k.Free(u))))
            out.extend(nxt)
            frontier = nxt
            if len(out) > limit:
                return out[:limit]
    return out


def prove_iff(
    seq: k.Sequent,
    a: k.Term,
    b: k.Term,
    sources: list[tuple[k.Proof, k.Term]],
    scope: list[int] | None = None,
    budget: Budget | None = None,
) -> k.Proof | None:
    """A kernel proof of ``a ↔ b`` (a simplification step): congruence under binders,
    binders over an unused variable dropped, and quantifier-free leaves proved by
    certificates from the hypotheses and the rules (``sources``: proofs of rule
    propositions; ∀-rules are instantiated at the variables in scope)."""
    scope = list(scope or [])
    if k.conv(a, b):
        return k.Refl()
    if isinstance(a, k.Bind) and isinstance(b, k.Bind) and (a.q, a.sort) == (b.q, b.sort):
        u = internal_uid()
        inner = seq.add(k.Entry(u, a.sort))
        body = prove_iff(
            inner, k.instantiate(a.body, k.Free(u)), k.instantiate(b.body, k.Free(u)), sources, [*scope, u], budget
        )
        return None if body is None else k.CongrBind(u, body)
    if isinstance(a, k.Bind) and not isinstance(b, k.Bind):
        # the binder went away (its variable is no longer used): Q x, A ↔ Q x, B ↔ B
        mid = k.Bind(a.q, a.sort, b)
        first = prove_iff(seq, a, mid, sources, scope, budget)
        if first is None:
            return None
        return prove_fact(
            seq.to(_iff(a, b)),
            [
                (k.Annot(first, _iff(a, mid)), _iff(a, mid)),
                (k.Annot(_drop_unused(mid), _iff(mid, b)), _iff(mid, b)),
            ],
            _iff(a, b),
            budget=budget,
        )
    premises = [(k.Hyp(e.uid), e.ty) for e in seq.ctx if not isinstance(e.ty, str)]
    premises += [(p, t) for p, t in sources if not _has_binder(t)]
    premises += _instances(seq, sources, scope)
    if not (_has_binder(a) or _has_binder(b)):
        return prove_fact(seq.to(_iff(a, b)), premises, _iff(a, b), budget=budget)
    if isinstance(a, k.App) and isinstance(b, k.App) and a.head == b.head and a.head in ("∧", "∨", "→", "↔"):
        parts = []
        for x, y in zip(a.args, b.args, strict=True):
            p = prove_iff(seq, x, y, sources, scope, budget)
            if p is None:
                return None
            parts.append((k.Annot(p, _iff(x, y)), _iff(x, y)))
        return prove_fact(seq.to(_iff(a, b)), parts, _iff(a, b), budget=budget)
    return prove_fact(seq.to(_iff(a, b)), premises, _iff(a, b), budget=budget)


def _drop_unused(a: k.Bind) -> k.Proof:
    """A proof of ``(Q x, C) ↔ C`` where x does not occur in C."""
    h, u, v = internal_uid(), internal_uid(), internal_uid()
    witness = k.Lit(0, a.sort) if a.sort != "Prop" else k.TRUE
    if a.q == "∀":
        there = k.Intro(h, k.Inst(k.Hyp(h), witness))
        back = k.Intro(h, k.Intro(u, k.Hyp(h)))
    else:
        there = k.Intro(h, k.ExistsElim(k.Hyp(h), u, v, k.Hyp(v)))
        back = k.Intro(h, k.ExistsIntro(witness, k.Hyp(h)))
    return k.IffIntro(there, back)
