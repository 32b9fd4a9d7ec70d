"""The embedded checker in-process: one ``Checker`` answers Pantograph requests, given and
answered as the protocol models of burnqed.lean.protocol.

Use it directly to verify many proofs fast, without a child process::

    from burnqed.embedded import Checker
    from burnqed.lean.protocol import GoalStart, GoalTactic
    c = Checker()
    s = c.goal_start(GoalStart(expr="∀ (n : Nat), n + 0 = n"))        # GoalStartResult
    r = c.run(GoalTactic(state_id=s.state_id, tactic="intro n"))       # GoalTacticResult
    # r.goals[0].target.pp == "n + 0 = n"
    c.check_proof("∀ (n : Nat), n + 0 = n", ["intro n", "rfl"])  # -> ProofCheck(ok=True, ...)

A request the REPL refuses answers the protocol's error answer (``ReplErrorAnswer``), never
an exception. ``python -m burnqed.embedded`` wraps the same object in the JSON-lines loop
(repl/server.py), the only place where requests and answers are JSON.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from burnqed.embedded import kernel
from burnqed.embedded.repl.answers import INTERRUPT, error_answer, tactic_message
from burnqed.embedded.bridge.translate import (
    KernelReject,
    Step,
    check_steps,
    reachable_complete,
    sequent,
)
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.repl.deadline import Deadline
from burnqed.embedded.elab.elaborate import ElabError, elab_prop, position
from burnqed.embedded.tactics.table import TABLE
from burnqed.embedded.tactics.interpreter import Engine, Exhausted, Interrupted, TacticContext
from burnqed.embedded.repl.frontend import process
from burnqed.embedded.elab.lemmas import copyable, lemma_instances
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.repl.refusal import FILE_NAME, Refusal, refusal
from burnqed.embedded.repl.verify import ProofCheck, check_proof
from burnqed.embedded.elab.state import Goal, ProofState, to_wire
from burnqed.embedded.syntax.parser import Limits, ParseError, parse_statement
from burnqed.embedded.syntax.tactic_parser import parse_tactic
from burnqed.embedded.elab.expr import Term, pp
from burnqed.lean.statement import is_binder_form
from burnqed.lean.protocol import (
    Answer,
    ExprEcho,
    ExprEchoResult,
    Expression,
    FrontendProcess,
    FrontendProcessResult,
    GoalDelete,
    GoalDeleteResult,
    GoalPrint,
    GoalPrintResult,
    GoalStart,
    GoalStartResult,
    GoalTactic,
    GoalTacticResult,
    OptionsPrint,
    OptionsPrintResult,
    OptionsSet,
    OptionsSetResult,
    ReplErrorAnswer,
    Request,
    Reset,
    ResetResult,
    Stat,
    StatResult,
)

__all__ = ["Checker", "KernelStats"]

@dataclass
class KernelStats:
    """What the independent kernel did in this process: steps checked, elaborator
    acceptances it rejected, and the time it spent."""

    checks: int = 0
    rejected: int = 0
    seconds: float = 0.0


class Checker:
    """Answers Pantograph REPL requests (protocol models) for the embedded Lean fragment."""

    def __init__(self, config: EmbeddedConfig | None = None) -> None:
        self.config = config or EmbeddedConfig()
        self.limits = Limits(
            self.config.max_input_chars,
            self.config.max_depth,
            self.config.max_numeral_digits,
        )
        self.states: dict[int, ProofState] = {}
        self.next_state = 0
        self._uniq = itertools.count(1)
        self.timeout_ms = 0
        self.automatic_mode = True
        self.kernel_stats = KernelStats()

    def fresh(self) -> int:
        """A fresh ``_uniq`` number."""
        return next(self._uniq)

    # ---------------------------------------------------------------- entry point
    def run(self, request: Request) -> Answer:
        """Answer one request model with its answer model, or the REPL's error answer (the
        per-command methods below give the precise answer type)."""
        handler = _COMMANDS.get(type(request))
        if handler is None:
            return error_answer("command", f"Unknown command {request.cmd}")
        return handler(self, request)

    # ---------------------------------------------------------------- convenience for data generation
    def check_proof(self, statement: str, tactics: list[str], *, truncate: bool = False) -> ProofCheck:
        """Run a tactic list from a fresh start; ok when no goal, sorry or mvar is left
        (``verify.check_proof`` on this checker, the one implementation)."""
        return check_proof(self, statement, tactics, truncate=truncate)

    # ---------------------------------------------------------------- commands
    def new_state(self, state: ProofState) -> int:
        """Register a state under the next id."""
        sid = self.next_state
        self.next_state += 1
        self.states[sid] = state
        return sid

    def elaborate(self, text: str) -> Term | Refusal:
        """The proposition ``text`` elaborates to (a term, or binders ``(a : ℕ) ... : P`` whose
        ∀-closure it is), or why it is refused."""
        try:
            return elab_prop(parse_statement(text, self.limits), {})
        except ParseError as exc:
            return refusal("parsing", exc, text)
        except ElabError as exc:
            return refusal("elab", exc, text)
        except RecursionError:  # last resort: the parser bounds nesting before Python's stack
            return Refusal("parsing", 0, "maximum nesting depth exceeded")

    def _statement(self, text: str) -> Term | ReplErrorAnswer:
        """The proposition ``text`` elaborates to, or the REPL's parsing / elab error answer."""
        term = self.elaborate(text)
        if isinstance(term, Refusal):
            return error_answer(term.error, term.desc(text))
        return term

    def start_state(self, target: Term) -> tuple[int, Goal] | ReplErrorAnswer:
        """A new state proving ``target``: its id and root goal, or the elab error answer when
        the kernel cannot read the statement."""
        goal = Goal(self.fresh(), (), target, None)
        try:  # the kernel reads the statement itself and sort-checks it
            if kernel.sort_of(sequent(goal), sequent(goal).target) != "Prop":
                raise kernel.KernelError("not a proposition")
        except (KernelReject, kernel.KernelError) as exc:
            return error_answer("elab", f"{FILE_NAME}:1:0: the kernel cannot read this statement: {exc}")
        sid = self.new_state(ProofState((goal,), frozenset({goal.uid}), False, root=goal))
        return sid, goal

    def goal_start(self, req: GoalStart) -> GoalStartResult | ReplErrorAnswer:
        """goal.start: from an expression or a built-in lemma."""
        if (req.expr is None) == (req.copy_from is None):
            return error_answer("arguments", "Exactly one of {expr, copyFrom} must be supplied")
        if req.copy_from is not None:
            if not copyable(req.copy_from):
                return error_answer("index", f"Symbol not found: {req.copy_from}")
            target = lemma_instances(req.copy_from)[0]
        else:
            if is_binder_form(req.expr or ""):  # parseElabType reads a term: binders first are none
                return error_answer("parsing", f"{FILE_NAME}:1:1: unexpected token ':'; expected term")
            target = self._statement(req.expr or "")
            if isinstance(target, ReplErrorAnswer):
                return target
        started = self.start_state(target)
        if isinstance(started, ReplErrorAnswer):
            return started
        sid, root = started
        return GoalStartResult(state_id=sid, root=f"_uniq.{root.uid}")

    def goal_tactic(self, req: GoalTactic) -> GoalTacticResult | ReplErrorAnswer:
        """goal.tactic: run a tactic on one goal of a state."""
        state = self.states.get(req.state_id)
        if state is None:
            return error_answer("index", f"Invalid state index {req.state_id}")
        given = [
            f
            for f in ("tactic", "mode", "expr", "have", "let", "draft")
            if getattr(req, f) is not None
        ]
        if len(given) != 1:
            return error_answer(
                "operation",
                "Exactly one of {tactic, mode, expr, have, let, draft} must be supplied",
            )
        if req.mode is not None:
            if req.mode not in ("tactic", "conv", "calc"):
                return error_answer("operation", f"Invalid mode {req.mode}")
            return error_answer(
                "operation", f"mode {req.mode} is not supported by the embedded checker"
            )
        if req.draft is not None:
            return error_answer("operation", "draft is not supported by the embedded checker")
        if not state.goals:
            return error_answer("exception", "no goals to be proved")
        goal_id = req.goal_id or 0
        if goal_id < 0 or goal_id >= len(state.goals):
            return error_answer("index", f"Invalid goal index {goal_id}")
        # the goal site (Repl.lean goal_tactic, Goal.lean Site.runTacticM): automaticMode runs the
        # tactic on the goal list, goal_id first (.unfocus / .prefer); else on that goal alone (.focus)
        others = [g for i, g in enumerate(state.goals) if i != goal_id] if self.automatic_mode else []
        acting = [state.goals[goal_id], *others]
        if req.tactic is not None:
            text = req.tactic
        elif req.expr is not None:
            text = f"refine {req.expr}"
        else:
            text = f"have {req.binder_name or 'this'} : {req.have if req.have is not None else req.let}"
        try:
            tac = parse_tactic(text, self.limits)
        except ParseError as exc:
            line, col = position(text, exc.pos)
            return GoalTacticResult(
                parse_error=f"{FILE_NAME}:{line}:{col}: {exc.message}",
                has_sorry=False,
                has_unsafe=False,
            )
        except RecursionError:
            return GoalTacticResult(
                parse_error=f"{FILE_NAME}:1:0: maximum nesting depth exceeded",
                has_sorry=False,
                has_unsafe=False,
            )
        ctx = TacticContext(self.fresh, self.config)
        try:
            with Deadline(ctx, self.timeout_ms):
                new_goals = Engine(ctx, TABLE).run(tac, acting)
            if ctx.exhausted:  # a tactic that caught the exhaustion must not make it a success
                raise Exhausted(
                    f"(deterministic) timeout, maximum number of heartbeats ({self.config.max_heartbeats}) has been reached"
                )
        except Interrupted:
            return INTERRUPT
        except TacticError as exc:
            return GoalTacticResult(
                messages=[tactic_message("error", str(exc))],
                has_sorry=False,
                has_unsafe=False,
            )
        except RecursionError:
            return GoalTacticResult(
                messages=[tactic_message("error", "maximum recursion depth has been reached")],
                has_sorry=False,
                has_unsafe=False,
            )
        successor = self.successor(state, acting, new_goals, ctx)
        if isinstance(successor, str):
            return GoalTacticResult(
                messages=[tactic_message("error", successor)],
                has_sorry=False,
                has_unsafe=False,
            )
        sid = self.new_state(successor)
        messages = (
            [tactic_message("warning", "declaration uses 'sorry'")]
            if ctx.used_sorry
            else []
        )
        return GoalTacticResult(
            next_state_id=sid,
            goals=[to_wire(g) for g in successor.goals],
            messages=messages,
            has_sorry=ctx.used_sorry,
            has_unsafe=False,
        )

    def successor(
        self, state: ProofState, acting: list[Goal], new_goals: list[Goal], ctx: TacticContext
    ) -> ProofState | str:
        """The state after the ``acting`` goals of ``state`` became ``new_goals`` (the steps in
        ``ctx`` kernel-checked), or the error text of the kernel's refusal."""
        verdict = self._kernel_check(state, acting, new_goals, ctx)
        if isinstance(verdict, str):
            return verdict
        steps, kernel_sorry = verdict
        ctx.used_sorry = ctx.used_sorry or kernel_sorry
        acted = {g.uid for g in acting}
        others = [g for g in state.goals if g.uid not in acted]
        visible = tuple(new_goals) + (tuple(others) if self.automatic_mode else ())
        open_goals = (state.open_goals - acted) | {g.uid for g in new_goals}
        return ProofState(
            visible,
            frozenset(open_goals),
            state.has_sorry or ctx.used_sorry,
            root=state.root,
            steps=steps,
        )

    def _kernel_check(
        self, state: ProofState, acting: list[Goal], new_goals: list[Goal], ctx: TacticContext
    ) -> tuple[Mapping[int, Step], bool] | str:
        """Kernel-check the steps of one request from each acting goal: the new state's proof
        steps and whether the kernel met a sorry, or (mode enforce) the refusal's text."""
        mode = self.config.kernel
        if mode == "off":
            return state.steps, False
        stats = self.kernel_stats
        open_uids = {g.uid for g in new_goals}
        try:
            steps, sorry = dict(state.steps), False
            for goal in acting:
                res = check_steps(goal, ctx.steps, {g.uid: g for g in new_goals})
                stats.checks += res.checked
                stats.seconds += res.seconds
                steps.update(res.steps)
                sorry = sorry or res.sorry
            closed = not ((state.open_goals - {g.uid for g in acting}) | open_uids)
            if closed and state.root is not None and not reachable_complete(state.root, steps):
                raise KernelReject("the proof tree is incomplete")
            return steps, sorry
        except KernelReject as exc:
            stats.rejected += 1
            if mode == "enforce":
                return f"kernel: the embedded checker's independent kernel refused this step: {exc}"
            return state.steps, False

    def frontend_process(self, req: FrontendProcess) -> FrontendProcessResult | ReplErrorAnswer:
        """frontend.process: a snippet of commands, one compilation unit each (repl/frontend.py)."""
        return process(self, req)

    def goal_delete(self, req: GoalDelete) -> GoalDeleteResult:
        """goal.delete: forget states (unknown ids are fine)."""
        for sid in req.state_ids:
            self.states.pop(sid, None)
        return GoalDeleteResult()

    def goal_print(self, req: GoalPrint) -> GoalPrintResult | ReplErrorAnswer:
        """goal.print: root flags, and the goals / root when asked."""
        state = self.states.get(req.state_id)
        if state is None:
            return error_answer("index", f"Invalid state index {req.state_id}")
        root = None
        if req.root_expr:
            root = Expression(
                pp="sorry"
                if state.has_sorry and not state.open_goals
                else "⋯"
                if not state.open_goals
                else "?_"
            )
        return GoalPrintResult(
            root=root,
            parent_exprs=[] if req.parent_exprs else None,
            goals=[to_wire(g) for g in state.goals] if req.goals else [],
            # Pantograph answers {} for an extra metavariable it cannot print
            extra_mvars=[Expression() for _ in req.extra_mvars or []],
            root_has_sorry=state.has_sorry,
            root_has_unsafe=False,
            root_has_mvar=bool(state.open_goals),
        )

    def options_set(self, req: OptionsSet) -> OptionsSetResult:
        """options.set: timeout (ms, 0 = off) and automaticMode."""
        if req.timeout is not None:
            self.timeout_ms = max(0, req.timeout)
        if req.automatic_mode is not None:
            self.automatic_mode = req.automatic_mode
        return OptionsSetResult()

    def options_print(self, req: OptionsPrint | None = None) -> OptionsPrintResult:
        """options.print: the options this checker honours (the others are left out)."""
        return OptionsPrintResult(automatic_mode=self.automatic_mode, timeout=self.timeout_ms)

    def stat(self, req: Stat | None = None) -> StatResult:
        """stat: number of live goal states."""
        return StatResult(n_goals=len(self.states))

    def reset(self, req: Reset | None = None) -> ResetResult:
        """reset: drop every state; ids restart at 0."""
        n = len(self.states)
        self.states.clear()
        self.next_state = 0
        return ResetResult(n_goals=n)

    def expr_echo(self, req: ExprEcho) -> ExprEchoResult | ReplErrorAnswer:
        """expr.echo: elaborate a proposition and print it back (its type is Prop: the
        fragment has no other; ``type`` and ``levels`` are not read)."""
        term = self._statement(req.expr)
        if isinstance(term, ReplErrorAnswer):
            return term
        return ExprEchoResult(expr=Expression(pp=pp(term)), type=Expression(pp="Prop"))


_COMMANDS: dict[type[Request], Callable[[Checker, Any], Answer]] = {
    GoalStart: Checker.goal_start,
    GoalTactic: Checker.goal_tactic,
    GoalDelete: Checker.goal_delete,
    GoalPrint: Checker.goal_print,
    OptionsSet: Checker.options_set,
    OptionsPrint: Checker.options_print,
    Stat: Checker.stat,
    Reset: Checker.reset,
    ExprEcho: Checker.expr_echo,
    FrontendProcess: Checker.frontend_process,
}
