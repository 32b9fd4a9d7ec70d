"""The soundness campaign (``burnqed bench soundness``): turn true statements into false ones
and replay every known proof on them; check that binder names never change a verdict.

- Sources: true statements, each with its reference proof, handed in by the caller
  (``burnqed bench soundness`` passes the built-in sets core and benchmark-test and
  statements drawn from the benchmark families: ``burnqed.data.sets.soundness_sources``);
  the campaign imports nothing above the checker.
- Mutation: change a numeral, flip a relation, swap ∧/∨ or ∀/∃, rename a binder to a
  captured name or to a constant's name (``True``, ``Nat``, ...). A mutant counts as an
  attack only when the oracle proves it false.
- Oracle: independent of the checker's proofs. It reads the statement with the checker's
  parser and elaborator and, for a closed statement or a prenex ∀ over a quantifier-free
  body, evaluates it exactly (Lean's arithmetic: truncated Nat subtraction, ``x / 0 = 0``,
  ``Int.ediv``/``Int.emod``) on small domains; a counterexample proves it false.
- Every attack replays the source's reference proof and a list of generic scripts; an
  accepted one is a false acceptance (the worst bug there is).
- Alpha-renaming: renaming every binder of a source to fresh names must not change the
  verdict of any name-independent script.
- Differential: elaborator acceptances the kernel refused (``Checker.kernel_stats``).
"""

from __future__ import annotations

import itertools
import os
import random
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FAMILY_SCRIPTS", "GENERIC_SCRIPTS", "Tally", "falsified", "mutants", "run_campaign"]

GENERIC_SCRIPTS: list[list[str]] = [
    ["omega"],
    ["intros", "omega"],
    ["simp"],
    ["intros", "simp"],
    ["norm_num"],
    ["intros", "norm_num"],
    ["decide"],
    ["linarith"],
    ["intros", "linarith"],
    ["intros", "nlinarith"],
    ["intros", "positivity"],
    ["intros", "ring"],
    ["simp_all"],
    ["intros", "simp_all"],
    ["trivial"],
    ["rfl"],
    ["intros", "rfl"],
    ["intros", "constructor <;> omega"],
    ["intros", "assumption"],
    ["intros", "contradiction"],
    ["intro h", "exact h"],
    ["use 0"],
    ["use 1"],
    ["intros", "first | omega | simp | decide | linarith | nlinarith"],
    ["intros", "simp only [*] at *"],
    ["exact Eq.symm (by rfl)"],
]
# scripts aimed at the arithmetic families (hypotheses that pin a divisor to 0)
FAMILY_SCRIPTS: list[list[str]] = [
    ["intros", "subst_vars", "omega"],
    ["intros", "simp_all", "omega"],
    ["intros", "norm_num at *"],
    ["intros", "omega"],
    ["intro x", "simp"],
    ["push_cast", "omega"],
    ["intros", "push_cast", "ring_nf"],
    ["intros", "ring"],
    ["intros", "nlinarith [sq_nonneg x]"],
]
_CONSTANT_NAMES = ("True", "False", "Nat", "Int", "Prop", "id", "rfl")
_RELS = ("≤", "<", "≥", ">", "=", "≠")


# ---------------------------------------------------------------- oracle


def _eval(t: Any, env: dict[str, Any]) -> Any:
    """Exact value of an elaborated term under an assignment of its variables."""
    from burnqed.embedded.elab import expr as T

    if isinstance(t, T.Num):
        return t.value
    if isinstance(t, T.BVar):
        return env[t.name]
    if isinstance(t, T.Const):
        return t.name == "True"
    if isinstance(t, T.Op):
        a = [_eval(x, env) for x in t.args]
        if t.op == "cast":
            return a[0]
        if t.op == "neg":
            return -a[0]
        x, y = a
        if t.op == "+":
            return x + y
        if t.op == "-":
            return x - y if t.ty == "Int" else max(x - y, 0)
        if t.op == "*":
            return x * y
        if t.op == "^":
            if y > 64:
                raise OverflowError
            return x**y
        if y == 0:
            return 0 if t.op == "/" else x
        q = x // y if y > 0 else -(x // -y)
        return q if t.op == "/" else x - y * q
    if isinstance(t, T.Rel):
        x, y = _eval(t.lhs, env), _eval(t.rhs, env)
        return {
            "=": x == y,
            "≠": x != y,
            "<": x < y,
            "≤": x <= y,
            ">": x > y,
            "≥": x >= y,
            "∣": (y == 0) if x == 0 else (y % x == 0),
        }[t.op]
    if isinstance(t, T.Conn):
        v = [_eval(x, env) for x in t.args]
        if t.op == "¬":
            return not v[0]
        a, b = v
        return {"∧": a and b, "∨": a or b, "→": (not a) or b, "↔": a == b}[t.op]
    raise TypeError("quantifier inside the matrix")


def _domain(ty: str) -> tuple[Any, ...]:
    return {"Nat": tuple(range(0, 7)), "Int": tuple(range(-4, 5)), "Prop": (False, True)}[ty]


def falsified(statement: str) -> bool | None:
    """True when the statement is certainly false (closed and false, or a prenex ∀ over a
    quantifier-free body with a counterexample); None when the oracle cannot tell."""
    from burnqed.embedded.elab import expr as T
    from burnqed.embedded.elab.elaborate import ElabError, elab_prop
    from burnqed.embedded.syntax.parser import Limits, ParseError, parse_statement

    try:
        t = elab_prop(parse_statement(statement, Limits()), {})
    except (ParseError, ElabError, RecursionError):
        return None
    names: list[tuple[str, str]] = []
    while isinstance(t, T.Binder) and t.q == "∀":
        names.append((t.name, t.ty))
        t = t.body
    if any(isinstance(s, T.Binder) for s in T.subterms(t)) or len({n for n, _ in names}) != len(names):
        return None
    domains = [_domain(ty) for _, ty in names]
    for n, values in enumerate(itertools.product(*domains)):
        if n > 20_000:
            return None
        try:
            if not _eval(t, {name: v for (name, _), v in zip(names, values, strict=True)}):
                return True
        except (OverflowError, KeyError, TypeError):
            return None
    return None


# ---------------------------------------------------------------- mutation


_NUM = re.compile(r"(?<![\w₀-₉])\d+(?![\w₀-₉])")
_BINDER = re.compile(r"(?:∀|∃)\s*\(?\s*([A-Za-z_][\w']*)")


def mutants(statement: str, rng: random.Random, count: int) -> list[str]:
    """Distinct mutated versions of a statement (most of them false)."""
    out: dict[str, None] = {}
    ops = ("num", "rel", "conn", "quant", "rename")
    for _ in range(count * 4):
        if len(out) >= count:
            break
        op = rng.choice(ops)
        text = statement
        if op == "num":
            hits = list(_NUM.finditer(text))
            if not hits:
                continue
            m = rng.choice(hits)
            v = int(m.group())
            new = rng.choice([v + 1, max(v - 1, 0), v + 2, 2 * v + 1, 0, v + 7])
            text = text[: m.start()] + str(new) + text[m.end() :]
        elif op == "rel":
            spots = [i for i, c in enumerate(text) if c in _RELS]
            if not spots:
                continue
            i = rng.choice(spots)
            text = text[:i] + rng.choice([r for r in _RELS if r != text[i]]) + text[i + 1 :]
        elif op == "conn":
            spots = [i for i, c in enumerate(text) if c in "∧∨"]
            if not spots:
                continue
            i = rng.choice(spots)
            text = text[:i] + ("∨" if text[i] == "∧" else "∧") + text[i + 1 :]
        elif op == "quant":
            spots = [i for i, c in enumerate(text) if c in "∀∃"]
            if not spots:
                continue
            i = rng.choice(spots)
            text = text[:i] + ("∃" if text[i] == "∀" else "∀") + text[i + 1 :]
        else:
            binders = [m.group(1) for m in _BINDER.finditer(text)]
            if not binders:
                continue
            old = rng.choice(binders)
            new = rng.choice([*(b for b in binders if b != old), *_CONSTANT_NAMES])
            text = re.sub(rf"(?<![\w']){re.escape(old)}(?![\w'])", new, text)
        if text != statement:
            out[text] = None
    return list(out)


def _binder_names(statement: str) -> list[str]:
    """The names a statement binds, in order (read with the checker's parser)."""
    from burnqed.embedded.syntax.parser import Limits, ParseError, Syn, parse_statement

    try:
        tree = parse_statement(statement, Limits())
    except (ParseError, RecursionError):
        return []
    out: dict[str, None] = {}
    stack: list[Syn] = [tree]
    while stack:
        s = stack.pop()
        if s.kind == "binder":
            for g in s.value[1]:
                out.setdefault(g[0], None)
        stack.extend(a for a in s.args if isinstance(a, Syn))
    return list(out)


def alpha_renamed(statement: str) -> str:
    """Every binder renamed to a fresh name (a verdict must not change)."""
    names = _binder_names(statement)
    for i, old in enumerate(names):
        statement = re.sub(rf"(?<![\w']){re.escape(old)}(?![\w'])", f"v{i}ʹ", statement)
    return statement


# ---------------------------------------------------------------- campaign


@dataclass
class Tally:
    """What one campaign run found."""

    attempts: dict[str, int] = field(default_factory=lambda: {"mutation": 0, "alpha": 0})
    mutants: int = 0
    false_mutants: int = 0
    false_accepted: list[dict[str, Any]] = field(default_factory=list)
    alpha_verdict_changes: list[dict[str, Any]] = field(default_factory=list)
    elaborator_accepted: int = 0
    kernel_rejected: int = 0
    kernel_rejected_examples: list[dict[str, Any]] = field(default_factory=list)
    kernel_seconds: float = 0.0
    check_seconds: float = 0.0

    def merge(self, other: Tally) -> None:
        """Add another tally to this one."""
        for key, v in other.attempts.items():
            self.attempts[key] = self.attempts.get(key, 0) + v
        self.mutants += other.mutants
        self.false_mutants += other.false_mutants
        self.false_accepted += other.false_accepted
        self.alpha_verdict_changes += other.alpha_verdict_changes
        self.elaborator_accepted += other.elaborator_accepted
        self.kernel_rejected += other.kernel_rejected
        self.kernel_rejected_examples += other.kernel_rejected_examples
        self.kernel_seconds += other.kernel_seconds
        self.check_seconds += other.check_seconds


def _chunk(args: tuple[list[tuple[str, list[str]]], int, int, int, list[tuple[str, str]]]) -> Tally:
    from burnqed.embedded.repl.checker import Checker
    from burnqed.lean.protocol import OptionsSet

    sources, seed, per_source, timeout_ms, family_attacks = args
    rng = random.Random(seed)
    checker = Checker()
    checker.options_set(OptionsSet(timeout=timeout_ms))
    tally = Tally()

    def run(statement: str, script: list[str]) -> bool:
        before = checker.kernel_stats.rejected, checker.kernel_stats.seconds
        t0 = time.perf_counter()
        ok = checker.check_proof(statement, script).ok
        tally.check_seconds += time.perf_counter() - t0
        if checker.kernel_stats.rejected > before[0]:
            tally.kernel_rejected += checker.kernel_stats.rejected - before[0]
            if len(tally.kernel_rejected_examples) < 20:
                tally.kernel_rejected_examples.append({"statement": statement, "script": script})
        tally.kernel_seconds += checker.kernel_stats.seconds - before[1]
        return ok

    for statement, proof in sources:
        for mutant in mutants(statement, rng, per_source):
            tally.mutants += 1
            if falsified(mutant) is not True:
                continue
            tally.false_mutants += 1
            for script in [proof, *GENERIC_SCRIPTS]:
                tally.attempts["mutation"] += 1
                if run(mutant, script):
                    tally.false_accepted.append({"statement": mutant, "script": script, "from": statement})
        renamed = alpha_renamed(statement)
        if renamed != statement:
            for script in GENERIC_SCRIPTS[: 8]:
                tally.attempts["alpha"] += 2
                a, b = run(statement, script), run(renamed, script)
                tally.elaborator_accepted += a + b
                if a != b:
                    tally.alpha_verdict_changes.append({"statement": statement, "renamed": renamed, "script": script})
    for family, statement in family_attacks:  # already proved false by the oracle
        key = f"family:{family}"
        for script in [*GENERIC_SCRIPTS, *FAMILY_SCRIPTS]:
            tally.attempts[key] = tally.attempts.get(key, 0) + 1
            if run(statement, script):
                tally.false_accepted.append({"statement": statement, "script": script, "from": key})
    return tally


def run_campaign(
    sources: list[tuple[str, list[str]]],
    *,
    seed: int = 0,
    per_source: int = 6,
    workers: int | None = None,
    timeout_ms: int = 2000,
    per_family: int = 0,
) -> Tally:
    """Run the mutation and alpha-renaming campaigns over ``sources`` (true statements with
    their reference proofs), and ``per_family`` false statements of each arithmetic family
    (soundness.families), in parallel."""
    from burnqed.embedded.soundness.families import FAMILY_TEMPLATES, family_statements

    rng = random.Random(seed)
    attacks = [(name, s) for name in FAMILY_TEMPLATES for s in family_statements(name, rng, per_family, falsified)]
    workers = workers or os.cpu_count() or 1
    n = workers * 4
    jobs = [
        (sources[i::n], seed * 1000 + i, per_source, timeout_ms, attacks[i::n])
        for i in range(n)
        if sources[i::n] or attacks[i::n]
    ]
    total = Tally()
    if workers == 1:
        for job in jobs:
            total.merge(_chunk(job))
        return total
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_chunk, jobs):
            total.merge(part)
    return total
