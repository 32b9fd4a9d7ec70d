"""Natural deduction: hypotheses, implication, ∀, ∧, ↔, ∨, ∃, True, False, cut, classical.

Each function takes the sequent, the rule's node and (for an elimination) the proposition
its major premise proves, refuses a wrong instance, and returns the premises still to check
in order: (sequent, proof) pairs (``rules`` checks them).
"""

from __future__ import annotations

from burnqed.embedded.kernel.context import Entry, Sequent, expect_prop, sort_of
from burnqed.embedded.kernel.proofs import (
    AndIntro,
    AndLeft,
    AndRight,
    ByContra,
    Em,
    ExistsElim,
    ExistsIntro,
    FalseElim,
    Have,
    IffIntro,
    IffMp,
    IffMpr,
    Intro,
    OrElim,
    OrInl,
    OrInr,
    Proof,
    TrueIntro,
)
from burnqed.embedded.kernel.terms import App, Bind, FALSE, Free, KernelError, TRUE, Term, instantiate, loose, neg

__all__ = ["Premises", "eliminate", "hyp", "inst", "introduce", "modus_ponens", "open_bind", "project"]

Premises = list[tuple[Sequent, Proof]]


def open_bind(seq: Sequent, uid: int, b: Bind) -> tuple[Sequent, Term]:
    """The context with a new variable ``uid`` of the binder's sort, and the opened body."""
    return seq.add(Entry(uid, b.sort)), instantiate(b.body, Free(uid))


def _is(t: Term, head: str) -> bool:
    return isinstance(t, App) and t.head == head


# ---------------------------------------------------------------- synthesis position


def hyp(seq: Sequent, uid: int) -> Term:
    """The proposition of the hypothesis ``uid``."""
    e = seq.lookup(uid)
    if e is None or isinstance(e.ty, str):
        raise KernelError(f"Hyp: no hypothesis {uid}")
    return e.ty


def modus_ponens(major: Term) -> tuple[Term, Term]:
    """The premise and the conclusion of an implication."""
    if not _is(major, "→"):
        raise KernelError("ModusPonens: not an implication")
    return major.args[0], major.args[1]  # type: ignore[union-attr]


def inst(seq: Sequent, major: Term, value: Term) -> Term:
    """A ∀ instantiated at a value of its sort."""
    if not (isinstance(major, Bind) and major.q == "∀"):
        raise KernelError("Inst: not a ∀")
    if loose(value) or sort_of(seq, value) != major.sort:
        raise KernelError("Inst: the value has the wrong sort")
    return instantiate(major.body, value)


def project(p: AndLeft | AndRight | IffMp | IffMpr, major: Term) -> Term:
    """A side of a conjunction, or a direction of an iff."""
    want = "∧" if isinstance(p, (AndLeft, AndRight)) else "↔"
    if not _is(major, want):
        raise KernelError(f"{type(p).__name__}: expected {want}")
    x, y = major.args  # type: ignore[union-attr]
    match p:
        case AndLeft():
            return x
        case AndRight():
            return y
        case IffMp():
            return App("→", (x, y), "Prop")
    return App("→", (y, x), "Prop")


# ---------------------------------------------------------------- introductions, cut, classical


def introduce(
    seq: Sequent, p: Intro | TrueIntro | AndIntro | IffIntro | OrInl | OrInr | ExistsIntro | Have | ByContra | Em
) -> Premises:
    """The premises of an introduction rule (or cut, or a classical rule) for the target."""
    t = seq.target
    match p:
        case Intro(uid, body):
            if isinstance(t, Bind) and t.q == "∀":
                s, opened = open_bind(seq, uid, t)
                return [(s.to(opened), body)]
            if _is(t, "→"):
                return [(seq.add(Entry(uid, t.args[0])).to(t.args[1]), body)]  # type: ignore[union-attr]
            raise KernelError("Intro: nothing to introduce")
        case TrueIntro():
            if t != TRUE:
                raise KernelError("TrueIntro: target is not True")
            return []
        case AndIntro(left, right) | IffIntro(left, right):
            want = "∧" if isinstance(p, AndIntro) else "↔"
            if not _is(t, want):
                raise KernelError(f"{type(p).__name__}: target is not {want}")
            x, y = t.args  # type: ignore[union-attr]
            if want == "↔":
                x, y = App("→", (x, y), "Prop"), App("→", (y, x), "Prop")
            return [(seq.to(x), left), (seq.to(y), right)]
        case OrInl(proof) | OrInr(proof):
            if not _is(t, "∨"):
                raise KernelError(f"{type(p).__name__}: target is not ∨")
            return [(seq.to(t.args[0 if isinstance(p, OrInl) else 1]), proof)]  # type: ignore[union-attr]
        case ExistsIntro(witness, body):
            if not (isinstance(t, Bind) and t.q == "∃") or loose(witness) or sort_of(seq, witness) != t.sort:
                raise KernelError("ExistsIntro: not an ∃ or a witness of the wrong sort")
            return [(seq.to(instantiate(t.body, witness)), body)]
        case Have(uid, prop, proof, body):
            expect_prop(seq, prop)
            return [(seq.to(prop), proof), (seq.add(Entry(uid, prop)), body)]
        case ByContra(uid, body):
            return [(seq.add(Entry(uid, neg(t))).to(FALSE), body)]
        case Em(prop, pos_uid, pos, neg_uid, neg_):
            expect_prop(seq, prop)
            return [(seq.add(Entry(pos_uid, prop)), pos), (seq.add(Entry(neg_uid, neg(prop))), neg_)]
    raise KernelError("not an introduction")


# ---------------------------------------------------------------- eliminations


def eliminate(seq: Sequent, p: OrElim | ExistsElim | FalseElim, major: Term) -> Premises:
    """The premises of an elimination rule whose major premise proves ``major``."""
    match p:
        case OrElim(_, left_uid, left, right_uid, right):
            if not _is(major, "∨"):
                raise KernelError("OrElim: not a disjunction")
            a, b = major.args  # type: ignore[union-attr]
            return [(seq.add(Entry(left_uid, a)), left), (seq.add(Entry(right_uid, b)), right)]
        case ExistsElim(_, var, hyp_uid, body):
            if not (isinstance(major, Bind) and major.q == "∃"):
                raise KernelError("ExistsElim: not an ∃")
            s, opened = open_bind(seq, var, major)
            return [(s.add(Entry(hyp_uid, opened)), body)]
        case FalseElim():
            if major != FALSE:
                raise KernelError("FalseElim: not a proof of False")
            return []
    raise KernelError("not an elimination")
