"""The held-out set: which theorem sets and statements an agent may never search or read.

The held-out sets are the ones the operator configured (ToolsConfig.held_out_sets) together
with the evaluation set an iteration actually uses (IterationConfig.eval_set, a set name or
a .jsonl path), so changing the evaluation set moves the fence with it.

A statement is held out when it *is* a held-out statement, not when its text matches one:
``HeldOutIndex`` compares by the lock hash (NFC, whitespace collapsed), by the text up to
spacing, outer parentheses and binder names, and by the elaborated form — the goal Lean
prints after ``intros`` (``19*12+3 = 231`` and ``(19 * 12 + 3 = 231)`` elaborate alike),
with every hypothesis and bound variable renamed canonically (``∃ k, k + 5 = 13`` is
``∃ m, m + 5 = 13``). The elaborated forms of the held-out set are computed on first use, on
the pool the index is given, as many at once as the pool has workers, and kept for the process
per Lean configuration and statement list (every server of one process fences the same set).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import anyio

from burnqed.data.theorems import Theorem, statement_sha
from burnqed.lean.errors import LeanError
from burnqed.lean.protocol import Goal
from burnqed.lean.target import ProofTarget

__all__ = ["HeldOutIndex", "canonical_goals", "canonical_text", "held_out_set_names", "load_held_out"]

log = logging.getLogger(__name__)

# (the pool's Lean configuration, the held-out statements and headers) -> their elaborated forms
_FORMS: dict[tuple[str, tuple[tuple[str, str | None], ...]], frozenset[str]] = {}

# identifiers (with Lean's subscripts, primes, dots and the inaccessible mark ✝), numbers, symbols
_TOKEN = re.compile(r"[^\W\d][\w'!?✝.]*|\d+(?:\.\d+)?|:=|=>|->|↦|\S")
_BINDERS = frozenset({"∀", "∃", "∃!", "fun", "λ", "Π", "Σ", "∑", "∏", "⋃", "⋂", "∀ᶠ", "∃ᶠ"})
_OPENERS = {"(": ")", "{": "}", "[": "]", "⦃": "⦄"}
_BINDER_END = frozenset({",", "=>", "↦"})


def held_out_set_names(config: Any) -> tuple[str, ...]:
    """The held-out sets of a ToolsRunConfig: ToolsConfig.held_out_sets plus the configured
    evaluation set (IterationConfig.eval_set, a name or a path) and the split a run evaluates
    (IterationConfig.held_out_set: the tuning split with ``eval_split = "tune"``)."""
    names = list(config.tools.held_out_sets)
    for evaluated in (str(config.iteration.eval_set), str(config.iteration.held_out_set)):
        if evaluated not in names:
            names.append(evaluated)
    return tuple(names)


def load_held_out(config: Any) -> list[Theorem]:
    """Every theorem of the held-out sets (a set that cannot be read is logged and skipped)."""
    from burnqed.data.sets import builtin_sets, load_builtin
    from burnqed.data.theorems import TheoremSetError, load_theorems

    theorems: list[Theorem] = []
    for name in held_out_set_names(config):
        try:
            if name in builtin_sets():
                theorems += load_builtin(name, home=config.paths.home, config=config.data)
            elif Path(name).suffix == ".jsonl" and Path(name).is_file():
                theorems += load_theorems(name)
        except (TheoremSetError, OSError) as exc:
            log.warning("held-out set %s cannot be read: %s", name, exc)
    return theorems


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def canonical_text(text: str, names: dict[str, str] | None = None, counter: list[int] | None = None) -> str:
    """``text`` as tokens joined by single spaces, outer parentheses dropped, and every name bound by
    a binder (∀ ∃ fun λ …) — and every name of ``names`` — replaced by a canonical one."""
    renamed = dict(names or {})
    count = counter if counter is not None else [0]
    tokens = _tokens(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _BINDERS or (tok == "∃" and i + 1 < len(tokens) and tokens[i + 1] == "!"):
            out.append(tok)
            i += 1
            i = _binder_region(tokens, i, renamed, count, out)
            continue
        out.append(renamed.get(tok, tok))
        i += 1
    while len(out) >= 2 and out[0] == "(" and out[-1] == ")" and _balanced(out[1:-1]):
        out = out[1:-1]
    return " ".join(out)


def _binder_region(tokens: list[str], i: int, renamed: dict[str, str], count: list[int], out: list[str]) -> int:
    """Rename the names a binder introduces (``x y``, ``(x y : T)``, ``x : T``) up to its ``,`` / ``=>``."""
    fresh: dict[str, str] = {}
    typing = False
    depth = 0
    closers: list[str] = []
    while i < len(tokens):
        tok = tokens[i]
        if depth == 0 and tok in _BINDER_END:
            out.append(",")
            renamed.update(fresh)
            return i + 1
        if tok in _OPENERS:
            closers.append(_OPENERS[tok])
            depth += 1
            typing = False
            out.append(tok)
        elif closers and tok == closers[-1]:
            closers.pop()
            depth -= 1
            typing = False
            out.append(tok)
        elif tok == ":" or tok in {"∈", "<", "≤", ">", "≥", "∉", "⊆"}:
            typing = True
            out.append(tok)
        elif not typing and re.match(r"[^\W\d]", tok):
            count[0] += 1
            fresh[tok] = f"x{count[0]}"
            out.append(fresh[tok])
        else:
            out.append({**renamed, **fresh}.get(tok, tok) if typing else tok)
        i += 1
    renamed.update(fresh)
    return i


def _balanced(tokens: Sequence[str]) -> bool:
    depth = 0
    for tok in tokens:
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def canonical_goals(goals: Iterable[Goal]) -> str:
    """Goals as Lean elaborated them, up to hypothesis names, binder names and spacing."""
    parts: list[str] = []
    for goal in goals:
        names: dict[str, str] = {}
        counter = [0]
        hyps: list[str] = []
        for n, var in enumerate(goal.vars):
            kind = canonical_text(var.type.pp if var.type is not None and var.type.pp else "?", names, counter)
            names[var.user_name] = f"h{n}"
            hyps.append(kind)
        target = canonical_text(goal.target.pp or "?", names, counter)
        parts.append(" ; ".join([*hyps, "⊢ " + target]))
    return " || ".join(parts)


class HeldOutIndex:
    """Answers "is this statement held out?" for one server (built on first use)."""

    def __init__(self, theorems: Sequence[Theorem]) -> None:
        self.theorems = list(theorems)
        self.names = frozenset(t.name for t in self.theorems)
        self.shas = frozenset(t.sha for t in self.theorems) | frozenset(statement_sha(t.statement) for t in self.theorems)
        self.texts = frozenset(canonical_text(t.statement) for t in self.theorems)
        self._elaborated: frozenset[str] | None = None
        # made on first use, in the event loop: an index may be built in a worker thread
        self._lock: anyio.Lock | None = None

    def by_text(self, statement: str) -> bool:
        """Held out by its hash or its text up to spacing, outer parentheses and binder names."""
        return statement_sha(statement) in self.shas or canonical_text(statement) in self.texts

    async def elaborated(self, pool: Any) -> frozenset[str]:
        """The held-out statements' elaborated forms (computed once, on ``pool``)."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._elaborated is None:
                self._elaborated = await _elaborate_all(pool, self.theorems)
            return self._elaborated

    async def contains(self, pool: Any, statement: str) -> bool:
        """Held out by text, or by its elaborated form on ``pool`` (a statement Lean rejects is
        judged by its text only: it cannot be searched anyway)."""
        if self.by_text(statement):
            return True
        if not self.theorems:
            return False
        form = await elaborated_form(pool, statement, None)
        return form is not None and form in await self.elaborated(pool)


async def _elaborate_all(pool: Any, theorems: Sequence[Theorem]) -> frozenset[str]:
    """The elaborated forms of ``theorems`` on ``pool``, one per worker at a time; kept for the
    process when the pool names its Lean configuration (the forms depend on nothing else)."""
    config = getattr(pool, "config", None)
    key = None
    if config is not None and hasattr(config, "model_dump_json"):
        key = (config.model_dump_json(), tuple((t.statement, t.header) for t in theorems))
        if key in _FORMS:
            return _FORMS[key]
    forms: list[str | None] = [None] * len(theorems)
    limiter = anyio.CapacityLimiter(max(1, int(getattr(config, "num_workers", 1) or 1)))

    async def one(index: int, theorem: Theorem) -> None:
        async with limiter:
            forms[index] = await elaborated_form(pool, theorem.statement, theorem.header)

    async with anyio.create_task_group() as group:
        for index, theorem in enumerate(theorems):
            group.start_soon(one, index, theorem)
    found = frozenset(form for form in forms if form is not None)
    if key is not None:
        _FORMS[key] = found
    return found


async def elaborated_form(pool: Any, statement: str, header: str | None) -> str | None:
    """The canonical goals of ``statement`` after ``intros`` (the root goals when intros fails);
    None when Lean rejects the statement."""
    try:
        handle = await pool.open_proof(ProofTarget.of(statement, header))
    except LeanError:
        return None
    try:
        goals = list(handle.goals)
        try:
            out = await handle.run_tactic(handle.state_id, "intros")
            if out.ok and out.goals:
                goals = list(out.goals)
        except LeanError:
            pass
        return canonical_goals(goals)
    finally:
        try:
            await handle.close()
        except LeanError:
            pass
