"""Case analysis: cases / rcases / obtain / rintro on ∧ ∨ ∃ ↔ ∣ False and Nat variables
(induction and subst are in tactics/induction.py, on the helpers here). Unnamed variables print the way Lean names them:
``cases`` gives ``left✝ right✝`` / ``h✝`` / ``w✝ h✝``; ``induction n`` gives goals
``zero`` and ``succ`` with ``n✝ : Nat`` and the hypothesis ``a✝`` (Lean's ``Nat.rec``
eliminator with ``0`` and ``n + 1``); hypotheses that mention ``n`` are reverted and
reintroduced, so the induction hypothesis carries them as premises."""

from __future__ import annotations

from dataclasses import fields, replace

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.decide.certify import internal_uid
from burnqed.embedded.tactics.interpreter import Engine, register
from burnqed.embedded.tactics.proofterm import TacticError, dvd_exists
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Pattern, Tac
from burnqed.embedded.tactics.basic import elab_in_goal, intro_one, prop_in_goal, show
from burnqed.embedded.elab.expr import (
    Binder,
    Conn,
    Const,
    FVar,
    Num,
    Op,
    Rel,
    Term,
    fvars,
    instantiate,
    mvars,
    replace_fvar,
)

__all__ = ["justify_by_induction", "rcases_prop", "run_alts", "subst_eq", "subst_var"]


def _drop(goal: Goal, uid: int) -> tuple[Hyp, ...]:
    return tuple(h for h in goal.hyps if h.uid != uid)


def _add(
    eng: Engine,
    goal: Goal,
    user: str,
    ty: str | Term,
    hygienic: bool,
    tag: str | None = "",
) -> tuple[Goal, Hyp]:
    h = Hyp(eng.fresh(), user, ty, hygienic)
    return goal.with_(eng.fresh(), hyps=(*goal.hyps, h), tag=tag), h


def _unfold(prop: Term) -> Term:
    if isinstance(prop, Rel) and prop.op == "∣":
        return dvd_exists(prop)
    return prop


def _rest(items: list[Pattern]) -> Pattern:
    if not items:
        return ("blank",)
    return items[0] if len(items) == 1 else ("tuple", items)


def _plug(pf: k.Proof, fill: dict[int, k.Proof]) -> k.Proof:
    """``pf`` with the holes of the goals in ``fill`` replaced by their proofs."""
    if isinstance(pf, k.Hole):
        got = fill.get(pf.goal.uid)
        return got if got is not None else pf
    changes = {
        f.name: _plug(v, fill)
        for f in fields(pf)
        if isinstance(v := getattr(pf, f.name), k.Proof)
    }
    return replace(pf, **changes)


def rcases_prop(
    eng: Engine, goal: Goal, prop: Term, pat: Pattern, hint: str = "h", pf: k.Proof | None = None
) -> tuple[list[Goal], k.Proof]:
    """Add a proof of ``prop`` (``pf``, valid where the goal's proof is built) to the goal,
    destructured by an rcases pattern; returns the goals and the kernel proof of ``goal``
    with holes for them."""
    pf = pf if pf is not None else k.Sorry()
    kind = pat[0]
    if kind == "name" and pat[1] == "rfl":
        # rcases' `rfl` pattern: the equation is added and substituted at once (lean4
        # src/Lean/Elab/Tactic/RCases.lean, rcasesCore `| .one ref `rfl =>` then `subst'`)
        g, h = _add(eng, goal, hint, prop, True)
        new, sub = subst_eq(eng, g, h, rcases=True)
        return [new], k.Have(h.uid, kterm(prop), pf, sub)
    if kind in ("name", "blank"):
        g, h = _add(eng, goal, pat[1] if kind == "name" else hint, prop, kind == "blank")
        return [g], k.Have(h.uid, kterm(prop), pf, hole(g))
    if kind == "clear":
        return [goal], hole(goal)
    p = _unfold(prop)
    if isinstance(p, Const) and p.name == "False":
        return [], k.FalseElim(pf)
    if kind == "tuple":
        items: list[Pattern] = list(pat[1])
        if isinstance(p, Conn) and p.op in ("∧", "↔"):
            a, b = p.args
            first_pf, rest_pf = k.AndLeft(pf), k.AndRight(pf)
            if p.op == "↔":
                a, b = Conn("→", (a, b)), Conn("→", (b, a))
                first_pf, rest_pf = k.IffMp(pf), k.IffMpr(pf)
            first = items[0] if items else ("blank",)
            out: list[Goal] = []
            firsts, top = rcases_prop(
                eng, goal, a, first, "left" if p.op == "∧" else "mp", first_pf
            )
            fill: dict[int, k.Proof] = {}
            for g in firsts:
                gs, sub = rcases_prop(
                    eng, g, b, _rest(items[1:]), "right" if p.op == "∧" else "mpr", rest_pf
                )
                out.extend(gs)
                fill[g.uid] = sub
            return out, _plug(top, fill)
        if isinstance(p, Binder) and p.q == "∃":
            first = items[0] if items else ("blank",)
            if first[0] not in ("name", "blank"):
                raise TacticError(
                    "rcases: the witness of an existential needs a name pattern"
                )
            hyg = first[0] == "blank"
            g, w = _add(eng, goal, p.name if hyg else first[1], p.ty, hyg)
            if hyg:
                g = g.with_(g.uid, hyps=(*g.hyps[:-1], Hyp(w.uid, "w", p.ty, True)))
            body = instantiate(p.body, p.name, FVar(w.uid, p.ty))
            hb = internal_uid()
            gs, sub = rcases_prop(eng, g, body, _rest(items[1:]), "h", k.Hyp(hb))
            rule = k.DvdElim if isinstance(prop, Rel) and prop.op == "∣" else k.ExistsElim
            return gs, rule(pf, w.uid, hb, sub)
        if len(items) == 1:
            return rcases_prop(eng, goal, prop, items[0], hint, pf)
        if isinstance(p, Conn) and p.op == "∨":
            return rcases_prop(eng, goal, prop, ("alts", [("tuple", items)]), hint, pf)
        raise TacticError(
            f"rcases: pattern ⟨...⟩ does not match the type\n  {show(goal, prop)}"
        )
    if kind == "alts":
        alts: list[Pattern] = list(pat[1])
        if isinstance(p, Conn) and p.op == "∨":
            a, b = p.args
            right_pat = (
                alts[1]
                if len(alts) == 2
                else ("alts", alts[1:])
                if len(alts) > 2
                else ("blank",)
            )
            ul, ur = internal_uid(), internal_uid()
            left, pl = rcases_prop(
                eng, goal.with_(eng.fresh(), tag="inl"), a, alts[0], hint, k.Hyp(ul)
            )
            right, pr = rcases_prop(
                eng, goal.with_(eng.fresh(), tag="inr"), b, right_pat, hint, k.Hyp(ur)
            )
            return left + right, k.OrElim(pf, ul, pl, ur, pr)
        if len(alts) == 1:
            return rcases_prop(eng, goal, prop, alts[0], hint, pf)
        raise TacticError(
            f"rcases: pattern with alternatives does not match the type\n  {show(goal, prop)}"
        )
    raise TacticError(f"rcases: unsupported pattern {kind}")


def subst_eq(eng: Engine, goal: Goal, h: Hyp, rcases: bool = False) -> tuple[Goal, k.Proof]:
    """``subst h`` with ``h : a = b``: the right side's variable is replaced by the left side,
    else the left side's by the right (lean4 ``Lean.Meta.subst``, and rcases' ``subst'`` in
    src/Lean/Elab/Tactic/RCases.lean, which tries ``rhs`` then ``lhs``); the equation is gone
    from the new goal; returns it with the kernel proof of ``goal`` (the ``Subst`` rule, a hole
    for the new goal). With ``rcases`` the side
    chosen is the first that is a variable, as ``subst'`` chooses it, and a variable that
    occurs on the other side is an error there (plain ``subst`` then tries the other side)."""
    eq = h.ty
    if isinstance(eq, str) or not (isinstance(eq, Rel) and eq.op == "="):
        raise TacticError(
            "tactic 'subst' failed, invalid equality proof, it is not of the form (x = t) or (t = x)\n  "
            + (h.user if isinstance(eq, str) else show(goal, eq))
        )
    for var_t, val in ((eq.rhs, eq.lhs), (eq.lhs, eq.rhs)):
        if not isinstance(var_t, FVar):
            continue
        if var_t.uid in fvars(val):
            if rcases:
                raise TacticError(
                    f"tactic 'subst' failed, motive is not type correct\n  {show(goal, eq)}"
                )
            continue
        rest = Goal(goal.uid, tuple(x for x in goal.hyps if x.uid != h.uid), goal.target, goal.tag)
        new = subst_var(eng, rest, var_t.uid, val, (), goal.tag or "")
        new = new.with_(new.uid, tag=rest.tag)
        return new, k.Subst(k.Hyp(h.uid), var_t.uid, hole(new))
    raise TacticError(
        f"tactic 'subst' failed, did not find a variable to substitute in\n  {h.user}"
        if not rcases
        else "tactic 'subst' failed, invalid equality proof, it is not of the form (x = t) or (t = x)\n  "
        + show(goal, eq)
    )


def subst_var(
    eng: Engine, goal: Goal, uid: int, value: Term, extra: tuple[Hyp, ...], tag: str
) -> Goal:
    hyps: list[Hyp] = []
    for h in goal.hyps:
        if h.uid == uid:
            hyps.extend(extra)
            continue
        if isinstance(h.ty, str):
            hyps.append(h)
        else:
            hyps.append(Hyp(h.uid, h.user, replace_fvar(h.ty, uid, value), h.hygienic))
    if not any(e in hyps for e in extra):
        hyps.extend(extra)
    return Goal(eng.fresh(), tuple(hyps), replace_fvar(goal.target, uid, value), tag)


def _cases_nat(eng: Engine, goal: Goal, var: Hyp, succ_name: str | None) -> list[Goal]:
    zero = subst_var(eng, goal, var.uid, Num(0, "Nat"), (), "zero")
    k_ = Hyp(eng.fresh(), succ_name or "n", "Nat", succ_name is None)
    succ = subst_var(
        eng,
        goal,
        var.uid,
        Op("+", (FVar(k_.uid, "Nat"), Num(1, "Nat")), "Nat"),
        (k_,),
        "succ",
    )
    # by induction without its hypothesis; hypotheses about the variable are reverted
    # into the motive and introduced again (with their ids) in both cases
    about = [h for h in goal.hyps if not isinstance(h.ty, str) and var.uid in fvars(h.ty)]
    motive = goal.target
    for h in reversed(about):
        motive = Conn("→", (h.ty, motive))

    def reintro(child: Goal) -> k.Proof:
        out = hole(child)
        for h in reversed(about):
            out = k.Intro(h.uid, out)
        return out

    justify_by_induction(eng, goal, var, motive, about, reintro(zero), k_.uid, internal_uid(), reintro(succ))
    return [zero, succ]


def justify_by_induction(
    eng: Engine,
    goal: Goal,
    var: Hyp,
    motive: Term,
    reverted: list[Hyp],
    zero: k.Proof,
    k_uid: int,
    ih_uid: int,
    succ: k.Proof,
) -> None:
    """``goal`` from ``motive`` (the target with ``reverted`` as premises) proved by
    induction on ``var`` and applied to the reverted hypotheses."""
    g = internal_uid()
    use = k.Hyp(g)
    for h in reverted:
        use = k.Inst(use, kterm(h.fvar)) if isinstance(h.ty, str) else k.ModusPonens(use, k.Hyp(h.uid))
    eng.justify(
        goal,
        k.Have(g, kterm(motive), k.NatInd(var.uid, zero, k_uid, ih_uid, succ), use),
    )


def _hyp_or_term(
    eng: Engine, goal: Goal, tac: Tac, key: str
) -> tuple[Hyp | None, Term, k.Proof]:
    s = tac.data[key]
    if s.kind == "ident":
        h = goal.hyp_named(s.value)
        if h is not None:
            return h, (h.ty if not isinstance(h.ty, str) else Const("True")), k.Hyp(h.uid)
    prop, pe = elab_in_goal(eng, goal, s, None)
    if mvars(prop):
        raise TacticError(
            "don't know how to synthesize the implicit arguments of the term"
        )
    return None, prop, (pe.proof() if eng.kernel_on else k.Sorry())


def run_alts(
    eng: Engine,
    goals: list[Goal],
    alts: list,
    ctor_args: dict[str, list[tuple[str, str | None]]],
) -> list[Goal]:
    """Run ``with | ctor names => tac`` alternatives on the goals whose tag is ``ctor``."""
    by_tag = {name: (args, body, pos) for name, args, body, pos in alts}
    for name in by_tag:
        if name not in {g.tag for g in goals} and name not in ctor_args:
            raise TacticError(f"invalid alternative name '{name}'")
    out: list[Goal] = []
    for g in goals:
        alt = by_tag.get(g.tag or "")
        if alt is None:
            out.append(g)
            continue
        _args, body, _pos = alt
        out.extend(eng.run(body, [g]))
    return out


@register("cases")
def _cases(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    alts = tac.data.get("alts")
    hyp, prop, pf = _hyp_or_term(eng, goal, tac, "target")
    names: dict[str, list[str]] = (
        {name: args for name, args, _b, _p in alts} if alts else {}
    )
    if hyp is not None and isinstance(hyp.ty, str):
        if hyp.ty != "Nat":
            raise TacticError(
                f"tactic 'cases' is not supported on a variable of type {hyp.ty} here"
            )
        succ = names.get("succ", [])
        goals = _cases_nat(eng, goal, hyp, succ[0] if succ else None)
        return run_alts(eng, goals, alts, {}) if alts else goals
    base = goal.with_(goal.uid, hyps=_drop(goal, hyp.uid)) if hyp is not None else goal
    p = _unfold(prop)

    def nm(ctor: str, i: int, default: str) -> Pattern:
        args = names.get(ctor, [])
        if i < len(args) and args[i] != "_":
            return ("name", args[i])
        return ("blank",) if default == "" else ("hyg", default)

    if isinstance(p, Conn) and p.op in ("∧", "↔"):
        la, lb = ("left", "right") if p.op == "∧" else ("mp", "mpr")
        a, b = (
            p.args
            if p.op == "∧"
            else (Conn("→", p.args), Conn("→", (p.args[1], p.args[0])))
        )
        g = base.with_(eng.fresh(), tag="intro")
        g = _intro_named(eng, g, a, nm("intro", 0, la))
        g = _intro_named(eng, g, b, nm("intro", 1, lb))
        left, right = (k.AndLeft, k.AndRight) if p.op == "∧" else (k.IffMp, k.IffMpr)
        ua, ub = g.hyps[-2].uid, g.hyps[-1].uid
        eng.justify(
            goal,
            k.Have(ua, kterm(a), left(pf), k.Have(ub, kterm(b), right(pf), hole(g))),
        )
        goals = [g]
    elif isinstance(p, Conn) and p.op == "∨":
        gl = _intro_named(
            eng, base.with_(eng.fresh(), tag="inl"), p.args[0], nm("inl", 0, "h")
        )
        gr = _intro_named(
            eng, base.with_(eng.fresh(), tag="inr"), p.args[1], nm("inr", 0, "h")
        )
        eng.justify(
            goal, k.OrElim(pf, gl.hyps[-1].uid, hole(gl), gr.hyps[-1].uid, hole(gr))
        )
        goals = [gl, gr]
    elif isinstance(p, Binder) and p.q == "∃":
        w = nm("intro", 0, "w")
        user, hyg = (w[1], w[0] == "hyg")
        wh = Hyp(eng.fresh(), user, p.ty, hyg)
        g = base.with_(eng.fresh(), hyps=(*base.hyps, wh), tag="intro")
        g = _intro_named(
            eng, g, instantiate(p.body, p.name, FVar(wh.uid, p.ty)), nm("intro", 1, "h")
        )
        rule = k.DvdElim if isinstance(prop, Rel) and prop.op == "∣" else k.ExistsElim
        eng.justify(goal, rule(pf, wh.uid, g.hyps[-1].uid, hole(g)))
        goals = [g]
    elif isinstance(p, Const) and p.name == "False":
        eng.justify(goal, k.FalseElim(pf))
        goals = []
    else:
        raise TacticError(
            f"tactic 'cases' failed, the type is not an inductive type it can split\n  {show(goal, prop)}"
        )
    return run_alts(eng, goals, alts, {}) if alts else goals


def _rcases_nat(eng: Engine, goal: Goal, var: Hyp, alts: list[Pattern]) -> list[Goal]:
    """``rcases n with p₀ | p₁ | … | pₖ`` on ``n : ℕ``: ``zero`` with p₀ and ``succ m`` with the
    rest; more patterns than ``Nat``'s two constructors match the last one's field, so
    ``_ | _ | _`` splits ``m`` again (lean4 src/Lean/Elab/Tactic/RCases.lean,
    ``processConstructors``: `| [], _ :: _ => [RCasesPatt.alts ref ps]`, then ``rcasesCore``
    cases the field)."""
    rest: Pattern = alts[1] if len(alts) == 2 else ("alts", alts[1:]) if len(alts) > 2 else ("blank",)
    zero, succ = _cases_nat(eng, goal, var, rest[1] if rest[0] == "name" else None)
    if rest[0] != "alts" or len(rest[1]) < 2:
        return [zero, succ]
    old = {h.uid for h in goal.hyps}
    field = next(h for h in succ.hyps if h.uid not in old and h.ty == "Nat")
    return [zero, *_rcases_nat(eng, succ, field, list(rest[1]))]


def _intro_named(eng: Engine, goal: Goal, prop: Term, pat: Pattern) -> Goal:
    user, hyg = pat[1], pat[0] == "hyg"
    h = Hyp(eng.fresh(), user, prop, hyg)
    return goal.with_(goal.uid, hyps=(*goal.hyps, h))


@register("rcases")
def _rcases(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    pat: Pattern = tac.data["pattern"]
    hyp, prop, pf = _hyp_or_term(eng, goal, tac, "term")
    if hyp is not None and isinstance(hyp.ty, str):
        if hyp.ty != "Nat" or pat[0] != "alts":
            raise TacticError("rcases on a variable needs a pattern `_ | k` (Nat)")
        return _rcases_nat(eng, goal, hyp, list(pat[1]))
    base = goal.with_(eng.fresh(), hyps=_drop(goal, hyp.uid) if hyp is not None else goal.hyps)
    hint = hyp.user if hyp is not None else "h"
    return _destructure(eng, goal, base, prop, pat, hint, pf)


def _destructure(
    eng: Engine, goal: Goal, base: Goal, prop: Term, pat: Pattern, hint: str, pf: k.Proof
) -> list[Goal]:
    """rcases ``pat`` on a proof ``pf`` of ``prop`` at ``goal`` (``base``: the goal the
    pieces are added to, the destructured hypothesis dropped)."""
    goals, top = rcases_prop(eng, base, prop, pat, hint, pf)
    eng.justify(goal, top)
    return goals


@register("obtain")
def _obtain(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    pat: Pattern = d["pattern"]
    ty = prop_in_goal(goal, d["type"]) if "type" in d else None
    if "term" not in d:
        if ty is None:
            raise TacticError("obtain: expected ':=' or a type")
        side = goal.with_(eng.fresh(), target=ty, tag=None)
        base = goal.with_(eng.fresh())
        pf = k.Annot(hole(side), kterm(ty))
        return [side, *_destructure(eng, goal, base, ty, pat, "h", pf)]
    s = d["term"]
    hyp = goal.hyp_named(s.value) if s.kind == "ident" else None
    if hyp is not None and not isinstance(hyp.ty, str) and ty is None:
        base = goal.with_(eng.fresh(), hyps=_drop(goal, hyp.uid))
        return _destructure(eng, goal, base, hyp.ty, pat, hyp.user, k.Hyp(hyp.uid))
    prop, pe = elab_in_goal(eng, goal, s, ty)
    if mvars(prop):
        raise TacticError(
            "don't know how to synthesize the implicit arguments of the term"
        )
    pf = pe.proof() if eng.kernel_on else k.Sorry()
    return _destructure(eng, goal, goal.with_(eng.fresh()), prop, pat, "h", pf)


@register("rintro")
def _rintro(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    goals = [goal]
    for pat in tac.data["patterns"] or [("blank",)]:
        out: list[Goal] = []
        for g in goals:
            if pat[0] == "blank" or (pat[0] == "name" and pat[1] != "rfl"):
                out.append(intro_one(eng, g, pat[1] if pat[0] == "name" else None))
                continue
            g2 = intro_one(eng, g, None)
            h = g2.hyps[-1]
            if isinstance(h.ty, str):
                raise TacticError("rintro: cannot destructure a variable")
            base = g2.with_(eng.fresh(), hyps=g2.hyps[:-1])
            out.extend(_destructure(eng, g2, base, h.ty, pat, "h", k.Hyp(h.uid)))
        goals = out
    return goals
