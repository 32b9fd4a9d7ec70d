"""Proofs and the rules that check them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from burnqed.embedded.kernel.terms import (
    App,
    Bind,
    FALSE,
    Free,
    KernelError,
    Lit,
    TRUE,
    Term,
    abstract,
    frees,
    instantiate,
    loose,
    replace_free,
)
from burnqed.embedded.kernel.poly import evaluate, poly
from burnqed.embedded.kernel.context import Entry, Sequent, _expect_prop, conv, sort_of
from burnqed.embedded.kernel.arith import _neg, refute

__all__ = ["Proof", "check", "infer"]


@dataclass(frozen=True)
class Proof:
    """A proof tree node: a rule name and its arguments (see ``check``)."""

    rule: str
    args: tuple[Any, ...] = ()


def infer(seq: Sequent, p: Proof, out: list[tuple[int, Sequent]]) -> Term:
    """The proposition a proof in synthesis position proves."""
    r, a = p.rule, p.args
    if r == "hyp":
        e = seq.lookup(a[0])
        if e is None or isinstance(e.ty, str):
            raise KernelError(f"hyp: no hypothesis {a[0]}")
        return e.ty
    if r == "annot":
        _expect_prop(seq, a[1])
        _check(seq.to(a[1]), a[0], out)
        return a[1]
    if r == "app":
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "→"):
            raise KernelError("app: not an implication")
        _check(seq.to(f.args[0]), a[1], out)
        return f.args[1]
    if r == "inst":
        f = infer(seq, a[0], out)
        if not (isinstance(f, Bind) and f.q == "∀"):
            raise KernelError("inst: not a ∀")
        if loose(a[1]) or sort_of(seq, a[1]) != f.sort:
            raise KernelError("inst: the value has the wrong sort")
        return instantiate(f.body, a[1])
    if r in ("and_l", "and_r", "iff_mp", "iff_mpr"):
        f = infer(seq, a[0], out)
        want = "∧" if r.startswith("and") else "↔"
        if not (isinstance(f, App) and f.head == want):
            raise KernelError(f"{r}: expected {want}")
        x, y = f.args
        if r == "and_l":
            return x
        if r == "and_r":
            return y
        return App("→", (x, y) if r == "iff_mp" else (y, x), "Prop")
    raise KernelError(f"rule {r!r} cannot infer")


def _open(seq: Sequent, uid: int, b: Bind) -> tuple[Sequent, Term]:
    s = seq.add(Entry(uid, b.sort))
    return s, instantiate(b.body, Free(uid))


def check(seq: Sequent, p: Proof, out: list[tuple[int, Sequent]]) -> None:
    """Check ``p`` proves ``seq``; holes append (goal id, sequent) obligations to ``out``.
    A proof is untrusted input: a malformed one (missing or mistyped arguments) is refused
    with KernelError like a wrong one."""
    try:
        _check(seq, p, out)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise KernelError(f"malformed proof ({type(exc).__name__}: {exc})") from exc


def _check(seq: Sequent, p: Proof, out: list[tuple[int, Sequent]]) -> None:
    if not isinstance(p, Proof):
        raise KernelError("not a proof")
    r, a, t = p.rule, p.args, seq.target
    if r == "hole":
        out.append((a[0], seq))
        return
    if r in ("hyp", "annot", "app", "inst", "and_l", "and_r", "iff_mp", "iff_mpr"):
        got = infer(seq, p, out)
        if not conv(got, t):
            raise KernelError(f"{r}: proves a different proposition")
        return
    if r == "intro":
        if isinstance(t, Bind) and t.q == "∀":
            s, body = _open(seq, a[0], t)
            _check(s.to(body), a[1], out)
        elif isinstance(t, App) and t.head == "→":
            _check(seq.add(Entry(a[0], t.args[0])).to(t.args[1]), a[1], out)
        else:
            raise KernelError("intro: nothing to introduce")
        return
    if r == "true_i":
        if t != TRUE:
            raise KernelError("true_i: target is not True")
        return
    if r in ("and_i", "iff_i"):
        want = "∧" if r == "and_i" else "↔"
        if not (isinstance(t, App) and t.head == want):
            raise KernelError(f"{r}: target is not {want}")
        x, y = t.args
        if want == "↔":
            x, y = App("→", (x, y), "Prop"), App("→", (y, x), "Prop")
        _check(seq.to(x), a[0], out)
        _check(seq.to(y), a[1], out)
        return
    if r in ("or_l", "or_r"):
        if not (isinstance(t, App) and t.head == "∨"):
            raise KernelError(f"{r}: target is not ∨")
        _check(seq.to(t.args[0 if r == "or_l" else 1]), a[0], out)
        return
    if r == "ex_i":
        if not (isinstance(t, Bind) and t.q == "∃") or loose(a[0]) or sort_of(seq, a[0]) != t.sort:
            raise KernelError("ex_i: not an ∃ or a witness of the wrong sort")
        _check(seq.to(instantiate(t.body, a[0])), a[1], out)
        return
    if r == "or_e":
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "∨"):
            raise KernelError("or_e: not a disjunction")
        _check(seq.add(Entry(a[1], f.args[0])), a[2], out)
        _check(seq.add(Entry(a[3], f.args[1])), a[4], out)
        return
    if r == "ex_e":
        f = infer(seq, a[0], out)
        if not (isinstance(f, Bind) and f.q == "∃"):
            raise KernelError("ex_e: not an ∃")
        s, body = _open(seq, a[1], f)
        _check(s.add(Entry(a[2], body)), a[3], out)
        return
    if r == "dvd_i":  # a ∣ b from b = a * c (the definition of ∣ on Nat and Int)
        if not (isinstance(t, App) and t.head == "∣"):
            raise KernelError("dvd_i: target is not ∣")
        a_, b_ = t.args
        s_ = sort_of(seq, a_)
        if loose(a[0]) or sort_of(seq, a[0]) != s_:
            raise KernelError("dvd_i: witness of the wrong sort")
        _check(seq.to(App("=", (b_, App("*", (a_, a[0]), s_)), "Prop")), a[1], out)
        return
    if r == "dvd_e":  # from a ∣ b: a new c with b = a * c
        f = infer(seq, a[0], out)
        if not (isinstance(f, App) and f.head == "∣"):
            raise KernelError("dvd_e: not a divisibility")
        a_, b_ = f.args
        s_ = sort_of(seq, a_)
        s2 = seq.add(Entry(a[1], s_))
        eq = App("=", (b_, App("*", (a_, Free(a[1])), s_)), "Prop")
        _check(s2.add(Entry(a[2], eq)), a[3], out)
        return
    if r == "false_e":
        if infer(seq, a[0], out) != FALSE:
            raise KernelError("false_e: not a proof of False")
        return
    if r == "have":
        _expect_prop(seq, a[1])
        _check(seq.to(a[1]), a[2], out)
        _check(seq.add(Entry(a[0], a[1])), a[3], out)
        return
    if r == "by_contra":
        _check(seq.add(Entry(a[0], _neg(t))).to(FALSE), a[1], out)
        return
    if r == "em":
        _expect_prop(seq, a[0])
        _check(seq.add(Entry(a[1], a[0])), a[2], out)
        _check(seq.add(Entry(a[3], _neg(a[0]))), a[4], out)
        return
    if r == "nat_ind":
        x, z, k, ih, step = a
        e = seq.lookup(x)
        if e is None or e.ty != "Nat":
            raise KernelError("nat_ind: not a Nat variable")
        # hypotheses about x are left behind (weakening): revert them into the target first
        base = Sequent(
            tuple(h for h in seq.ctx if isinstance(h.ty, str) or x not in frees(h.ty)), t
        )
        motive = abstract(t, Free(x))
        _check(base.to(instantiate(motive, Lit(0, "Nat"))), z, out)
        s = base.add(Entry(k, "Nat"))
        s = s.add(Entry(ih, instantiate(motive, Free(k))))
        _check(s.to(instantiate(motive, App("+", (Free(k), Lit(1, "Nat")), "Nat"))), step, out)
        return
    if r == "subst":  # eq : x = e (or e = x), x a variable not in e: x := e everywhere
        f = infer(seq, a[0], out)
        x = a[1]
        if not (isinstance(f, App) and f.head == "="):
            raise KernelError("subst: not an equation")
        lhs, rhs = f.args
        e = rhs if lhs == Free(x) else lhs if rhs == Free(x) else None
        entry = seq.lookup(x)
        if e is None or entry is None or not isinstance(entry.ty, str) or x in frees(e):
            raise KernelError("subst: not an equation of a variable")
        ctx = tuple(
            Entry(h.uid, h.ty if isinstance(h.ty, str) else replace_free(h.ty, x, e))
            for h in seq.ctx
            if h.uid != x
        )
        _check(Sequent(ctx, replace_free(t, x, e)), a[2], out)
        return
    if r == "rw":  # eq : l = r (or l ↔ r); motive[l] is the target, prove motive[r]
        f = infer(seq, a[0], out)
        motive, rev = a[1], a[2]
        if not (isinstance(f, App) and f.head in ("=", "↔")):
            raise KernelError("rw: not an equation or iff")
        lhs, rhs = f.args[::-1] if rev else f.args
        hole = "Prop" if f.head == "↔" else sort_of(seq, lhs)
        if sort_of(seq, motive, (hole,)) != "Prop":
            raise KernelError("rw: the motive is not a proposition")
        if not conv(instantiate(motive, lhs), t):
            raise KernelError("rw: the motive does not give the target")
        _check(seq.to(instantiate(motive, rhs)), a[3], out)
        return
    if r == "congr_bind":  # (Q x, A x) ↔ (Q x, B x) from ∀ x, A x ↔ B x
        if not (isinstance(t, App) and t.head == "↔"):
            raise KernelError("congr_bind: target is not ↔")
        x, y = t.args
        if not (isinstance(x, Bind) and isinstance(y, Bind) and (x.q, x.sort) == (y.q, y.sort)):
            raise KernelError("congr_bind: binders differ")
        s = seq.add(Entry(a[0], x.sort))
        body = App("↔", (instantiate(x.body, Free(a[0])), instantiate(y.body, Free(a[0]))), "Prop")
        _check(s.to(body), a[1], out)
        return
    if r in ("refl", "ring"):
        if not (isinstance(t, App) and t.head in ("=", "↔", "≤")):
            raise KernelError(f"{r}: target is not =, ↔ or ≤")
        x, y = t.args
        if conv(x, y) if t.head == "↔" else x == y:
            return
        if t.head == "↔" or poly(x) != poly(y):
            raise KernelError(f"{r}: the sides differ")
        return
    if r == "decide":
        if frees(t) or loose(t) or not evaluate(t):
            raise KernelError("decide: the proposition is not closed or is false")
        return
    if r == "arith":  # facts proved by a[0], refuted by certificate a[1]; target False
        if t != FALSE:
            raise KernelError("arith: the target must be False")
        props = [infer(seq, q, out) for q in a[0]]
        refute(seq, props, a[1])
        return
    if r == "sorry":
        out.append((-1, seq))
        return
    raise KernelError(f"unknown rule {r!r}")
