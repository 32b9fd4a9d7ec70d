"""``conv`` blocks (issue 37): ``conv => …``, ``conv at h => …``, ``conv in pat => …`` and
Mathlib's ``conv_lhs`` / ``conv_rhs`` with the conv tactics ``lhs``, ``rhs``, ``arg i``,
``enter [i, …]``, ``rw [...]``, ``simp``, ``norm_num``, ``ring_nf``, ``skip``.

Lean's semantics (lean4 ``src/Lean/Elab/Tactic/Conv/Basic.lean``): ``evalConv`` expands
``conv in pat => cs`` to ``conv => pattern pat; (cs)``; ``convert`` runs the conv tactics on
the goal ``lhs = ?rhs`` and closes what is left by ``refl`` (the result is the focused term as
the tactics left it); ``convTarget`` replaces the target (``replaceTargetEq``) and then runs
``try rfl``; ``convLocalDecl`` replaces the hypothesis (no ``rfl``). A conv that changes
nothing succeeds. Mathlib's ``conv_lhs`` / ``conv_rhs`` (``Mathlib/Tactic/Conv.lean``, lines
17–25) are ``conv … => lhs; (cs)`` / ``rhs; (cs)``.

Navigation (``src/Lean/Elab/Tactic/Conv/Congr.lean``: ``congr`` with ``selectIdx``): the
focus's explicit arguments are ``a, b`` of ``a + b`` (any binary operation), of a relation
``a = b``, ``a ≤ b``, ``a ≠ b``, ``a > b``, ``a ∣ b`` and of ``p ∧ q``, ``p ∨ q``, ``p ↔ q``,
``p → q`` (``congrImplies``); ``p`` of ``¬p``; ``a`` of ``-a`` and of ``↑a``. ``lhs`` is the
second to last argument, ``rhs`` the last, ``arg i`` the i-th (1-based); too few arguments is
Lean's error. ``enter [i, …]`` is ``arg i`` for each index (``src/Init/Conv.lean``). Refused
here: entering a binder (``ext x``, ``enter [x]``, an argument of ``∃``), ``arg 0``,
``arg @i``, numerals (Lean's ``OfNat.ofNat`` literal argument is not selectable either).

Conv tactics at the focus (each step a rewrite of the whole proposition at the focus's
position, with a kernel proof of ``focus = new`` or ``focus ↔ new``):

- ``rw [rules]`` (``Conv/Rewrite.lean``): ``rewrite`` on the focus only (every instance of
  the first match, as the tactic ``rw``), no closing ``rfl``; conditional rules are refused.
- ``simp`` (``Conv/Simp.lean``): simp on the focus; no progress is no error.
- ``norm_num`` (Mathlib ``Mathlib/Tactic/NormNum/Core.lean``, ``elabNormNumConv``): simp with
  norm_num's extensions; no progress is "norm_num failed to simplify".
- ``ring_nf`` (Mathlib ``Mathlib/Tactic/Ring/RingNF.lean``, the conv ``ring_nf``): the focus
  (a number, or each side of a relation) in ring normal form (tactics_ring_nf); no change is
  refused.
- ``skip`` does nothing; ``(cs)`` groups.

Any other conv tactic (``congr``, ``ext``, ``pattern``, ``tactic => …``, ``first``, …) is
refused with an error naming it.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.tactics import basic as tactics_basic  # noqa: F401 - registers rfl, run after conv
from burnqed.embedded.bridge.translate import hole, kterm
from burnqed.embedded.decide.certify import internal_uid
from burnqed.embedded.elab.elaborate import ElabError, elab_prop, elab_value
from burnqed.embedded.tactics.interpreter import Engine, Exhausted, register
from burnqed.embedded.tactics.lemma_use import PerUse, instance_proof
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.tactics.simp import SimpSet, simplify
from burnqed.embedded.tactics.simp_prover import SimpProver
from burnqed.embedded.elab.state import Goal, Hyp, goal_scope
from burnqed.embedded.syntax.parser import Syn
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import show
from burnqed.embedded.tactics.rewrite_match import abstract_all as _abstract_all, offset_match as _offset_match
from burnqed.embedded.tactics.rewrite import (
    _equation,
    _rule_props,
    _simp_rules,
    rewrite_term,
)
from burnqed.embedded.tactics.ring_nf import normal_form
from burnqed.embedded.elab.expr import Binder, Conn, FVar, Op, Rel, Term, type_of

__all__: list[str] = []

Path = tuple[int, ...]
# one rewrite of the whole proposition: proof of `old = new` (or ↔), the motive marking the
# focus, whether the proof is read right to left, the proposition after it
Step = tuple[k.Proof, k.Term, bool, Term]


def _args(t: Term) -> tuple[Term, ...] | None:
    """The explicit arguments Lean's ``congr`` gives the focus (None: not an application)."""
    if isinstance(t, Op):
        return t.args
    if isinstance(t, Rel):
        return (t.lhs, t.rhs)
    if isinstance(t, Conn):
        return t.args
    return None


def _with_arg(t: Term, i: int, new: Term) -> Term:
    if isinstance(t, Op):
        return Op(t.op, t.args[:i] + (new,) + t.args[i + 1 :], t.ty)
    if isinstance(t, Rel):
        return Rel(t.op, new, t.rhs) if i == 0 else Rel(t.op, t.lhs, new)
    assert isinstance(t, Conn)
    return Conn(t.op, t.args[:i] + (new,) + t.args[i + 1 :])


def _at(t: Term, path: Path) -> Term:
    for i in path:
        args = _args(t)
        assert args is not None
        t = args[i]
    return t


def _replace_at(t: Term, path: Path, new: Term) -> Term:
    if not path:
        return new
    args = _args(t)
    assert args is not None
    return _with_arg(t, path[0], _replace_at(args[path[0]], path[1:], new))


def _select(goal: Goal, focus: Term, what: str, index: int) -> int:
    """Lean's ``selectIdx``: the argument ``index`` (negative: from the end) of the focus."""
    if isinstance(focus, Binder):
        raise TacticError(f"conv: '{what}' into a binder is not supported by the embedded checker")
    args = _args(focus)
    if args is None:
        raise TacticError(
            f"invalid '{what}' conv tactic, application or implication expected\n  {show(goal, focus)}"
        )
    i = len(args) + index if index < 0 else index
    if not 0 <= i < len(args):
        raise TacticError(
            f"invalid '{what}' conv tactic, application has only {len(args)} (nondependent) argument(s)"
        )
    return i


def _elab_pattern(goal: Goal, s: Syn) -> Term:
    scope = goal_scope(goal)
    try:
        return elab_value(s, scope)
    except ElabError:
        pass
    try:
        return elab_prop(s, scope)
    except ElabError as exc:
        raise TacticError(f"conv in: {exc.message}") from exc


def _pattern_path(goal: Goal, whole: Term, s: Syn) -> Path:
    """``pattern p``: the first match, pre-order and left to right as ``kabstract`` visits."""
    pat = _elab_pattern(goal, s)

    def go(t: Term, path: Path) -> Path | None:
        if _offset_match(pat, t, {}) is not None:
            return path
        if isinstance(t, Binder):
            if go(t.body, path) is not None:
                raise TacticError("conv in: a pattern under a binder is not supported by the embedded checker")
            return None
        for i, a in enumerate(_args(t) or ()):
            got = go(a, (*path, i))
            if got is not None:
                return got
        return None

    got = go(whole, ())
    if got is None:
        raise TacticError(f"'pattern' conv tactic failed, pattern was not found\n  {show(goal, pat)}")
    return got


def _motive(whole: Term, path: Path, inner: Term, z: FVar) -> k.Term:
    return k.abstract(kterm(_replace_at(whole, path, inner)), k.Free(z.uid))


def _rw_steps(eng: Engine, goal: Goal, whole: Term, path: Path, rules: list[tuple[bool, Syn]]) -> tuple[Term, list[Step]]:
    steps: list[Step] = []
    for rev, s in rules:
        focus = _at(whole, path)
        last: TacticError | None = None
        for prop, build in _rule_props(eng, goal, s):
            eq = _equation(prop)
            if eq.premises:
                last = TacticError("conv: rewriting with a conditional rule is not supported by the embedded checker")
                continue
            lhs, rhs = (eq.rhs, eq.lhs) if rev else (eq.lhs, eq.rhs)
            try:
                new, subs, pat, old = rewrite_term(goal, focus, lhs, rhs, "target expression")
                after = _replace_at(whole, path, new)
                eng.ctx.check_size(goal.with_(goal.uid, target=after))
                if eng.kernel_on:
                    if isinstance(build, PerUse):
                        eq_pf = instance_proof(eng, goal, eq, subs, [], build.name)
                    else:
                        eq_pf = eq.proof(build(), subs, [])
                    z = FVar(internal_uid(), type_of(pat))
                    steps.append((eq_pf, _motive(whole, path, _abstract_all(old, pat, z), z), rev, after))
                else:
                    steps.append((k.Sorry(), k.TRUE, rev, after))
            except TacticError as exc:
                last = exc
                continue
            whole, last = after, None
            break
        if last is not None:
            raise last
    return whole, steps


def _focus_step(eng: Engine, goal: Goal, whole: Term, path: Path, new: Term, eq_pf: k.Proof) -> Step:
    """The whole proposition with the focus replaced by ``new`` (``eq_pf``: focus = new / ↔)."""
    z = FVar(internal_uid(), type_of(new))
    return (eq_pf, _motive(whole, path, z, z), False, _replace_at(whole, path, new))


def _simp_step(eng: Engine, goal: Goal, whole: Term, path: Path, arg: tuple[str, bool, list[tuple[bool, Syn]]]) -> list[Step]:
    name, only, named = arg
    if any(s.kind == "ident" and s.value == "*" for _, s in named):
        raise TacticError(f"conv: {name} [*] is not supported by the embedded checker")
    cfg = eng.ctx.config
    rules, sources = _simp_rules(eng, goal, named)
    focus = _at(whole, path)
    ss = SimpSet(rules, cfg.max_bits, cfg.max_expand_exponent, not only, eng.ctx.check_time, cfg.max_term_size,
                 pow_mod=name == "norm_num")
    new = simplify(focus, ss)
    if new == focus:
        if name == "norm_num":
            raise TacticError("norm_num failed to simplify")
        return []  # conv's simp does not fail without progress (Conv/Simp.lean, evalSimp)
    if not eng.kernel_on:
        return [(k.Sorry(), k.TRUE, False, _replace_at(whole, path, new))]
    prover = SimpProver(eng, sources, goal, lambda g: _simp_rules(eng, g, named)[1])
    a, b = kterm(focus), kterm(new)
    if type_of(focus) == "Prop":
        eq_pf = prover.iff(goal, a, b)
    else:
        target = k.App("=", (a, b), "Prop")
        got = prover.fact(goal, target)
        if got is None:
            raise TacticError(f"{name}: the kernel found no proof of this simplification step")
        eq_pf = k.Annot(got, target)
    return [_focus_step(eng, goal, whole, path, new, eq_pf)]


def _ring_nf_steps(eng: Engine, goal: Goal, whole: Term, path: Path) -> list[Step]:
    focus = _at(whole, path)
    cap = eng.ctx.config.max_expand_exponent
    if type_of(focus) != "Prop":
        places = [path]
    elif isinstance(focus, Rel) and focus.op in ("=", "≠", "<", "≤", ">", "≥"):
        places = [(*path, 0), (*path, 1)]
        sides = [normal_form(focus.lhs, cap), normal_form(focus.rhs, cap)]
        if sides[0] is not None and sides[0] == sides[1]:
            raise TacticError("conv: ring_nf making a relation's sides equal is not supported by the embedded checker")
    else:
        raise TacticError("conv: ring_nf normalizes only a number or a relation between numbers in the embedded checker")
    steps: list[Step] = []
    for place in places:
        old = _at(whole, place)
        nf = normal_form(old, cap)
        if nf is None:
            raise TacticError("conv: ring_nf cannot normalize this term in the embedded checker")
        if nf == old:
            continue
        eq_pf = k.Annot(k.Ring(), kterm(Rel("=", old, nf)))
        step = _focus_step(eng, goal, whole, place, nf, eq_pf)
        steps.append(step)
        whole = step[3]
    if not steps:
        raise TacticError("ring_nf failed")
    return steps


def _run(eng: Engine, goal: Goal, whole: Term, path: Path, items: list[tuple[str, int, Any]], steps: list[Step]) -> tuple[Term, Path]:
    for kind, _pos, arg in items:
        eng.ctx.check_time()
        eng.ctx.beat(1)
        if kind == "seq":
            whole, path = _run(eng, goal, whole, path, arg, steps)
        elif kind in ("lhs", "rhs"):
            path = (*path, _select(goal, _at(whole, path), kind, -2 if kind == "lhs" else -1))
        elif kind == "arg":
            for i in arg:
                if isinstance(i, str):
                    raise TacticError(f"conv: entering a binder ('{i}') is not supported by the embedded checker")
                if i == 0:
                    raise TacticError("conv: 'arg 0' is not supported by the embedded checker")
                path = (*path, _select(goal, _at(whole, path), "arg", i - 1))
        elif kind == "rw":
            whole, got = _rw_steps(eng, goal, whole, path, arg)
            steps.extend(got)
        elif kind == "simp":
            got = _simp_step(eng, goal, whole, path, arg)
            steps.extend(got)
            whole = got[-1][3] if got else whole
        elif kind == "ring_nf":
            got = _ring_nf_steps(eng, goal, whole, path)
            steps.extend(got)
            whole = got[-1][3]
        elif kind == "skip":
            pass
        else:
            name = arg if kind == "unsupported" else kind
            raise TacticError(f"conv tactic '{name}' is not supported by the embedded checker")
    return whole, path


@register("conv", "conv_lhs", "conv_rhs")
def _conv(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    d = tac.data
    hyp: Hyp | None = None
    if d["at"] is not None:
        hyp = goal.hyp_named(d["at"])
        if hyp is None:
            raise TacticError(f"unknown hypothesis '{d['at']}'")
        if isinstance(hyp.ty, str):
            raise TacticError(f"'{d['at']}' is a variable, not a hypothesis")
    start = hyp.ty if hyp is not None else goal.target
    assert not isinstance(start, str)
    path: Path = _pattern_path(goal, start, d["pattern"]) if d["pattern"] is not None else ()
    items = list(d["body"])
    if d["side"] is not None:
        items.insert(0, (d["side"], tac.pos, None))
    steps: list[Step] = []
    whole, _ = _run(eng, goal, start, path, items, steps)
    if hyp is not None:
        new = Hyp(eng.fresh(), hyp.user, whole, hyp.hygienic)
        child = goal.with_(eng.fresh(), hyps=tuple(new if x.uid == hyp.uid else x for x in goal.hyps))
        if eng.kernel_on:
            got: k.Proof = k.Hyp(hyp.uid)
            for eq_pf, motive, rev, after in steps:
                got = k.Annot(k.Rewrite(eq_pf, motive, not rev, got), kterm(after))
            eng.justify(goal, k.Have(new.uid, kterm(whole), got, hole(child)))
        return [child]
    child = goal.with_(eng.fresh(), target=whole)
    if eng.kernel_on:
        body = hole(child)
        for eq_pf, motive, rev, _after in reversed(steps):
            body = k.Rewrite(eq_pf, motive, rev, body)
        eng.justify(goal, body)
    # convTarget ends with `try rfl`
    try:
        return eng.tactics.basic["rfl"](eng, child, Tac("rfl", tac.pos))
    except Exhausted:
        raise
    except TacticError:
        return [child]
