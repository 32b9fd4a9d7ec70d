"""Soundness properties of the embedded checker (hypothesis): whatever it proves is true under an independent check.

Statements in the fragment (quantifier-free arithmetic over ℕ and ℤ with ∧ ∨ ¬ → ↔, ∀-prefixed
or closed) are drawn by hypothesis, true and false alike, with extra weight on the places a
checker is most likely wrong: truncated ℕ subtraction, ``x / 0 = 0``, ``x % 0 = x``, ℤ's
Euclidean ``/`` and ``%``, ``∣`` with 0, and nonlinear terms. Closing tactics (alone, after
``intro``, or short random sequences) run in the in-process Checker; when a statement comes
out proved, it must hold at every point of a grid (evaluator below, written from Lean's
definitions and sharing no code with the checker) and z3 must find no counterexample to the
quantifier-free core (encoded here, independently, with the same semantics).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product
from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import burnqed.embedded as embedded
from burnqed.embedded.repl.verify import check_proof
from burnqed.lean.protocol import OptionsSet

# ---------------------------------------------------------------- the fragment, as a tiny AST


@dataclass(frozen=True)
class T:
    """A term or formula: ``op`` with children ``args`` (leaves: 'var' name, 'num' value)."""

    op: str
    args: tuple[Any, ...]


def var(name: str) -> T:
    return T("var", (name,))


def num(value: int) -> T:
    return T("num", (value,))


ARITH = ("+", "-", "*", "/", "%")
RELS = ("=", "≠", "<", "≤", ">", "≥")


def show(t: T, int_nums: bool = False) -> str:
    """Lean 4 text with every compound child parenthesised (``int_nums``: numerals written
    ``(k : Int)``, so that a relation without variables is about ℤ too; Lean would type it
    ℕ by its default numeral type)."""
    if t.op == "var":
        return t.args[0]
    if t.op == "num":
        return f"({t.args[0]} : Int)" if int_nums else str(t.args[0])
    if t.op in ("true", "false"):
        return "True" if t.op == "true" else "False"

    def child(c: T) -> str:
        text = show(c, int_nums)
        return text if c.op in ("var", "num", "true", "false") else f"({text})"

    if t.op == "^":
        return f"{child(t.args[0])} ^ {t.args[1]}"
    if t.op == "¬":
        return f"¬{child(t.args[0])}"
    return f"{child(t.args[0])} {t.op} {child(t.args[1])}"


# ---------------------------------------------------------------- independent semantics


def _ediv(a: int, b: int) -> int:
    """Int.ediv: Euclidean division, x / 0 = 0."""
    if b == 0:
        return 0
    r = a % abs(b)
    return (a - r) // b


def _emod(a: int, b: int) -> int:
    """Int.emod: always in [0, |b|), x % 0 = x."""
    return a if b == 0 else a % abs(b)


def value(t: T, env: dict[str, int], is_int: bool) -> int:
    """Evaluate a term the way Lean's Nat / Int instances do."""
    if t.op == "var":
        return env[t.args[0]]
    if t.op == "num":
        return t.args[0]
    if t.op == "^":
        return value(t.args[0], env, is_int) ** t.args[1]
    a, b = value(t.args[0], env, is_int), value(t.args[1], env, is_int)
    if t.op == "+":
        return a + b
    if t.op == "*":
        return a * b
    if t.op == "-":
        return a - b if is_int else max(a - b, 0)
    if t.op == "/":
        return _ediv(a, b) if is_int else (0 if b == 0 else a // b)
    if t.op == "%":
        return _emod(a, b) if is_int else (a if b == 0 else a % b)
    raise AssertionError(t.op)


def holds(f: T, env: dict[str, int], is_int: bool) -> bool:
    """Truth of a formula at one point."""
    op = f.op
    if op == "true":
        return True
    if op == "false":
        return False
    if op == "¬":
        return not holds(f.args[0], env, is_int)
    if op in ("∧", "∨", "→", "↔"):
        p, q = holds(f.args[0], env, is_int), holds(f.args[1], env, is_int)
        return {"∧": p and q, "∨": p or q, "→": (not p) or q, "↔": p == q}[op]
    a, b = value(f.args[0], env, is_int), value(f.args[1], env, is_int)
    if op == "∣":
        return b == 0 if a == 0 else b % abs(a) == 0
    return {"=": a == b, "≠": a != b, "<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b}[
        op
    ]


def grid_counterexample(f: T, names: list[str], is_int: bool) -> dict[str, int] | None:
    """A point of the grid where the formula is false, if any."""
    points = range(-3, 4) if is_int else range(6)
    for values in product(points, repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        if not holds(f, env, is_int):
            return env
    return None


def _z3_term(t: T, env: dict[str, z3.ArithRef], is_int: bool) -> z3.ArithRef:
    if t.op == "var":
        return env[t.args[0]]
    if t.op == "num":
        return z3.IntVal(t.args[0])
    if t.op == "^":
        base = _z3_term(t.args[0], env, is_int)
        out: z3.ArithRef = z3.IntVal(1)
        for _ in range(t.args[1]):
            out = out * base
        return out
    a, b = _z3_term(t.args[0], env, is_int), _z3_term(t.args[1], env, is_int)
    if t.op == "+":
        return a + b
    if t.op == "*":
        return a * b
    if t.op == "-":
        return a - b if is_int else z3.If(a >= b, a - b, 0)
    # SMT-LIB integer div/mod are Euclidean (0 ≤ a mod b < |b|): Int.ediv/emod for b ≠ 0,
    # and floor division for ℕ; Lean's b = 0 cases are explicit
    if t.op == "/":
        return z3.If(b == 0, 0, a / b)
    if t.op == "%":
        return z3.If(b == 0, a, a % b)
    raise AssertionError(t.op)


def _z3_formula(f: T, env: dict[str, z3.ArithRef], is_int: bool) -> z3.BoolRef:
    op = f.op
    if op == "true":
        return z3.BoolVal(True)
    if op == "false":
        return z3.BoolVal(False)
    if op == "¬":
        return z3.Not(_z3_formula(f.args[0], env, is_int))
    if op in ("∧", "∨", "→", "↔"):
        p, q = _z3_formula(f.args[0], env, is_int), _z3_formula(f.args[1], env, is_int)
        return {
            "∧": z3.And(p, q),
            "∨": z3.Or(p, q),
            "→": z3.Implies(p, q),
            "↔": p == q,
        }[op]
    a, b = _z3_term(f.args[0], env, is_int), _z3_term(f.args[1], env, is_int)
    if op == "∣":
        return z3.If(a == 0, b == 0, b % a == 0)
    return {"=": a == b, "≠": a != b, "<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b}[
        op
    ]


def z3_counterexample(f: T, names: list[str], is_int: bool) -> bool | None:
    """True when z3 finds the formula false somewhere, False when valid, None when unknown."""
    env = {n: z3.Int(n) for n in names}
    solver = z3.Solver()
    solver.set("timeout", 3000)
    if not is_int:
        solver.add(*[v >= 0 for v in env.values()])
    solver.add(z3.Not(_z3_formula(f, env, is_int)))
    result = solver.check()
    if result == z3.unknown:
        return None
    return result == z3.sat


# ---------------------------------------------------------------- statement strategies

NAMES = ("x", "y", "z")


# built once per argument tuple: the composite strategies below call these on every draw, and a
# fresh strategy tree is validated anew each time (most of these tests' time); the draws are the same
@cache
def terms(names: tuple[str, ...], is_int: bool, depth: int = 2) -> st.SearchStrategy[T]:
    """Terms up to ``depth`` operators deep (explicit depth, no st.recursive)."""
    numerals = st.integers(0, 7).map(num)
    leaves = st.one_of(st.sampled_from([var(n) for n in names]), numerals) if names else numerals
    if depth == 0:
        return leaves
    sub = terms(names, is_int, depth - 1)
    binary = st.builds(lambda op, a, b: T(op, (a, b)), st.sampled_from(ARITH), sub, sub)
    power = st.builds(lambda a, k: T("^", (a, k)), sub, st.integers(0, 3))
    return st.one_of(leaves, binary, binary, power)


@cache
def formulas(names: tuple[str, ...], is_int: bool, depth: int = 2) -> st.SearchStrategy[T]:
    """Formulas up to ``depth`` connectives deep over atoms of terms."""
    term = terms(names, is_int)
    atom = st.one_of(
        st.builds(lambda op, a, b: T(op, (a, b)), st.sampled_from(RELS), term, term),
        st.builds(lambda k, b: T("∣", (num(k), b)), st.integers(0, 4), term),
        st.sampled_from([T("true", ()), T("false", ())]),
    )
    if depth == 0:
        return atom
    sub = formulas(names, is_int, depth - 1)
    binary = st.builds(lambda op, a, b: T(op, (a, b)), st.sampled_from(("∧", "∨", "→", "↔")), sub, sub)
    return st.one_of(atom, atom, binary, st.builds(lambda a: T("¬", (a,)), sub))


# identities that hold in one of ℕ / ℤ and not the other, or only away from 0
TRAPS = (
    "(x - y) + y = x",
    "x - y + y ≥ x",
    "x - (x - y) = y",
    "(x / y) * y = x",
    "(x / y) * y + x % y = x",
    "x % y < y",
    "y > 0 → x % y < y",
    "(x - y) * z = x * z - y * z",
    "x / 0 = 0",
    "x % 0 = x",
    "x * x ≥ 0",
    "x * y ≥ 0",
    "x * x - 2 * x + 1 ≥ 0",
    "x ^ 2 + 1 > 0",
    "x ∣ x * y",
    "0 ∣ x",
    "x % 2 = 0 ∨ x % 2 = 1",
    "(x + y) / 2 ≤ x ∨ (x + y) / 2 ≤ y",
    "x < y → x + 1 ≤ y",
    "x - y = 0 → x ≤ y",
    "x ≤ y → x - y = 0",
    "x * y = 0 → x = 0 ∨ y = 0",
    "x ^ 2 = x * x",
    "(x - 1) * (x + 1) = x * x - 1",
    "x / 2 * 2 = x",
    "(0 - x) / 2 = 0 - x / 2",
    "(0 - x) % 3 = 0 - x % 3",
    "x % (0 - 3) = x % 3",
    "x / (0 - 2) = 0 - x / 2",
    # false only far outside the evaluation grid: z3 has to catch these
    "x * x ≠ 2401",
    "x < 100 ∨ x > 100",
    "x % 37 ≠ 36",
    "x * y ≠ 91",
    "x ^ 3 ≠ 1000",
)


def parse_trap(text: str) -> T:
    """Parse a trap with sympy-free recursive descent (tiny grammar: the traps above)."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def eat() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def atom() -> T:
        tok = eat()
        if tok == "(":
            inner = expr(0)
            eat()
            return inner
        return num(int(tok)) if tok.isdigit() else var(tok)

    # binding powers: → 25 (right), ∨ 30 (right), relations 50, + - 65, * / % 70, ^ 75 (right)
    binary = {"→": (25, "r"), "∨": (30, "r"), "∧": (35, "r"), "+": (65, "l"), "-": (65, "l"), "*": (70, "l"),
              "/": (70, "l"), "%": (70, "l"), "^": (75, "r")}  # fmt: skip
    binary.update({r: (50, "n") for r in (*RELS, "∣")})

    def expr(min_bp: int) -> T:
        left = atom()
        while (op := peek()) in binary and binary[op][0] >= min_bp:
            bp, assoc = binary[op]
            eat()
            right = expr(bp if assoc == "r" else bp + 1)
            left = T("^", (left, right.args[0])) if op == "^" else T(op, (left, right))
        return left

    return expr(0)


@dataclass(frozen=True)
class Statement:
    """A statement of the fragment with the data to check it independently."""

    body: T
    names: tuple[str, ...]
    is_int: bool

    @property
    def text(self) -> str:
        if not self.names:
            return show(self.body)
        ty = "Int" if self.is_int else "Nat"
        return f"∀ ({' '.join(self.names)} : {ty}), {show(self.body, self.is_int)}"


@st.composite
def random_statements(draw: st.DrawFn) -> Statement:
    is_int = draw(st.booleans())
    names = NAMES[: draw(st.integers(1, 3))]
    return Statement(draw(formulas(names, is_int)), names, is_int)


def grid_true_statements() -> st.SearchStrategy[Statement]:
    """Random statements that hold on the whole grid: the ones a checker is tempted to prove."""
    return random_statements().filter(lambda s: grid_counterexample(s.body, list(s.names), s.is_int) is None)


@st.composite
def trap_statements(draw: st.DrawFn) -> Statement:
    body = parse_trap(draw(st.sampled_from(TRAPS)))
    is_int = draw(st.booleans())
    if draw(st.booleans()):  # sometimes with a random extra conjunct or premise
        extra = draw(formulas(("x", "y"), is_int))
        body = T(draw(st.sampled_from(("∧", "→"))), (extra, body))
    return Statement(body, NAMES, is_int)


@st.composite
def closed_statements(draw: st.DrawFn) -> Statement:
    return Statement(draw(formulas((), False)), (), False)


CLOSERS = (
    "omega",
    "linarith",
    "nlinarith",
    "positivity",
    "decide",
    "norm_num",
    "simp",
    "ring",
    "rfl",
)
STEPS = (
    *CLOSERS,
    "constructor",
    "left",
    "right",
    "exfalso",
    "contradiction",
    "assumption",
    "intro h",
    "simp_all",
    "simp at h",
    "norm_num at h",
    "rw [h]",
    "rw [← h]",
    "subst h",
    "exact h",
    "apply h",
    "rcases h with h | h",
    "obtain ⟨h₁, h₂⟩ := h",
    "by_contra hc",
    "linarith [h]",
    "constructor <;> omega",
    "all_goals omega",
)


# ---------------------------------------------------------------- the property


@pytest.fixture(scope="module")
def checker() -> Any:
    c = embedded.Checker()
    c.options_set(OptionsSet(timeout=3000))
    return c


def assert_sound(checker: Any, stmt: Statement, tactics: list[str]) -> None:
    """If the checker proves ``stmt`` with ``tactics``, the statement must be true."""
    verdict = check_proof(checker, stmt.text, tactics, truncate=True)
    if not verdict.ok:
        return
    used = tactics[: verdict.steps]
    point = grid_counterexample(stmt.body, list(stmt.names), stmt.is_int)
    assert point is None, (
        f"UNSOUND: {stmt.text!r} proved by {used} but false at {point}"
    )
    assert z3_counterexample(stmt.body, list(stmt.names), stmt.is_int) is not True, (
        f"UNSOUND: {stmt.text!r} proved by {used} but z3 finds a counterexample"
    )


def _intro(stmt: Statement) -> list[str]:
    return [f"intro {' '.join(stmt.names)}"] if stmt.names else []


# bounded and reproducible in cost: no deadline (solver calls vary), no example database written,
# and no health-check failures for slow or heavily filtered draws
SETTINGS = settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(stmt=st.one_of(random_statements(), grid_true_statements()), tactic=st.sampled_from(CLOSERS), intro=st.booleans())
def test_a_closer_never_proves_a_false_random_statement(
    checker: Any, stmt: Statement, tactic: str, intro: bool
) -> None:
    assert_sound(checker, stmt, (_intro(stmt) if intro else []) + [tactic])


@SETTINGS
@given(stmt=trap_statements(), tactic=st.sampled_from(CLOSERS), intro=st.booleans())
def test_a_closer_respects_nat_and_int_semantics_on_traps(
    checker: Any, stmt: Statement, tactic: str, intro: bool
) -> None:
    assert_sound(checker, stmt, (_intro(stmt) if intro else []) + [tactic])


@settings(SETTINGS, max_examples=100)
@given(stmt=closed_statements(), tactic=st.sampled_from(CLOSERS))
def test_a_closer_never_proves_a_false_closed_statement(
    checker: Any, stmt: Statement, tactic: str
) -> None:
    assert_sound(checker, stmt, [tactic])


@settings(SETTINGS, max_examples=80)
@given(
    stmt=st.one_of(random_statements(), grid_true_statements(), trap_statements()),
    steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=4),
)
def test_tactic_sequences_never_prove_a_false_statement(
    checker: Any, stmt: Statement, steps: list[str]
) -> None:
    assert_sound(checker, stmt, _intro(stmt) + steps)


@pytest.mark.parametrize("text", TRAPS)
def test_the_independent_semantics_parse_every_trap(text: str) -> None:
    assert show(parse_trap(text)).replace("(", "").replace(")", "") == text.replace(
        "(", ""
    ).replace(")", "")


def test_the_independent_semantics_follow_lean() -> None:
    x, y = var("x"), var("y")
    env = {"x": -7, "y": 2}
    assert value(T("/", (x, y)), env, True) == -4
    assert value(T("%", (x, y)), env, True) == 1
    assert value(T("/", (x, num(0))), env, True) == 0
    assert value(T("%", (x, num(0))), env, True) == -7
    assert value(T("/", (num(7), num(-2))), env, True) == -3
    assert value(T("-", (num(3), num(5))), env, False) == 0
    assert value(T("%", (num(5), num(0))), env, False) == 5
    assert (
        grid_counterexample(parse_trap("(x - y) + y = x"), ["x", "y"], False)
        is not None
    )
    assert grid_counterexample(parse_trap("(x - y) + y = x"), ["x", "y"], True) is None
    assert (
        z3_counterexample(parse_trap("(x / y) * y + x % y = x"), ["x", "y"], True)
        is False
    )
    assert z3_counterexample(parse_trap("x % y < y"), ["x", "y"], False) is True


# ---------------------------------------------------------------- propositional logic over Prop variables

PROPS = ("p", "q", "r")


def prop_formulas(depth: int = 3) -> st.SearchStrategy[T]:
    """Formulas over Prop variables p q r with True False ¬ ∧ ∨ → ↔."""
    atom = st.sampled_from([var(n) for n in PROPS] + [T("true", ()), T("false", ())])
    if depth == 0:
        return atom
    sub = prop_formulas(depth - 1)
    binary = st.builds(lambda op, a, b: T(op, (a, b)), st.sampled_from(("∧", "∨", "→", "↔")), sub, sub)
    return st.one_of(atom, binary, binary, st.builds(lambda a: T("¬", (a,)), sub))


def prop_holds(f: T, env: dict[str, bool]) -> bool:
    """Classical truth of a propositional formula under an assignment."""
    if f.op == "var":
        return env[f.args[0]]
    if f.op in ("true", "false"):
        return f.op == "true"
    if f.op == "¬":
        return not prop_holds(f.args[0], env)
    p, q = prop_holds(f.args[0], env), prop_holds(f.args[1], env)
    return {"∧": p and q, "∨": p or q, "→": (not p) or q, "↔": p == q}[f.op]


PROP_STEPS = (
    "intro h",
    "intro h₁ h₂",
    "constructor",
    "left",
    "right",
    "exfalso",
    "contradiction",
    "assumption",
    "trivial",
    "exact h",
    "apply h",
    "exact h.1",
    "exact h.2",
    "rcases h with h | h",
    "obtain ⟨h₁, h₂⟩ := h",
    "cases h",
    "by_contra hc",
    "by_cases hp : p",
    "simp_all",
    "simp",
    "decide",
    "tauto",
    "exact fun x => x",
    "exact ⟨h₁, h₂⟩",
)


PROP_CLOSERS = ("simp_all", "simp", "decide", "contradiction", "assumption", "trivial", "exact h", "tauto")


def _true_rows(f: T) -> int:
    return sum(prop_holds(f, dict(zip(PROPS, v, strict=True))) for v in product((False, True), repeat=len(PROPS)))


# mostly-true formulas: tautologies (which a checker should prove) and near misses (which it must not)
NEAR_TAUTOLOGIES = prop_formulas().filter(lambda f: _true_rows(f) >= 6)


@settings(SETTINGS, max_examples=150)
@given(
    body=st.one_of(prop_formulas(), NEAR_TAUTOLOGIES),
    steps=st.lists(st.sampled_from(PROP_STEPS), max_size=3),
    closer=st.sampled_from(PROP_CLOSERS),
)
def test_propositional_reasoning_never_proves_a_non_tautology(
    checker: Any, body: T, steps: list[str], closer: str
) -> None:
    text = f"∀ ({' '.join(PROPS)} : Prop), {show(body)}"
    steps = [*steps, closer]
    verdict = check_proof(checker, text, ["intro p q r", *steps], truncate=True)
    if not verdict.ok:
        return
    for values in product((False, True), repeat=len(PROPS)):
        env = dict(zip(PROPS, values, strict=True))
        assert prop_holds(body, env), f"UNSOUND: {text!r} proved by {steps[: verdict.steps]} but false at {env}"
