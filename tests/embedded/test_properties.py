"""Property: whatever the checker proves about random arithmetic statements is true.

Statements are quantifier-free implications over two variables (ℕ or ℤ) built from the
fragment's operators; the independent check evaluates them with Lean's semantics on a grid
of values. (The data package holds the larger soundness suite.)"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burnqed.embedded import Checker
from burnqed.embedded.elab.evaluate import ediv, emod
from burnqed.lean.protocol import GoalStart, GoalTactic, GoalTacticResult, ReplErrorAnswer

_CHECKER = Checker()
TACTICS = [
    "omega",
    "linarith",
    "nlinarith",
    "simp",
    "norm_num",
    "positivity",
    "decide",
    "ring",
    "trivial",
]

leaf = st.sampled_from(["x", "y", "0", "1", "2", "3"])


def _term(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return leaf
    sub = _term(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "%"]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
    )


atom = st.tuples(
    _term(2), st.sampled_from(["=", "≠", "<", "≤", ">", "≥"]), _term(2)
).map(lambda t: f"{t[0]} {t[1]} {t[2]}")


def _value(expr: str, x: int, y: int, ty: str) -> bool:
    """Evaluate with Lean's semantics by rewriting the operators into helper calls."""
    if "x" not in expr and "y" not in expr:
        ty = "Nat"  # a relation between numerals only elaborates at Nat, Lean's default

    class N:
        def __init__(self, v: int) -> None:
            self.v = v

        def __add__(self, o: N) -> N:
            return N(self.v + o.v)

        def __sub__(self, o: N) -> N:
            r = self.v - o.v
            return N(max(r, 0) if ty == "Nat" else r)

        def __mul__(self, o: N) -> N:
            return N(self.v * o.v)

        def __truediv__(self, o: N) -> N:
            return N(ediv(self.v, o.v))

        def __mod__(self, o: N) -> N:
            return N(emod(self.v, o.v))

    py = (
        expr.replace("≠", "!=")
        .replace("≤", "<=")
        .replace("≥", ">=")
        .replace(" = ", " == ")
    )
    for d in "0123":
        py = py.replace(d, f"N({d})")
    env = {"N": N, "x": N(x), "y": N(y)}
    lhs, op, rhs = _split(py)
    a, b = eval(lhs, env).v, eval(rhs, env).v
    return {
        "==": a == b,
        "!=": a != b,
        "<": a < b,
        "<=": a <= b,
        ">": a > b,
        ">=": a >= b,
    }[op]


def _split(py: str) -> tuple[str, str, str]:
    depth = 0
    for i, ch in enumerate(py):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            for op in ("==", "!=", "<=", ">=", "<", ">"):
                if py.startswith(f" {op} ", i):
                    return py[:i], op, py[i + len(op) + 2 :]
    raise AssertionError(py)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hyp=atom, goal=atom, ty=st.sampled_from(["Nat", "Int"]))
def test_proved_statements_hold_on_a_grid(hyp: str, goal: str, ty: str) -> None:
    statement = f"∀ (x y : {ty}), {hyp} → {goal}"
    start = _CHECKER.goal_start(GoalStart(expr=statement))
    if isinstance(start, ReplErrorAnswer):
        return
    intro = _CHECKER.goal_tactic(GoalTactic(state_id=start.state_id, tactic="intro x y h"))
    assert isinstance(intro, GoalTacticResult) and intro.next_state_id is not None
    sid = intro.next_state_id
    grid = range(5) if ty == "Nat" else range(-4, 5)
    truth = all(
        not _value(hyp, x, y, ty) or _value(goal, x, y, ty)
        for x, y in itertools.product(grid, grid)
    )
    for tactic in TACTICS:
        ans = _CHECKER.goal_tactic(GoalTactic(state_id=sid, tactic=tactic))
        if isinstance(ans, GoalTacticResult) and ans.goals == []:
            assert truth, f"{tactic} proved {statement}, which fails on the grid"
    _CHECKER.reset()
