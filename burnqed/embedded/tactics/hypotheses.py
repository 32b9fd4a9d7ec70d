"""Tactics that work on the context and the shape of a goal: exists (use: tactics/use.py), specialize,
have, show, by_contra, by_cases, clear, symm. Each replaced goal gets a kernel proof."""

from __future__ import annotations

from dataclasses import replace

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm, sequent
from burnqed.embedded.decide.certify import prove_fact
from burnqed.embedded.tactics.interpreter import Engine, register, render
from burnqed.embedded.tactics.proofterm import TacticError, dvd_exists, elab_witness, unify
from burnqed.embedded.elab.state import Goal, Hyp, goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.proofterm_fun import CONGR_ARG
from burnqed.embedded.tactics.basic import add_hyp, discharge_proof, elab_in_goal, intro_one, prop_in_goal, show
from burnqed.embedded.elab.expr import Binder, Conn, Const, Rel, Term, instantiate, mvars

__all__: list[str] = []


@register("exists")  # `use` is tactics/use.py
def _exists(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    scope = goal_scope(goal)
    steps: list[tuple[type[k.ExistsIntro] | type[k.DvdIntro], Term]] = []
    for s in tac.data["terms"]:
        rule: type[k.ExistsIntro] | type[k.DvdIntro] = k.ExistsIntro
        if isinstance(t, Rel) and t.op == "∣":
            t, rule = dvd_exists(t), k.DvdIntro
        if isinstance(t, Binder) and t.q == "∃":
            w = elab_witness(s, scope, t.ty)
            steps.append((rule, w))
            t = instantiate(t.body, t.name, w)
        elif isinstance(t, Conn) and t.op == "∧":
            raise TacticError("use: too many arguments for the existential")
        else:
            raise TacticError(f"use: the goal is not an existential\n{render([goal])}")
    new = goal.with_(eng.fresh(), target=t)
    # `use` discharges with `try with_reducible use_discharger`; `exists` with `try trivial`
    closer = discharge_proof(new, reducible=tac.name == "use")
    pf = closer if closer is not None else hole(new)
    for rule, w in reversed(steps):
        pf = rule(kterm(w), pf)
    eng.justify(goal, pf)
    return [] if closer is not None else [new]


@register("specialize")
def _specialize(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    s = tac.data["term"]
    head = s.args[0] if s.kind == "app" else s
    if head.kind != "ident" or goal.hyp_named(head.value) is None:
        raise TacticError(
            "'specialize' requires a term of the form `h x_1 .. x_n` where `h` appears in the local context"
        )
    old = goal.hyp_named(head.value)
    assert old is not None
    prop, pe = elab_in_goal(eng, goal, s, None)
    if mvars(prop):
        raise TacticError(
            "don't know how to synthesize the implicit arguments of the specialization"
        )
    new_hyp = Hyp(eng.fresh(), old.user, prop)
    hyps = tuple(new_hyp if h.uid == old.uid else h for h in goal.hyps)
    new = goal.with_(eng.fresh(), hyps=hyps)
    if eng.kernel_on:
        eng.justify(goal, k.Have(new_hyp.uid, pe.kt(prop), pe.proof(), hole(new)))
    return [*pe.new_goals, new]


@register("have")
def _have(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    name = d["name"]
    ty = prop_in_goal(goal, d["type"]) if "type" in d else None
    side: list[Goal] = []
    if "binders" in d and "by" not in d:
        raise TacticError("have with binders before ':' is supported only with ':= by' in this fragment")
    if "by" in d:
        if ty is None:
            raise TacticError(
                "have ... := by: the type of the new hypothesis must be given"
            )
        block = goal.with_(eng.fresh(), target=ty, tag=None)
        inner = block
        for n in d.get("binders", ()):  # lean4 haveIdDecl: the binders introduced first
            inner = intro_one(eng, inner, n)
        left = eng.run(d["by"], [inner])
        if left:
            raise TacticError("unsolved goals\n" + render(left))
        pf = hole(block)
    elif "term" in d:
        prop, pe = elab_in_goal(eng, goal, d["term"], ty)
        if mvars(prop):
            raise TacticError(
                "don't know how to synthesize placeholder in the type of the new hypothesis"
            )
        ty = prop
        pf = pe.proof() if eng.kernel_on else k.Sorry()
    else:
        if ty is None:
            raise TacticError("have: expected ':=' or a type")
        side.append(goal.with_(eng.fresh(), target=ty, tag=None))
        pf = hole(side[0])
    new, h = add_hyp(eng, goal, name, ty)
    if "term" in d and "type" not in d and _congr_fun(d["term"]):
        # `have h := congr_arg (fun x => e) h'` without a type: Lean's hypothesis keeps the
        # redex `(fun x => e) a = (fun x => e) b` that simp beta-reduces, so a `simp at h` /
        # `norm_num at h` right after makes progress there (Lean-checked proofs rely on it);
        # the statement here is the reduced one, marked
        h = replace(h, unreduced=True)
        new = new.with_(new.uid, hyps=(*new.hyps[:-1], h))
    eng.justify(goal, k.Have(h.uid, kterm(ty), pf, hole(new)))
    return [*side, new]


def _congr_fun(s: Syn) -> bool:
    """``congr_arg f e`` / ``congrArg f e`` with ``f`` a ``fun`` (``(· % 10)`` included)."""
    while s.kind == "paren":
        s = s.args[0]
    if s.kind != "app" or len(s.args) != 3 or s.args[0].kind != "ident" or s.args[0].value not in CONGR_ARG:
        return False
    f = s.args[1]
    while f.kind == "paren":
        f = f.args[0]
    return f.kind == "fun"


@register("show")
def _show(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    ty = prop_in_goal(goal, tac.data["type"])
    if unify(ty, goal.target, {}) is None:
        raise TacticError(
            f"type mismatch\n  {show(goal, ty)}\nis not definitionally equal to the goal\n  {show(goal, goal.target)}"
        )
    new = goal.with_(eng.fresh(), target=ty)
    eng.justify(goal, hole(new))
    return [new]


@register("by_contra")
def _by_contra(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    negated = isinstance(t, Conn) and t.op == "¬"
    hyp_ty = t.args[0] if negated else Conn("¬", (t,))
    new, h = add_hyp(eng, goal, tac.data["name"], hyp_ty, target=Const("False"))
    eng.justify(goal, (k.Intro if negated else k.ByContra)(h.uid, hole(new)))
    return [new]


@register("by_contra!")
def _by_contra_bang(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    """Mathlib's ``by_contra! h`` (Mathlib/Tactic/ByContra.lean, ``macro_rules``: ``(by_contra
    h; try push_neg at h)``; the name defaults to ``this``)."""
    from burnqed.embedded.tactics.push_neg import _push_neg

    (new,) = _by_contra(eng, goal, tac)
    h = new.hyps[-1]
    try:
        return _push_neg(eng, new, Tac("push_neg", tac.pos, {"at": [h.user]}))
    except TacticError:
        return [new]


@register("by_cases")
def _by_cases(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    p = prop_in_goal(goal, tac.data["type"])
    pos, hp = add_hyp(eng, goal, tac.data["name"], p)
    neg, hn = add_hyp(eng, goal, tac.data["name"], Conn("¬", (p,)))
    out = [pos.with_(pos.uid, tag="pos"), neg.with_(neg.uid, tag="neg")]
    eng.justify(goal, k.Em(kterm(p), hp.uid, hole(out[0]), hn.uid, hole(out[1])))
    return out


@register("clear")
def _clear(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    from burnqed.embedded.elab.expr import fvars

    hyps = list(goal.hyps)
    if tac.data.get("keep") is not None:
        return _clear_except(eng, goal, tac.data["keep"])
    for n in tac.data["names"]:
        h = goal.hyp_named(n)
        if h is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        users = [
            o
            for o in hyps
            if o.uid != h.uid and not isinstance(o.ty, str) and h.uid in fvars(o.ty)
        ]
        if users or h.uid in fvars(goal.target):
            raise TacticError(f"tactic 'clear' failed, variable '{n}' depends on it")
        hyps = [o for o in hyps if o.uid != h.uid]
    new = goal.with_(eng.fresh(), hyps=tuple(hyps))
    eng.justify(goal, hole(new))
    return [new]


def _clear_except(eng: Engine, goal: Goal, keep: list[str]) -> list[Goal]:
    """Mathlib's ``clear * - h…`` (Mathlib/Tactic/ClearExcept.lean): every local but the named
    ones (and instances: the fragment has none) goes to ``MVarId.tryClearMany``, which tries them
    last to first and keeps, silently, one the goal or a remaining local depends on."""
    from burnqed.embedded.elab.expr import fvars

    kept = set()
    for n in keep:
        h = goal.hyp_named(n)
        if h is None:
            raise TacticError(f"unknown identifier '{n}'")
        kept.add(h.uid)
    hyps = list(goal.hyps)
    for h in reversed(goal.hyps):
        if h.uid in kept or h.uid in fvars(goal.target):
            continue
        if any(o.uid != h.uid and not isinstance(o.ty, str) and h.uid in fvars(o.ty) for o in hyps):
            continue
        hyps = [o for o in hyps if o.uid != h.uid]
    new = goal.with_(eng.fresh(), hyps=tuple(hyps))
    eng.justify(goal, hole(new))
    return [new]


@register("symm")
def _symm(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    if isinstance(t, Rel) and t.op in ("=", "≠"):
        new = goal.with_(eng.fresh(), target=Rel(t.op, t.rhs, t.lhs))
        if eng.kernel_on:
            seq = sequent(goal)
            child = kterm(new.target)
            pf = prove_fact(seq, [(k.Annot(hole(new), child), child)], seq.target)
            if pf is None:
                raise TacticError("symm: the kernel found no proof")
            eng.justify(goal, pf)
        return [new]
    if isinstance(t, Conn) and t.op == "↔":
        new = goal.with_(eng.fresh(), target=Conn("↔", (t.args[1], t.args[0])))
        c = k.Annot(hole(new), kterm(new.target))
        eng.justify(goal, k.IffIntro(k.IffMpr(c), k.IffMp(c)))
        return [new]
    raise TacticError("symm: the goal is not a symmetric relation")
