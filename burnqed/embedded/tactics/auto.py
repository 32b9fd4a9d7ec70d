"""Decision-procedure tactics: ring / ring_nf (sympy), omega / linarith / nlinarith (z3, see
decide/smt.py), positivity (syntactic sign analysis, as Mathlib's). A decision procedure closes a
goal only on a proof the kernel checks (a certificate, a zero polynomial difference, a sign
derivation); otherwise the tactic fails."""

from __future__ import annotations

from burnqed.embedded import kernel as k
from burnqed.embedded.elab.evaluate import TooLarge, try_eval
from burnqed.embedded.bridge.translate import KernelReject, hole, kterm, sequent
from burnqed.embedded.decide.certify import Budget, prove_fact
from burnqed.embedded.tactics.interpreter import Engine, Interrupted, register, render
from burnqed.embedded.decide.linarith_pre import comparisons
from burnqed.embedded.decide.polynomials import difference
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.decide.smt import prove, unsat_core
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac
from burnqed.embedded.tactics.basic import elab_in_goal, show
from burnqed.embedded.elab.expr import (
    Binder,
    BVar,
    Conn,
    Const,
    FVar,
    Num,
    Op,
    Rel,
    Term,
    alpha_key,
    mvars,
    type_of,
)

__all__ = ["close_by_certificate", "omega_linear", "omega_reads", "positivity_sign"]

FALSE = Const("False")


# ---------------------------------------------------------------- ring


# ring1 (no table row): tactics/ring_nf.py's ring runs it first, then the normal form
def _ring(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    if not (isinstance(t, Rel) and t.op == "="):
        raise TacticError(f"ring failed: not an equality\n{render([goal])}")
    try:
        d = difference(t.lhs, t.rhs, eng.ctx.config.max_expand_exponent)
    except TooLarge as exc:
        raise TacticError(f"ring failed: {exc}") from exc
    if d == 0:
        eng.justify(goal, k.Ring())
        return []
    raise TacticError(f"ring failed, ring_nf subsidiary goal\n{render([goal])}")


# ---------------------------------------------------------------- z3 procedures


def _context_props(goal: Goal) -> list[Term]:
    return [h.ty for h in goal.hyps if not isinstance(h.ty, str)]


def _run_z3(
    eng: Engine, hyps: list[Term], target: Term | None, linear: bool, real: bool, tactic: str, omega: bool = False
) -> bool:
    cfg = eng.ctx.config
    outcome = prove(hyps, target, linear, real, cfg.z3_rlimit, eng.ctx.deadline, cfg.max_expand_exponent, omega)
    if outcome == "proved":
        return True
    if outcome == "timeout":  # the request's deadline stopped z3: the timeout answer
        raise Interrupted()
    if outcome == "rlimit":
        raise TacticError(
            f"{tactic} failed: z3 reached its bound z3_rlimit = {cfg.z3_rlimit} before deciding the goal "
            "(a count, not a time: a retry gives the same answer)"
        )
    return False


def _certificate(
    eng: Engine,
    goal: Goal,
    hyps: list[Hyp],
    extra: list[Term],
    nonlinear: bool,
    tactic: str,
    budget: Budget,
    quick: bool = False,
    extra_proofs: list[k.Proof | None] | None = None,
) -> k.Proof | None:
    """A kernel proof of the goal by an arithmetic certificate (decide/certify.py) refuting the
    hypotheses, the extra facts and the negated target, within ``budget`` (``quick``: no
    integer cuts, a small search, so no solver call at all)."""
    seq = sequent(goal)
    premises = [(k.Hyp(h.uid), seq.lookup(h.uid).ty) for h in hyps if not isinstance(h.ty, str)]  # type: ignore[union-attr]
    given = extra_proofs or [None] * len(extra)
    for t, known in zip(extra, given, strict=True):
        fact = kterm(t)
        if known is not None:  # a proof term of the goal's context (a hypothesis, a lemma)
            premises.append((k.Annot(known, fact), fact))
            continue
        # a fact without its own proof must itself be proved (a square, a product, ...)
        pf = prove_fact(seq, [], fact, nonlinear=True, budget=budget)
        if pf is None:
            if quick:
                return None
            raise TacticError(f"{tactic}: the kernel has no proof of the extra fact {show(goal, t)}{budget.note()}")
        premises.append((k.Annot(pf, fact), fact))
    return prove_fact(seq, premises, seq.target, nonlinear=nonlinear, budget=budget)


def close_by_certificate(
    eng: Engine,
    goal: Goal,
    hyps: list[Hyp],
    extra: list[Term] = (),  # type: ignore[assignment]
    nonlinear: bool = False,
    tactic: str = "omega",
    extra_proofs: list[k.Proof | None] | None = None,
) -> list[Goal]:
    """Close ``goal`` with a kernel proof by an arithmetic certificate. The solver's
    verdict already said yes; without a certificate the tactic still fails."""
    if not eng.kernel_on:
        return []
    budget = Budget.of(eng.ctx)
    pf = _certificate(eng, goal, hyps, list(extra), nonlinear, tactic, budget, extra_proofs=extra_proofs)
    if pf is None:
        raise TacticError(
            f"{tactic}: the solver proved the goal but found no certificate the kernel accepts{budget.note()}"
        )
    eng.justify(goal, pf)
    return []


def omega_reads(t: Term) -> bool:
    """Whether Lean's omega reads the whole fact ``t`` (Lean/Elab/Tactic/Omega/Frontend.lean,
    ``MetaProblem.addFact``): = ≠ < ≤ > ≥ ∣ over ℕ/ℤ, True, False, and ¬ ∧ ∨ → ↔ of those.
    Anything else (a Prop variable, a ∀ over numbers) omega drops without a word."""
    if isinstance(t, Const):
        return True
    if isinstance(t, Rel):
        return t.op in ("=", "≠", "<", "≤", ">", "≥", "∣") and type_of(t.lhs) in ("Nat", "Int")
    if isinstance(t, Conn):
        return all(omega_reads(a) for a in t.args)
    return False


def omega_linear(t: Term) -> bool:
    """Whether every arithmetic subterm of ``t`` is one Lean's omega reads as the kernel does:
    sums, differences, casts, products with a ground factor, ``/`` and ``%`` by a ground
    divisor, ground powers (Elab/Tactic/Omega/Frontend.lean, ``asLinearComboImpl``)."""
    if isinstance(t, Op):
        if try_eval(t) is not None:
            return True
        if t.op == "*" and all(try_eval(a) is None for a in t.args):
            return False
        if t.op in ("/", "%") and try_eval(t.args[1]) is None:
            return False
        if t.op == "^" or t.op not in ("+", "-", "*", "/", "%", "neg", "cast"):
            return False
        return all(omega_linear(a) for a in t.args)
    if isinstance(t, Rel):
        return omega_linear(t.lhs) and omega_linear(t.rhs)
    if isinstance(t, Conn):
        return all(omega_linear(a) for a in t.args)
    return not isinstance(t, Binder)


@register("omega")
def _omega(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    from burnqed.embedded.tactics.basic import intro_one

    # like Lean's omega (falseOrByContra): introduce what whnfR shows as a ∀ or an arrow
    # (∀, →, ¬, ≠), then refute the hypotheses with the negated target
    while (
        isinstance(goal.target, Binder)
        and goal.target.q == "∀"
        or isinstance(goal.target, Conn)
        and goal.target.op in ("→", "¬")
        or isinstance(goal.target, Rel)
        and goal.target.op == "≠"
    ):
        goal = intro_one(eng, goal, None)
    # Lean's omega drops every fact it does not read (a Prop atom is no atom to it: it never
    # proves `p ∨ q → q ∨ p`); here a fact read only in part is dropped whole (weaker, never
    # stronger), and a target it does not read is refuted from the hypotheses alone
    hyps = [h for h in goal.hyps if not isinstance(h.ty, str) and omega_reads(h.ty)]
    if not omega_reads(goal.target):
        inner = goal.with_(eng.fresh(), target=FALSE)
        eng.justify(goal, k.FalseElim(k.Annot(hole(inner), kterm(FALSE))))
        goal = inner
    facts = [h.ty for h in hyps] + [goal.target]
    if eng.kernel_on and all(omega_linear(t) for t in facts):  # type: ignore[arg-type]
        # most goals omega closes have a small certificate: no solver call; only where the
        # kernel's polynomials see what omega sees (the kernel multiplies out `x * y` and
        # `x ^ (n + 1)`, Lean's omega takes them as atoms of their own)
        budget = Budget.of(eng.ctx, quick=True)
        quick = _certificate(eng, goal, hyps, [], False, "omega", budget, quick=True)
        if quick is not None:
            eng.justify(goal, quick)
            return []
    if _run_z3(eng, [h.ty for h in hyps], goal.target, linear=True, real=False, tactic="omega", omega=True):  # type: ignore[misc]
        # the certificate search first from the hypotheses of z3's unsat core (the facts the
        # decision used: Lean's omega, too, ends with a contradiction among a few of them), and
        # from all of them only when that finds none; both within the same count bounds
        cfg = eng.ctx.config
        core = unsat_core(
            [h.ty for h in hyps], goal.target, True, False, cfg.z3_rlimit, eng.ctx.deadline,  # type: ignore[misc]
            cfg.max_expand_exponent, True,
        )
        if eng.kernel_on and core is not None and len(core) < len(hyps):
            pf = _certificate(eng, goal, [hyps[i] for i in core], [], False, "omega", Budget.of(eng.ctx))
            if pf is not None:
                eng.justify(goal, pf)
                return []
        return close_by_certificate(eng, goal, hyps)
    raise TacticError(
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "(the embedded omega found no proof for this goal and its hypotheses)"
    )


def _built(build: object) -> k.Proof | None:
    """The kernel proof of an elaborated extra term, None when it has none."""
    try:
        return build()  # type: ignore[operator,no-any-return]
    except (TacticError, KernelReject):
        return None


@register("linarith", "nlinarith")
def _linarith(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    # Mathlib's preprocessing: splitConjunctions, filterComparisons (decide/linarith_pre.py)
    hyps = [c for p in _context_props(goal) for c in comparisons(p)]
    builders = []
    for s in tac.data.get("terms", []):
        prop, pe = elab_in_goal(eng, goal, s, None)
        if mvars(prop):
            raise TacticError(
                "linarith: could not synthesize the arguments of an extra term"
            )
        hyps.append(prop)
        builders.append(pe.proof)
    t = goal.target
    target = t if isinstance(t, Rel) and t.op in ("=", "<", "≤", ">", "≥") else None
    nonlinear = tac.name == "nlinarith"
    if _run_z3(eng, hyps, target, linear=not nonlinear, real=True, tactic=tac.name):
        used = [h for h in goal.hyps if not isinstance(h.ty, str) and comparisons(h.ty)]
        extra = hyps[sum(len(comparisons(h.ty)) for h in used) :]  # type: ignore[arg-type]
        # the extra terms' own proofs (Mathlib's linarith adds them as hypotheses)
        given = [_built(b) for b in builders] if eng.kernel_on else None
        if target is None:  # linarith proves False from the hypotheses
            inner = goal.with_(eng.fresh(), target=FALSE)
            eng.justify(goal, k.FalseElim(k.Annot(hole(inner), kterm(FALSE))))
            return close_by_certificate(eng, inner, used, extra, nonlinear, tac.name, given)
        return close_by_certificate(eng, goal, used, extra, nonlinear, tac.name, given)
    raise TacticError(
        f"linarith failed to find a contradiction\n{render([goal.with_(goal.uid, target=FALSE)])}"
    )


# ---------------------------------------------------------------- positivity


def _hyp_sign(goal: Goal, e: Term) -> str | None:
    key = alpha_key(e)
    best: str | None = None
    for p in _context_props(goal):
        if not isinstance(p, Rel):
            continue
        a, b, op = p.lhs, p.rhs, p.op
        if op in (">", "≥"):
            a, b, op = b, a, "<" if op == ">" else "≤"
        if op in ("<", "≤") and a == Num(0, type_of(a)) and alpha_key(b) == key:
            if op == "<":
                return "pos"
            best = "nonneg"
        if op == "≠" and (
            (alpha_key(a) == key and b == Num(0, type_of(b)))
            or (alpha_key(b) == key and a == Num(0, type_of(a)))
        ):
            best = best or "nonzero"
    return best


def positivity_sign(goal: Goal, e: Term) -> str | None:
    """ "pos", "nonneg", "nonzero" or None: what Mathlib's positivity rules derive for ``e``."""
    got = _sign(goal, e)
    if got is None and type_of(e) == "Nat":
        return "nonneg"
    return got


def _sign(goal: Goal, e: Term) -> str | None:
    if isinstance(e, Num):
        return "pos" if e.value > 0 else "nonneg" if e.value == 0 else "nonzero"
    if isinstance(e, FVar | BVar):
        got = _hyp_sign(goal, e)
        return got or ("nonneg" if e.ty == "Nat" else None)
    if not isinstance(e, Op):
        return None
    op = e.op
    if op == "cast":
        return positivity_sign(goal, e.args[0])
    if op == "neg":
        inner = _sign(goal, e.args[0])
        return "nonzero" if inner in ("pos", "nonzero") else None
    nat = e.ty == "Nat"
    if op == "^":
        base = positivity_sign(goal, e.args[0]) if nat else _sign(goal, e.args[0])
        k = e.args[1]
        if isinstance(k, Num) and k.value == 0:
            return "pos"
        if base == "pos":
            return "pos"
        if isinstance(k, Num) and k.value % 2 == 0:
            return "pos" if base == "nonzero" else "nonneg"
        if base == "nonneg":
            return "nonneg"
        return "nonzero" if base == "nonzero" else ("nonneg" if nat else None)
    a = positivity_sign(goal, e.args[0]) if nat else _sign(goal, e.args[0])
    b = positivity_sign(goal, e.args[1]) if nat else _sign(goal, e.args[1])
    if op == "+":
        if "pos" in (a, b) and a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "pos"
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "nonneg"
        return "nonneg" if nat else None
    if op == "*":
        if a == "pos" and b == "pos":
            return "pos"
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "nonneg"
        if a in ("pos", "nonzero") and b in ("pos", "nonzero"):
            return "nonzero"
        return "nonneg" if nat else None
    if op == "/":
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "nonneg"
        return "nonneg" if nat else None
    if op == "%":
        if nat or b in ("pos", "nonzero") or a in ("pos", "nonneg"):
            return "nonneg"
        return None
    return "nonneg" if nat else None


@register("positivity")
def _positivity(eng: Engine, goal: Goal, tac: Tac) -> list[Goal]:
    t = goal.target
    want: str | None = None
    e: Term | None = None
    if isinstance(t, Rel):
        a, b, op = t.lhs, t.rhs, t.op
        if op in (">", "≥"):
            a, b, op = b, a, "<" if op == ">" else "≤"
        if op in ("<", "≤") and a == Num(0, type_of(a)):
            want, e = ("pos" if op == "<" else "nonneg"), b
        elif op == "≠" and b == Num(0, type_of(b)):
            want, e = "nonzero", a
    if e is None or want is None:
        raise TacticError(f"not a positivity goal\n{render([goal])}")
    got = positivity_sign(goal, e)
    ok = (
        got == "pos"
        or (want == "nonneg" and got == "nonneg")
        or (want == "nonzero" and got == "nonzero")
    )
    if ok:
        return close_by_certificate(eng, goal, list(goal.hyps), [], True, "positivity")
    what = {"pos": "positivity", "nonneg": "nonnegativity", "nonzero": "nonzeroness"}[
        want
    ]
    raise TacticError(f"failed to prove {what}: {show(goal, e)}")
