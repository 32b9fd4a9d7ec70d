"""interval_cases (Mathlib/Tactic/IntervalCases.lean): one goal per value of a bounded ℕ/ℤ
expression, each step justified to the kernel.

As Mathlib's: the bounds are the hypotheses ``a ≤ e``, ``a < e``, ``e ≤ b``, ``e < b`` (``≥``,
``>`` and negated ``<`` / ``≤`` read through, as ``whnfR`` does), with ``a``, ``b`` closed
numerals norm_num evaluates; the best of each side is used, and ``0 ≤ e`` on ℕ. Each value
``v`` gets a goal in which ``e`` is replaced by ``v`` in the target and in every hypothesis
(Mathlib generalizes ``e`` in all of them and substitutes), with ``h : e = v`` added for
``interval_cases h : e``. An empty range closes the goal.

The kernel sees a chain: ``lo ≤ e`` and ``e ≤ hi`` from the bounds by certificate, then for
each ``v`` excluded middle on ``e = v``: the ``e = v`` branch rewrites the target and the
hypotheses into the case's goal, the other derives ``v + 1 ≤ e`` by certificate.
"""

from __future__ import annotations


from burnqed.embedded import kernel as k
from burnqed.embedded.elab.evaluate import try_eval
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import Budget, prove_fact
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.elab.elaborate import ElabError, elab_value
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp, goal_scope
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import show
from burnqed.embedded.elab.expr import Conn, Num, Rel, Term, alpha_key, replace, type_of

__all__ = ["bounds"]

MAX_CASES = 4096


def _closed_value(t: Term) -> int | None:
    try:
        return try_eval(t)
    except Exception:  # noqa: BLE001 - an oversized or undefined closed term is no bound
        return None


def bounds(goal: Goal, e: Term) -> tuple[tuple[int, Hyp | None] | None, tuple[int, Hyp | None] | None]:
    """The best inclusive lower and upper bound of ``e`` and the hypothesis giving each
    (None: ℕ's own ``0 ≤ e``), as Mathlib's ``Methods.getBound`` reads them."""
    key = alpha_key(e)
    lo: tuple[int, Hyp | None] | None = (0, None) if type_of(e) == "Nat" else None
    hi: tuple[int, Hyp | None] | None = None
    for h in goal.hyps:
        t = h.ty
        if isinstance(t, str):
            continue
        negated = isinstance(t, Conn) and t.op == "¬"
        if negated:
            t = t.args[0]  # type: ignore[union-attr]
        if not (isinstance(t, Rel) and t.op in ("<", "≤", ">", "≥")):
            continue
        small, big = (t.lhs, t.rhs) if t.op in ("<", "≤") else (t.rhs, t.lhs)
        strict = t.op in ("<", ">")
        if negated:  # ¬ small < big: big ≤ small; ¬ small ≤ big: big < small
            small, big, strict = big, small, not strict
        if alpha_key(big) == key:  # a lower bound: small ≤ e or small < e
            v = _closed_value(small)
            if v is not None:
                v = v + 1 if strict else v
                if lo is None or v > lo[0]:
                    lo = (v, h)
        elif alpha_key(small) == key:  # an upper bound
            v = _closed_value(big)
            if v is not None:
                v = v - 1 if strict else v
                if hi is None or v < hi[0]:
                    hi = (v, h)
    return lo, hi


def _abstract_all(t: Term, e: Term, value: Term) -> Term:
    key = alpha_key(e)
    return replace(t, lambda s: value if alpha_key(s) == key else None)


@register("interval_cases")
def _interval_cases(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    try:
        e = elab_value(tac.data["term"], goal_scope(goal), None)
    except ElabError as exc:
        raise TacticError(exc.message) from exc
    ty = type_of(e)
    if ty not in ("Nat", "Int"):
        raise TacticError(f"interval_cases failed: unsupported type {ty}")
    lo, hi = bounds(goal, e)
    shown = show(goal, e)
    if lo is None and hi is None:
        raise TacticError(f"interval_cases failed: could not find bounds on {shown}")
    if lo is None:
        raise TacticError(f"interval_cases failed: could not find lower bound on {shown}")
    if hi is None:
        raise TacticError(f"interval_cases failed: could not find upper bound on {shown}")
    if hi[0] - lo[0] + 1 > MAX_CASES:
        raise TacticError(f"interval_cases: more than {MAX_CASES} cases for the embedded checker")
    cert = _Certifier(eng)
    ek = kterm(e)

    def le(a: k.Term, b: k.Term) -> k.Term:
        return k.App("≤", (a, b), "Prop")

    def premise(h: Hyp | None) -> list[tuple[k.Proof, k.Term]]:
        return [] if h is None else [(k.Hyp(h.uid), kterm(h.ty))]  # type: ignore[arg-type]

    if lo[0] > hi[0]:  # no value: the bounds contradict each other
        if eng.kernel_on:
            pf = cert.fact(goal, premise(lo[1]) + premise(hi[1]), k.FALSE)
            eng.justify(goal, k.FalseElim(k.Annot(pf, k.FALSE)))
        return []
    lit = lambda v: k.Lit(v, ty)  # noqa: E731
    # hygienic helpers carry the running bounds; the case goals drop them (weakening)
    low = Hyp(eng.fresh(), "lo", Rel("≤", Num(lo[0], ty), e), True)
    high = Hyp(eng.fresh(), "hi", Rel("≤", e, Num(hi[0], ty)), True)
    cur = goal.with_(eng.fresh(), hyps=(*goal.hyps, low, high))
    if eng.kernel_on:
        pf_lo = cert.fact(goal, premise(lo[1]), le(lit(lo[0]), ek))
        pf_hi = cert.fact(goal, premise(hi[1]), le(ek, lit(hi[0])))
        mid = goal.with_(eng.fresh(), hyps=(*goal.hyps, low))
        eng.justify(goal, k.Have(low.uid, kterm(low.ty), pf_lo, hole(mid)))
        eng.justify(mid, k.Have(high.uid, kterm(high.ty), pf_hi, hole(cur)))
    out: list[Goal] = []
    for v in range(lo[0], hi[0] + 1):
        eng.ctx.beat(1)  # each case is a step of work, as the heartbeats of Lean's case bash
        eq = Rel("=", e, Num(v, ty))
        heq = Hyp(eng.fresh(), tac.data.get("name") or "h", eq, not tac.data.get("name"))
        yes = cur.with_(eng.fresh(), hyps=(*cur.hyps, heq))
        out.append(_case(eng, goal, yes, heq, e, Num(v, ty), bool(tac.data.get("name"))))
        if v == hi[0]:  # the last value: e = hi from lo ≤ e ≤ hi
            if eng.kernel_on:
                pf = cert.fact(cur, [(k.Hyp(low.uid), kterm(low.ty)), (k.Hyp(high.uid), kterm(high.ty))], kterm(eq))
                eng.justify(cur, k.Have(heq.uid, kterm(eq), pf, hole(yes)))
            break
        hn = Hyp(eng.fresh(), "hn", Conn("¬", (eq,)), True)
        no = cur.with_(eng.fresh(), hyps=(*cur.hyps, hn))
        nxt_low = Hyp(eng.fresh(), "lo", Rel("≤", Num(v + 1, ty), e), True)
        nxt = cur.with_(eng.fresh(), hyps=(*goal.hyps, nxt_low, high))
        if eng.kernel_on:
            eng.justify(cur, k.Em(kterm(eq), heq.uid, hole(yes), hn.uid, hole(no)))
            pf = cert.fact(
                no,
                [(k.Hyp(low.uid), kterm(low.ty)), (k.Hyp(hn.uid), kterm(hn.ty))],  # type: ignore[arg-type]
                kterm(nxt_low.ty),
            )
            eng.justify(no, k.Have(nxt_low.uid, kterm(nxt_low.ty), pf, hole(nxt)))
        cur, low = nxt, nxt_low
    return out


def _case(eng: Engine, orig: Goal, yes: Goal, heq: Hyp, e: Term, v: Num, named: bool) -> Goal:
    """The goal of one value: ``e`` replaced by ``v`` in the target and the hypotheses of
    ``orig`` (``h : e = v`` kept when named), justified from ``yes`` by rewriting with ``heq``."""
    hyps: list[Hyp] = []
    haves: list[tuple[Hyp, Hyp]] = []
    for h in orig.hyps:
        if isinstance(h.ty, str):
            hyps.append(h)
            continue
        new_ty = _abstract_all(h.ty, e, v)
        if new_ty == h.ty:
            hyps.append(h)
        else:
            nh = Hyp(eng.fresh(), h.user, new_ty, h.hygienic)
            hyps.append(nh)
            haves.append((h, nh))
    if named:
        hyps.append(heq)
    target = _abstract_all(orig.target, e, v)
    child = Goal(eng.fresh(), tuple(hyps), target, orig.tag)
    eng.ctx.check_size(child)
    if eng.kernel_on:
        ek = kterm(e)
        eq_pf = k.Hyp(heq.uid)
        body = (
            k.Rewrite(eq_pf, k.abstract(kterm(orig.target), ek), False, hole(child))
            if target != orig.target
            else hole(child)
        )
        for old, new in reversed(haves):
            motive = k.abstract(kterm(old.ty), ek)  # type: ignore[arg-type]
            got = k.Rewrite(eq_pf, motive, True, k.Hyp(old.uid))
            body = k.Have(new.uid, kterm(new.ty), got, body)  # type: ignore[arg-type]
        eng.justify(yes, body)
    return child


class _Certifier:
    """Arithmetic facts for the chain, each by a certificate the kernel checks."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng

    def fact(self, goal: Goal, premises: list[tuple[k.Proof, k.Term]], target: k.Term) -> k.Proof:
        budget = Budget.of(self.eng.ctx)
        seq = sequent(goal)
        pf = prove_fact(seq, premises, target, budget=budget)
        if pf is None:
            raise TacticError(f"interval_cases: the kernel found no proof of a bound{budget.note()}")
        return k.Annot(pf, target)
