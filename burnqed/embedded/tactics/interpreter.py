"""The tactic interpreter: sequences, ``<;>``, focusing and combinators over a goal list.

Basic tactics act on the main goal and return the goals that replace it (the table in
tactics/table.py maps names to them; importing a tactic module registers nothing). Failures raise ``TacticError``;
running past the deadline raises ``Interrupted`` (the REPL's timeout answer).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from burnqed.embedded import kernel
from burnqed.embedded.bridge.translate import Step
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, to_wire
from burnqed.embedded.syntax.parser import Limits, ParseError
from burnqed.embedded.syntax.tactic_parser import Tac, parse_tactic
from burnqed.embedded.elab.expr import size_exceeds
from burnqed.lean.protocol import render_goals

__all__ = ["BasicTactic", "Engine", "Exhausted", "GoalListTactic", "Interrupted", "TacticContext", "TacticTable", "register", "register_goal_list", "render"]


class Exhausted(TacticError):
    """The request used up ``max_heartbeats``; like Lean's runtime exceptions, combinators
    (``try``, ``first``, ``repeat``, ``any_goals``) do not catch it."""


class Interrupted(Exception):
    """The request ran past its deadline (answered as ``{"desc":"interrupt","error":"internal"}``)."""


@dataclass
class TacticContext:
    """What one goal.tactic request shares: fresh ids, bounds, the deadline, the sorry flag."""

    fresh: Callable[[], int]
    config: EmbeddedConfig
    deadline: float | None = None
    used_sorry: bool = False
    infos: list[str] = field(default_factory=list)
    heartbeats: int = 0
    nesting: int = 0
    steps: dict[int, Step] = field(default_factory=dict)

    @property
    def limits(self) -> Limits:
        """Parser bounds."""
        c = self.config
        return Limits(c.max_input_chars, c.max_depth, c.max_numeral_digits)

    def check_time(self) -> None:
        """Raise Interrupted past the deadline."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.interrupt()

    def interrupt(self) -> NoReturn:
        """Raise Interrupted: the request's deadline stopped its work (the timeout answer)."""
        raise Interrupted()

    @property
    def exhausted(self) -> bool:
        """Whether the request ran past ``max_heartbeats``."""
        return self.heartbeats > self.config.max_heartbeats

    def beat(self, cost: int) -> None:
        """Charge ``cost`` units of work; past ``max_heartbeats`` the tactic fails as Lean's does."""
        self.heartbeats += cost
        if self.exhausted:
            raise Exhausted(
                f"(deterministic) timeout, maximum number of heartbeats ({self.config.max_heartbeats}) has been reached"
            )

    def check_size(self, goal: Goal) -> None:
        """Fail when a goal holds a term larger than ``max_term_size`` (rewriting can grow
        terms exponentially; nothing after this may walk or print such a term)."""
        limit = self.config.max_term_size
        for t in (goal.target, *(h.ty for h in goal.hyps)):
            if not isinstance(t, str) and size_exceeds(t, limit):
                raise TacticError(
                    f"the resulting term is too large for the embedded checker (more than {limit} nodes)"
                )


BasicTactic = Callable[["Engine", Goal, Tac], list[Goal]]
GoalListTactic = Callable[["Engine", list[Goal], Tac], list[Goal]]


@dataclass(frozen=True)
class TacticTable:
    """The tactics an engine runs (tactics/table.py): on the main goal, and on the goal list."""

    basic: Mapping[str, BasicTactic]
    goal_list: Mapping[str, GoalListTactic]


def register(*names: str) -> Callable[[BasicTactic], BasicTactic]:
    """Decorator: name the tactics a function implements; it registers nothing (the table in
    tactics/table.py is what runs, and a test checks that it agrees with these names)."""

    def deco(fn: BasicTactic) -> BasicTactic:
        fn.tactic_names = names  # type: ignore[attr-defined]
        return fn

    return deco


def register_goal_list(name: str) -> Callable[[GoalListTactic], GoalListTactic]:
    """Decorator: name a tactic that runs on the whole goal list (it chooses its goal)."""

    def deco(fn: GoalListTactic) -> GoalListTactic:
        fn.goal_list_tactic_names = (*getattr(fn, "goal_list_tactic_names", ()), name)  # type: ignore[attr-defined]
        return fn

    return deco


def render(goals: list[Goal]) -> str:
    """Goals as Lean prints them in messages."""
    return render_goals([to_wire(g) for g in goals])


class Engine:
    """Runs parsed tactics over goal lists."""

    def __init__(self, ctx: TacticContext, tactics: TacticTable) -> None:
        self.ctx = ctx
        self.tactics = tactics

    def fresh(self) -> int:
        """A fresh unique id."""
        return self.ctx.fresh()

    @property
    def kernel_on(self) -> bool:
        """Whether proofs are built for the kernel (mode off skips building them too)."""
        return self.ctx.config.kernel != "off"

    def justify(self, goal: Goal, proof: kernel.Proof) -> None:
        """Record the kernel proof of ``goal`` (its holes name the goals that replace it)."""
        self.ctx.steps[goal.uid] = Step(goal, proof)

    def run_text(self, text: str, goal: Goal) -> list[Goal]:
        """Parse and run a nested tactic block (``by ...``) on one goal."""
        # each level re-enters the parser and the elaborator: bound it before Python's stack
        if self.ctx.nesting >= self.ctx.config.max_depth // 2:
            raise TacticError("maximum recursion depth has been reached")
        try:
            tac = parse_tactic(text, self.ctx.limits)
        except ParseError as exc:
            raise TacticError(f"parse error in tactic block: {exc.message}") from exc
        self.ctx.nesting += 1
        try:
            return self.run(tac, [goal])
        finally:
            self.ctx.nesting -= 1

    def run(self, tac: Tac, goals: list[Goal]) -> list[Goal]:
        """Run ``tac`` with ``goals`` (main goal first); returns the goals after it."""
        self.ctx.check_time()
        name, d = tac.name, tac.data
        if name == "seq":
            for item in d["items"]:
                goals = self.run(item, goals)
            return goals
        if name == "then":
            main, rest = self._main(goals)
            out: list[Goal] = []
            for g in self.run(d["first"], [main]):
                out.extend(self.run(d["rest"], [g]))
            return out + rest
        if name == "focus":
            main, rest = self._main(goals)
            left = self.run(d["body"], [main])
            if left:
                raise TacticError("unsolved goals\n" + render(left))
            return rest
        if name == "all_goals":
            out = []
            for g in goals:
                out.extend(self.run(d["body"], [g]))
            return out
        if name == "any_goals":
            out, ok = [], False
            for g in goals:
                try:
                    out.extend(self.run(d["body"], [g]))
                    ok = True
                except Exhausted:
                    raise
                except TacticError:
                    out.append(g)
            if not ok:
                raise TacticError("any_goals failed on every goal")
            return out
        if name == "try":
            try:
                return self.run(d["body"], goals)
            except Exhausted:
                raise
            except TacticError:
                return goals
        if name == "first":
            errors = []
            for alt in d["alts"]:
                try:
                    return self.run(alt, goals)
                except Exhausted:
                    raise
                except TacticError as exc:
                    errors.append(str(exc))
            raise TacticError(errors[-1] if errors else "first failed")
        if name == "repeat":
            for _ in range(self.ctx.config.max_repeat):
                try:
                    new = self.run(d["body"], goals)
                except Exhausted:
                    raise
                except TacticError:
                    break
                if new == goals:
                    break
                goals = new
            return goals
        if name in ("skip",):
            return goals
        if name == "done":
            if goals:
                raise TacticError("unsolved goals\n" + render(goals))
            return goals
        on_goals = self.tactics.goal_list.get(name)
        if on_goals is not None:  # a tactic that picks its goal from the list (case)
            self.ctx.beat(1 + len(goals) // 8)
            return on_goals(self, goals, tac)
        fn = self.tactics.basic.get(name)
        if fn is None:
            raise TacticError(
                f"tactic '{name}' is not supported by the embedded checker"
            )
        main, rest = self._main(goals)
        # combinators can multiply work (`repeat`, `<;>` over split goals): every basic
        # step costs, more with a bigger context or goal list, like Lean's heartbeats
        self.ctx.beat(1 + (len(goals) + len(main.hyps)) // 8)
        new = fn(self, main, tac)
        for g in new:
            self.ctx.check_size(g)
        return new + rest

    @staticmethod
    def _main(goals: list[Goal]) -> tuple[Goal, list[Goal]]:
        if not goals:
            raise TacticError("no goals to be proved")
        return goals[0], goals[1:]
