"""From the elaborator to the kernel: terms and goals translated into kernel terms and
sequents, proof-tree builders for the tactics, and the check of one request's steps.

Tactics justify every goal they replace: ``eng.justify(goal, proof)`` where ``proof`` is a
kernel ``Proof`` whose ``hole`` s name the goals that replace it (``hole(child)``). The
checker then calls ``check_steps``: from the request's main goal, every step reached is
checked by the kernel (burnqed.embedded.kernel) against the goal's own translation, and every
hole must be covered by its child goal (same hypotheses or fewer, same target). The
translation is part of the trusted base: it maps Lean's reducible abbreviations
(``a > b`` is ``b < a``, ``a ≥ b`` is ``b ≤ a``, ``a ≠ b`` is ``¬a = b``, ``¬p`` is
``p → False``) and names bound variables by position.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from burnqed.embedded import kernel as k
from burnqed.embedded.elab.state import Goal
from burnqed.embedded.elab.expr import (
    Binder,
    BVar,
    Conn,
    ModEq,
    Const,
    FVar,
    MVar,
    Num,
    Op,
    Rel,
    Term,
    unfold_modeq,
)

__all__ = [
    "KernelReject",
    "Step",
    "check_steps",
    "checked_sequent",
    "hole",
    "kterm",
    "reachable_complete",
    "sequent",
]


class KernelReject(Exception):
    """The kernel refused a step the elaborator accepted (the message says why)."""


@dataclass(frozen=True, slots=True)
class Step:
    """How one goal was justified: the goal and a kernel proof with holes for its children."""

    goal: Goal
    proof: k.Proof


def hole(goal: Goal) -> k.Proof:
    """The place of a child goal in a proof."""
    return k.Hole(goal)


_FALSE = k.App("False", (), "Prop")


def kterm(t: Term, bound: tuple[str, ...] = ()) -> k.Term:
    """The kernel term of an elaborated term (raises KernelReject on metavariables or
    loose bound names)."""
    if isinstance(t, Num):
        return k.Lit(t.value, t.ty)
    if isinstance(t, BVar):
        for i in range(len(bound) - 1, -1, -1):
            if bound[i] == t.name:
                return k.Var(len(bound) - 1 - i)
        raise KernelReject(f"loose bound variable {t.name}")
    if isinstance(t, FVar):
        return k.Free(t.uid)
    if isinstance(t, MVar):
        raise KernelReject("a metavariable reached the kernel")
    if isinstance(t, Const):
        return k.App(t.name, (), "Prop")
    if isinstance(t, Op):
        return k.App(t.op, tuple(kterm(a, bound) for a in t.args), t.ty)
    if isinstance(t, Rel):
        a, b = kterm(t.lhs, bound), kterm(t.rhs, bound)
        if t.op == ">":
            return k.App("<", (b, a), "Prop")
        if t.op == "≥":
            return k.App("≤", (b, a), "Prop")
        if t.op == "≠":
            return k.App("→", (k.App("=", (a, b), "Prop"), _FALSE), "Prop")
        return k.App(t.op, (a, b), "Prop")
    if isinstance(t, Conn):
        args = tuple(kterm(a, bound) for a in t.args)
        if t.op == "¬":
            return k.App("→", (args[0], _FALSE), "Prop")
        return k.App(t.op, args, "Prop")
    if isinstance(t, Binder):
        return k.Bind(t.q, t.ty, kterm(t.body, (*bound, t.name)))
    if isinstance(t, ModEq):
        # the kernel knows no definitions: Nat.ModEq n a b is its body a % n = b % n
        # (Mathlib/Data/Nat/ModEq.lean, Mathlib/Data/Int/ModEq.lean), definitionally
        return kterm(unfold_modeq(t), bound)
    raise KernelReject(f"unknown term {t!r}")


_CACHE: dict[int, tuple[Goal, k.Sequent]] = {}


def sequent(goal: Goal) -> k.Sequent:
    """The kernel sequent of a goal (cached by goal id; goals are immutable)."""
    hit = _CACHE.get(goal.uid)
    if hit is not None and hit[0] is goal:
        return hit[1]
    ctx = tuple(
        k.Entry(h.uid, h.ty if isinstance(h.ty, str) else kterm(h.ty)) for h in goal.hyps
    )
    seq = k.Sequent(ctx, kterm(goal.target))
    if len(_CACHE) > 50_000:
        _CACHE.clear()
    _CACHE[goal.uid] = (goal, seq)
    return seq


_WELL_FORMED: dict[int, Goal] = {}


def checked_sequent(goal: Goal) -> k.Sequent:
    """The goal's sequent, sort-checked by the kernel once (a tactic may have built an
    ill-sorted goal: the kernel reasons only in well-formed sequents)."""
    seq = sequent(goal)
    if _WELL_FORMED.get(goal.uid) is not goal:
        k.well_formed(seq)
        if len(_WELL_FORMED) > 50_000:
            _WELL_FORMED.clear()
        _WELL_FORMED[goal.uid] = goal
    return seq


@dataclass
class CheckResult:
    """Steps kept for the new state, whether a sorry was reached, kernel time."""

    steps: dict[int, Step]
    sorry: bool
    seconds: float
    checked: int


def check_steps(
    main: Goal, steps: Mapping[int, Step], open_goals: Mapping[int, Goal]
) -> CheckResult:
    """Kernel-check every step reachable from ``main`` down to the open goals; raise
    KernelReject on the first refusal or on a goal replaced without a proof. Goals are
    found by id, and each one's own sequent must cover the place it fills."""
    t0 = time.perf_counter()
    kept: dict[int, Step] = {}
    sorry = False
    todo: list[tuple[Goal, k.Sequent]] = []
    try:
        todo.append((main, checked_sequent(main)))
        while todo:
            goal, want = todo.pop()
            actual = open_goals.get(goal.uid)
            step = steps.get(goal.uid) if actual is None else None
            if actual is None and step is None:
                raise KernelReject("a goal was closed or replaced without a proof")
            if not k.covers(want, checked_sequent(actual if actual is not None else step.goal)):  # type: ignore[union-attr]
                raise KernelReject("a goal does not match its place in the proof")
            if step is None or goal.uid in kept:
                continue
            obligations: list[tuple[Any, k.Sequent]] = []
            k.check(checked_sequent(step.goal), step.proof, obligations)
            for child, place in obligations:
                if isinstance(child, Goal):
                    todo.append((child, place))
                else:
                    sorry = True
            kept[goal.uid] = step
    except k.KernelError as exc:
        raise KernelReject(str(exc)) from exc
    except RecursionError as exc:
        raise KernelReject("proof too deep") from exc
    return CheckResult(kept, sorry, time.perf_counter() - t0, len(kept))


def reachable_complete(root: Goal, steps: Mapping[int, Step]) -> bool:
    """Whether the steps prove the root with no open goal left (holes all justified)."""
    first = steps.get(root.uid)
    if first is None or not k.covers(sequent(root), sequent(first.goal)):
        return False
    todo, seen = [root], set()
    while todo:
        goal = todo.pop()
        if goal.uid in seen:
            continue
        seen.add(goal.uid)
        step = steps.get(goal.uid)
        if step is None:
            return False
        todo.extend(_holes(step.proof))
    return True


def _holes(p: k.Proof) -> list[Goal]:
    out: list[Goal] = []
    stack = [p]
    while stack:
        cur = stack.pop()
        if isinstance(cur, k.Hole):
            out.append(cur.goal)
            continue
        for f in fields(cur):
            a = getattr(cur, f.name)
            stack.extend(x for x in (a if isinstance(a, tuple) else (a,)) if isinstance(x, k.Proof))
    return out
