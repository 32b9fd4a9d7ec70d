"""Case analysis: cases / rcases / obtain / rintro on ∧ ∨ ∃ ↔ ∣ False and Nat variables,
and induction on a Nat variable. Unnamed variables print the way Lean names them:
``cases`` gives ``left✝ right✝`` / ``h✝`` / ``w✝ h✝``; ``induction n`` gives goals
``zero`` and ``succ`` with ``n✝ : Nat`` and the hypothesis ``a✝`` (Lean's ``Nat.rec``
eliminator with ``0`` and ``n + 1``); hypotheses that mention ``n`` are reverted and
reintroduced, so the induction hypothesis carries them as premises."""

from __future__ import annotations

from burnqed.lean.embedded.engine import Engine, register
from burnqed.lean.embedded.proofterm import TacticError, dvd_exists
from burnqed.lean.embedded.state import Goal, Hyp
from burnqed.lean.embedded.tactic_syntax import Pattern, Tac
from burnqed.lean.embedded.tactics_basic import (
    elab_in_goal,
    intro_one,
    prop_in_goal,
    show,
)
from burnqed.lean.embedded.terms import (
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
    subterms,
)

__all__ = ["rcases_prop"]


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


def rcases_prop(
    eng: Engine, goal: Goal, prop: Term, pat: Pattern, hint: str = "h"
) -> list[Goal]:
    """Add a proof of ``prop`` to the goal, destructured by an rcases pattern."""
    kind = pat[0]
    if kind == "name":
        g, _ = _add(eng, goal, pat[1], prop, False)
        return [g]
    if kind == "blank":
        g, _ = _add(eng, goal, hint, prop, True)
        return [g]
    if kind == "clear":
        return [goal]
    p = _unfold(prop)
    if isinstance(p, Const) and p.name == "False":
        return []
    if kind == "tuple":
        items: list[Pattern] = list(pat[1])
        if isinstance(p, Conn) and p.op in ("∧", "↔"):
            a, b = p.args
            if p.op == "↔":
                a, b = Conn("→", (a, b)), Conn("→", (b, a))
            first = items[0] if items else ("blank",)
            out: list[Goal] = []
            for g in rcases_prop(eng, goal, a, first, "left" if p.op == "∧" else "mp"):
                out.extend(
                    rcases_prop(
                        eng, g, b, _rest(items[1:]), "right" if p.op == "∧" else "mpr"
                    )
                )
            return out
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
            return rcases_prop(eng, g, body, _rest(items[1:]), "h")
        if len(items) == 1:
            return rcases_prop(eng, goal, prop, items[0], hint)
        if isinstance(p, Conn) and p.op == "∨":
            return rcases_prop(eng, goal, prop, ("alts", [("tuple", items)]), hint)
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
            left = rcases_prop(
                eng, goal.with_(eng.fresh(), tag="inl"), a, alts[0], hint
            )
            right = rcases_prop(
                eng, goal.with_(eng.fresh(), tag="inr"), b, right_pat, hint
            )
            return left + right
        if len(alts) == 1:
            return rcases_prop(eng, goal, prop, alts[0], hint)
        raise TacticError(
            f"rcases: pattern with alternatives does not match the type\n  {show(goal, prop)}"
        )
    raise TacticError(f"rcases: unsupported pattern {kind}")


def _subst_var(
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
    zero = _subst_var(eng, goal, var.uid, Num(0, "Nat"), (), "zero")
    k = Hyp(eng.fresh(), succ_name or "n", "Nat", succ_name is None)
    succ = _subst_var(
        eng,
        goal,
        var.uid,
        Op("+", (FVar(k.uid, "Nat"), Num(1, "Nat")), "Nat"),
        (k,),
        "succ",
    )
    return [zero, succ]


def _hyp_or_term(
    eng: Engine, goal: Goal, tac: Tac, key: str
) -> tuple[Hyp | None, Term]:
    s = tac.data[key]
    if s.kind == "ident":
        h = goal.hyp_named(s.value)
        if h is not None:
            return h, (h.ty if not isinstance(h.ty, str) else Const("True"))
    prop, _pe = elab_in_goal(eng, goal, s, None)
    if mvars(prop):
        raise TacticError(
            "don't know how to synthesize the implicit arguments of the term"
        )
    return None, prop


def _run_alts(
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
    hyp, prop = _hyp_or_term(eng, goal, tac, "target")
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
        return _run_alts(eng, goals, alts, {}) if alts else goals
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
        goals = [g]
    elif isinstance(p, Conn) and p.op == "∨":
        gl = _intro_named(
            eng, base.with_(eng.fresh(), tag="inl"), p.args[0], nm("inl", 0, "h")
        )
        gr = _intro_named(
            eng, base.with_(eng.fresh(), tag="inr"), p.args[1], nm("inr", 0, "h")
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
        goals = [g]
    elif isinstance(p, Const) and p.name == "False":
        goals = []
    else:
        raise TacticError(
            f"tactic 'cases' failed, the type is not an inductive type it can split\n  {show(goal, prop)}"
        )
    return _run_alts(eng, goals, alts, {}) if alts else goals


def _intro_named(eng: Engine, goal: Goal, prop: Term, pat: Pattern) -> Goal:
    user, hyg = pat[1], pat[0] == "hyg"
    h = Hyp(eng.fresh(), user, prop, hyg)
    return goal.with_(goal.uid, hyps=(*goal.hyps, h))


@register("rcases")
def _rcases(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    pat: Pattern = tac.data["pattern"]
    hyp, prop = _hyp_or_term(eng, goal, tac, "term")
    if hyp is not None and isinstance(hyp.ty, str):
        if hyp.ty != "Nat" or pat[0] != "alts":
            raise TacticError("rcases on a variable needs a pattern `_ | k` (Nat)")
        alts: list[Pattern] = list(pat[1])
        second: Pattern = alts[1] if len(alts) > 1 else ("blank",)
        return _cases_nat(eng, goal, hyp, second[1] if second[0] == "name" else None)
    base = goal.with_(goal.uid, hyps=_drop(goal, hyp.uid)) if hyp is not None else goal
    hint = hyp.user if hyp is not None else "h"
    return rcases_prop(eng, base, prop, pat, hint)


@register("obtain")
def _obtain(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    pat: Pattern = d["pattern"]
    ty = prop_in_goal(goal, d["type"]) if "type" in d else None
    if "term" not in d:
        if ty is None:
            raise TacticError("obtain: expected ':=' or a type")
        side = goal.with_(eng.fresh(), target=ty, tag=None)
        return [side, *rcases_prop(eng, goal, ty, pat)]
    s = d["term"]
    hyp = goal.hyp_named(s.value) if s.kind == "ident" else None
    if hyp is not None and not isinstance(hyp.ty, str) and ty is None:
        base = goal.with_(goal.uid, hyps=_drop(goal, hyp.uid))
        return rcases_prop(eng, base, hyp.ty, pat, hyp.user)
    prop, _pe = elab_in_goal(eng, goal, s, ty)
    if mvars(prop):
        raise TacticError(
            "don't know how to synthesize the implicit arguments of the term"
        )
    return rcases_prop(eng, goal, prop, pat)


@register("rintro")
def _rintro(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    goals = [goal]
    for pat in tac.data["patterns"] or [("blank",)]:
        out: list[Goal] = []
        for g in goals:
            if pat[0] in ("name", "blank"):
                out.append(intro_one(eng, g, pat[1] if pat[0] == "name" else None))
                continue
            g2 = intro_one(eng, g, None)
            h = g2.hyps[-1]
            if isinstance(h.ty, str):
                raise TacticError("rintro: cannot destructure a variable")
            base = g2.with_(g2.uid, hyps=g2.hyps[:-1])
            out.extend(rcases_prop(eng, base, h.ty, pat))
        goals = out
    return goals


@register("induction")
def _induction(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    s = tac.data["target"]
    if s.kind != "ident":
        raise TacticError(
            "induction: the target must be a variable of the fragment (index variables only)"
        )
    var = goal.hyp_named(s.value)
    if var is None:
        raise TacticError(f"unknown identifier '{s.value}'")
    if var.ty != "Nat":
        raise TacticError(
            f"induction on a variable of type {var.ty if isinstance(var.ty, str) else 'Prop'} is not supported"
        )
    alts = tac.data.get("alts")
    gen_names = tac.data.get("generalizing", [])
    pos = goal.hyps.index(var)
    reverted: list[Hyp] = []
    for h in goal.hyps[pos + 1 :]:
        if h.user in gen_names or (
            not isinstance(h.ty, str)
            and fvars(h.ty) & ({var.uid} | {r.uid for r in reverted})
        ):
            reverted.append(h)
    for n in gen_names:
        if not any(r.user == n for r in reverted):
            raise TacticError(f"unknown variable '{n}' in generalizing")
    kept = tuple(h for h in goal.hyps if h.uid != var.uid and h not in reverted)
    motive = goal.target
    for h in reversed(reverted):
        if isinstance(h.ty, str):
            # a binder name no inner binder uses, so the abstraction cannot be captured
            taken = {b.name for b in subterms(motive) if isinstance(b, Binder)}
            bname = h.user
            while bname in taken:
                bname += "'"
            motive = Binder("∀", bname, h.ty, _abstract(motive, h.uid, bname, h.ty))
        else:
            motive = Conn("→", (h.ty, motive))
    names = {name: args for name, args, _b, _p in alts} if alts else {}
    for name in names:
        if name not in ("zero", "succ"):
            raise TacticError(
                f"invalid alternative name '{name}', expected 'zero' or 'succ'"
            )
    succ_args = names.get("succ", [])

    def reintro(g: Goal) -> Goal:
        for h in reverted:
            g = intro_one(eng, g, h.user)
        return g

    zero = reintro(
        Goal(eng.fresh(), kept, replace_fvar(motive, var.uid, Num(0, "Nat")), "zero")
    )
    k_name = succ_args[0] if len(succ_args) > 0 and succ_args[0] != "_" else None
    ih_name = succ_args[1] if len(succ_args) > 1 and succ_args[1] != "_" else None
    k = Hyp(eng.fresh(), k_name or "n", "Nat", k_name is None)
    kv = FVar(k.uid, "Nat")
    ih = Hyp(
        eng.fresh(), ih_name or "a", replace_fvar(motive, var.uid, kv), ih_name is None
    )
    succ_target = replace_fvar(motive, var.uid, Op("+", (kv, Num(1, "Nat")), "Nat"))
    succ = reintro(Goal(eng.fresh(), (*kept, k, ih), succ_target, "succ"))
    goals = [zero, succ]
    if alts:
        return _run_alts(eng, goals, alts, {})
    return goals


@register("subst")
def _subst(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    for name in tac.data["names"]:
        h = goal.hyp_named(name)
        if h is None:
            raise TacticError(f"unknown identifier '{name}'")
        eq = h.ty
        if isinstance(eq, str) or not (isinstance(eq, Rel) and eq.op == "="):
            raise TacticError(
                f"tactic 'subst' failed, invalid equality proof, it is not of the form (x = t) or (t = x)\n  {name}"
            )
        for var_t, val in ((eq.rhs, eq.lhs), (eq.lhs, eq.rhs)):
            if isinstance(var_t, FVar) and var_t.uid not in fvars(val):
                var = next(x for x in goal.hyps if x.uid == var_t.uid)
                rest = Goal(
                    goal.uid,
                    tuple(x for x in goal.hyps if x.uid != h.uid),
                    goal.target,
                    goal.tag,
                )
                goal = _subst_var(eng, rest, var.uid, val, (), goal.tag or "")
                goal = goal.with_(goal.uid, tag=rest.tag)
                break
        else:
            raise TacticError(
                f"tactic 'subst' failed, did not find a variable to substitute in\n  {name}"
            )
    return [goal]


def _abstract(t: Term, uid: int, name: str, ty: str) -> Term:
    from burnqed.lean.embedded.terms import BVar

    return replace_fvar(t, uid, BVar(name, ty))
