"""frontend.process for the embedded checker: a snippet of Lean commands, one compilation unit each.

It follows Pantograph (PANTOGRAPH.md, "frontend.process"). The text is cut into commands (a
command starts at a line with no indentation; indented lines continue it); each gets a unit
with its UTF-8 byte range ``[start, end)`` (trailing blank lines and comments included, so the
units tile the text) and Lean-style messages. What the fragment does with a command:

- ``open``, ``set_option``, ``namespace``, ``section``, ``end``, ``universe``,
  ``noncomputable section`` and the prefixes ``open ... in`` / ``set_option ... in``: accepted,
  no effect (nothing in the fragment depends on a namespace or an option);
- ``import``: refused with Lean's message, except with ``readHeader``, where the leading imports
  are the header, which is no unit (as in Pantograph), and any module is accepted;
- ``theorem`` / ``lemma`` / ``example``: the signature is elaborated as goal.start elaborates it,
  and its ∀-closure is the root of the proof (so the kernel's final check covers the whole
  statement); every binder is introduced under its own name, and the proof runs tactic by
  tactic through goal.tactic (a term proof as ``exact (term)``). A ``sorry`` standing as a
  tactic of the block leaves its goal open: with ``sorrys``, those goals form the unit's goal
  state. Any other ``sorry`` (inside a ``have``, a term) is a sorry as in goal.tactic;
- anything else (``def``, ``axiom``, ``instance``, ``#eval``, ...): refused as outside the
  fragment. The checker keeps no environment, and such a command could change what a later
  theorem means.

Refusals are messages of the unit, never error answers; only the arguments (``arguments``), an
unreadable ``fileName`` (``io``) and the ``timeout`` option (``internal`` interrupt) answer
with errors. A declared theorem is not visible to later commands: each proof uses the
fragment's own lemmas only, so no theorem of the snippet can lend a later one its ``sorry``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Protocol

from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.tactics.table import TABLE
from burnqed.embedded.tactics.interpreter import Engine, TacticContext, render
from burnqed.embedded.elab.lemmas import INSTANCE_LEMMAS, LEMMAS, NO_INSTANCE, OPENED
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.repl.answers import INTERRUPT, error_answer
from burnqed.embedded.repl.refusal import Refusal
from burnqed.embedded.repl.snippet import (
    COMMAND_WORDS,
    Source,
    command_starts,
    first_line,
    first_word,
    is_header_command,
)
from burnqed.embedded.elab.state import Goal, ProofState, to_wire
from burnqed.embedded.syntax.parser import Limits, ParseError, parse_statement
from burnqed.embedded.syntax.tactic_parser import parse_tactic
from burnqed.embedded.tactics.basic import intro_one
from burnqed.embedded.elab.expr import Term
from burnqed.lean.errors import OUTSIDE_FRAGMENT
from burnqed.lean.protocol import (
    CompilationUnit,
    FrontendProcess,
    FrontendProcessResult,
    GoalTactic,
    GoalTacticResult,
    Message,
    ReplErrorAnswer,
)
from burnqed.lean.statement import (
    HEADER_COMMANDS,
    NAME_PATTERN,
    StatementError,
    has_sorry,
    split_decl,
    split_tactic_block,
    strip_comments,
    top_level,
)

__all__ = ["Host", "process"]



class Host(Protocol):
    """What a snippet needs of the checker answering it (checker.Checker)."""

    states: dict[int, ProofState]
    timeout_ms: int
    automatic_mode: bool
    limits: Limits
    config: EmbeddedConfig

    def fresh(self) -> int: ...
    def new_state(self, state: ProofState) -> int: ...
    def elaborate(self, text: str) -> Term | Refusal: ...
    def start_state(self, target: Term) -> tuple[int, Goal] | ReplErrorAnswer: ...
    def successor(
        self, state: ProofState, acting: list[Goal], new_goals: list[Goal], ctx: TacticContext
    ) -> ProofState | str: ...
    def goal_tactic(self, req: GoalTactic) -> GoalTacticResult | ReplErrorAnswer: ...


_ANONYMOUS = "<anonymous>"  # Pantograph's file name for a snippet given as text
_DECL_KEYWORDS = ("theorem", "lemma", "example")
# modifiers that leave a theorem's statement and proof as they are
_MODIFIERS = re.compile(r"(?:@\[[^\]\n]*\]\s*|(?:private|protected|nonrec|noncomputable)\s+)*")
# a tactic of the block that is only `sorry` (or `admit`, or a bullet `· sorry`)
_SORRY_TACTIC = re.compile(r"(?:[·.]\s*)?(sorry|admit)\s*")
_REPL_PREFIX = re.compile(r"^<Pantograph>:\d+:\d+: ")
_IN_TOKEN = re.compile(r"\sin(?=\s|$)")


class _Interrupted(Exception):
    """The request ran past the ``timeout`` option."""


class _TacticFailed(Exception):
    """A tactic of a proof failed: the message and its offset in the command."""

    def __init__(self, data: str, at: int) -> None:
        super().__init__(data)
        self.data = data
        self.at = at


@dataclass
class _Unit:
    """What one command produced."""

    messages: list[Message] = field(default_factory=list)
    goal_state_id: int | None = None
    goals: list[Goal] | None = None
    sorry_ranges: list[tuple[int, int]] | None = None
    new_constants: list[str] = field(default_factory=list)


class _Run:
    """One frontend.process request over a snippet."""

    def __init__(self, checker: Host, req: FrontendProcess, src: Source) -> None:
        self.checker = checker
        self.req = req
        self.src = src
        self.namespaces: list[str] = []
        self.declared: set[str] = set()
        self.created: set[int] = set()  # every state this request made
        self.kept: set[int] = set()  # the units' goal states
        self.deadline = (
            time.monotonic() + checker.timeout_ms / 1000 if checker.timeout_ms > 0 else None
        )

    # ------------------------------------------------------------------ the snippet
    def units(self) -> list[CompilationUnit]:
        """One unit per command (the header, with readHeader, is none)."""
        token = OPENED.set(())  # `open` commands last to the end of this file
        try:
            return self._units()
        finally:
            OPENED.reset(token)

    def _units(self) -> list[CompilationUnit]:
        src = self.src
        starts = command_starts(src, 0)
        base = 0
        in_header = self.req.read_header
        units: list[CompilationUnit] = []
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(src.text)
            if in_header and is_header_command(src.clean[start:end]):
                base = end
                continue
            if in_header:
                base, in_header = start, False
            unit = self.command(start, end)
            units.append(self._wire(unit, base, end))
            base = end
        if in_header:  # only imports, or nothing: Lean's header parser eats the blank rest
            base = len(src.text)
        if not units and base < len(src.text):
            units.append(self._wire(_Unit(), base, len(src.text)))  # blank lines, comments
        return units

    def _wire(self, unit: _Unit, start: int, end: int) -> CompilationUnit:
        src = self.src
        return CompilationUnit(
            boundary=(src.byte(start), src.byte(end)),
            messages=unit.messages,
            goal_state_id=unit.goal_state_id,
            goals=[to_wire(g) for g in unit.goals] if unit.goals is not None else None,
            goal_src_boundaries=[(src.byte(a), src.byte(b)) for a, b in unit.sorry_ranges]
            if unit.sorry_ranges is not None
            else None,
            new_constants=unit.new_constants if self.req.new_constants else None,
        )

    def command(self, start: int, end: int) -> _Unit:
        """Elaborate the command ``text[start:end]``."""
        src = self.src
        seg = src.clean[start:end]
        start += len(seg) - len(seg.lstrip())
        seg = src.clean[start:end]
        words = seg.split()
        word = words[0] if words else ""

        def error(data: str) -> _Unit:
            return _Unit([src.message("error", data, start)])

        if word in ("open", "set_option") and "in" in words:
            # `open X in CMD`, `set_option o v in CMD`: CMD under a scope that changes nothing here
            match = _IN_TOKEN.search(seg)
            rest = start + match.end() if match else end
            if not src.clean[rest:end].strip():
                return error("unexpected end of input; expected a command after 'in'")
            return self.command(rest, end)
        if word == "import":
            return error("invalid 'import' command, it must be used in the beginning of the file")
        line = first_line(src.clean, start)
        scope = next(
            (cmd for cmd in HEADER_COMMANDS if line == cmd or line.startswith(cmd + " ")), None
        )
        if scope is not None:
            args = seg[len(scope) :].split()
            if any(w in COMMAND_WORDS or w.startswith(("#", "@[")) for w in args):
                return error(
                    f"{OUTSIDE_FRAGMENT}: the embedded checker reads one command per line; "
                    f"put what follows `{scope}` on a line of its own"
                )
            self._scope(scope, args)
            return _Unit()
        modifiers = _MODIFIERS.match(src.clean, start, end)
        after = modifiers.end() if modifiers else start
        if first_word(src.clean[after:end]) in _DECL_KEYWORDS:
            return self.declaration(after, end)
        return error(
            f"{OUTSIDE_FRAGMENT}: the embedded checker does not support the command `{word[:40]}` "
            "(it checks theorems, lemmas and examples under open / set_option / namespace lines)"
        )

    def _scope(self, scope: str, args: list[str]) -> None:
        """Follow namespaces and sections, for the names of declarations."""
        if scope == "open":
            OPENED.set(OPENED.get() + tuple(a for a in args if a.isidentifier()))
        elif scope == "namespace" and args:
            self.namespaces.append(args[0])
        elif scope in ("section", "noncomputable section"):
            self.namespaces.append("")
        elif scope == "end" and self.namespaces:
            self.namespaces.pop()

    # ------------------------------------------------------------------ a declaration
    def declaration(self, start: int, end: int) -> _Unit:
        """A theorem, lemma or example at ``clean[start:end]`` (the keyword at ``start``)."""
        src = self.src
        seg = src.clean[start:end]
        unit = _Unit()

        def error(data: str, rel: int) -> _Unit:
            unit.messages.append(src.message("error", data, start + rel))
            return unit

        try:
            decl, proof = split_decl(seg)
        except StatementError as exc:
            return error(str(exc), 0)
        rel = len(decl.keyword)
        name_at = 0
        if decl.keyword != "example":
            rel += len(seg[rel:]) - len(seg[rel:].lstrip())
            name_at = rel
            match = NAME_PATTERN.match(seg, rel)
            rel = match.end() if match else rel
        sig = rel
        assign = top_level(seg, ":=", sig)
        if proof is None or assign < 0:
            return error("unexpected end of input; expected ':='", len(seg.rstrip()))
        colon = top_level(seg[:assign], ":", sig)
        base = sig if decl.binders else colon + 1
        text = seg[base:assign]
        if has_sorry(text):
            return error("the embedded checker refuses `sorry` inside a statement", base)
        full = ".".join([*filter(None, self.namespaces), decl.name]) if decl.name else None
        if full is not None and (full in self.declared or full in LEMMAS or full in INSTANCE_LEMMAS or full in NO_INSTANCE):
            return error(f"'{full}' has already been declared", name_at)
        term = self.checker.elaborate(text)
        if isinstance(term, Refusal):
            return error(term.message, base + term.pos)
        started = self.checker.start_state(term)
        if isinstance(started, ReplErrorAnswer):
            return error(_REPL_PREFIX.sub("", started.desc), base)
        sid, root = started
        self.created.add(sid)
        if full is not None:
            self.declared.add(full)
            unit.new_constants.append(full)
        names = self._binder_names(text, colon - base) if decl.binders else []
        sid = self._intro(sid, root, names)
        if isinstance(sid, str):
            return error(sid, base)
        body = assign + 2 + len(seg[assign + 2 :]) - len(seg[assign + 2 :].lstrip())
        tactics = self._proof(seg, body)
        if not tactics:
            return error("unexpected end of input; the proof after `:= by` is empty", len(seg.rstrip()))
        try:
            state, sorries = self._run(sid, tactics)
        except _TacticFailed as exc:
            return error(exc.data, exc.at)
        open_sorries = {g.uid for g, _ in sorries}
        if state.goals or state.open_goals - open_sorries:
            return error("unsolved goals\n" + render(list(state.goals)), body)
        if sorries or state.has_sorry:
            unit.messages.append(src.message("warning", "declaration uses 'sorry'", start + name_at))
        if sorries and self.req.sorrys:
            goals = tuple(g for g, _ in sorries)
            kept = self.checker.new_state(
                ProofState(goals, state.open_goals, state.has_sorry, root=state.root, steps=state.steps)
            )
            self.created.add(kept)
            self.kept.add(kept)
            unit.goal_state_id, unit.goals = kept, list(goals)
            unit.sorry_ranges = [(start + at, start + at + 5) for _, at in sorries]
        return unit

    def _binder_names(self, text: str, colon: int) -> list[str]:
        """The names of the theorem's binders, in order (the binders end before ``colon``)."""
        node = parse_statement(text, self.checker.limits)  # it elaborated: it parses
        names: list[str] = []
        while node.kind == "binder" and node.pos < colon:
            _quantifier, groups = node.value
            names.extend(name for name, _ty, _implicit in groups)
            node = node.args[0]
        return names

    def _intro(self, sid: int, root: Goal, names: list[str]) -> int | str:
        """The state after introducing every binder of the root under its own name."""
        ctx = TacticContext(self.checker.fresh, self.checker.config)
        engine = Engine(ctx, TABLE)
        goal = root
        try:
            for name in names:
                goal = intro_one(engine, goal, name)
        except TacticError as exc:
            return str(exc)
        state = self.checker.states[sid]
        nxt = self.checker.successor(state, list(state.goals[:1]), [goal], ctx)
        if isinstance(nxt, str):
            return nxt
        sid = self.checker.new_state(nxt)
        self.created.add(sid)
        return sid

    @staticmethod
    def _proof(seg: str, body: int) -> list[tuple[str, int]]:
        """The proof as tactics with their offsets in ``seg``: a ``by`` block's tactics, or
        ``exact (term)`` for a term (``sorry`` stays itself)."""
        text = seg[body:].rstrip()
        if not (text.startswith("by") and (len(text) == 2 or text[2].isspace())):
            if not text:
                return []
            return [(text if text in ("sorry", "admit") else f"exact ({text})", body)]
        tactics: list[tuple[str, int]] = []
        first_end = seg.find("\n", body)
        first_end = len(seg) if first_end < 0 else first_end
        first = seg[body + 2 : first_end]
        if first.strip():
            tactics.append((first.strip(), body + 2 + len(first) - len(first.lstrip())))
        cursor = first_end
        for tactic in split_tactic_block(seg[first_end:]):
            head = tactic.splitlines()[0]
            at = seg.find(head, cursor)
            tactics.append((tactic, at))
            cursor = at + len(head)
        return tactics

    def _run(
        self, sid: int, tactics: list[tuple[str, int]]
    ) -> tuple[ProofState, list[tuple[Goal, int]]]:
        """Run the tactics from state ``sid``: the last state and the goals left to a
        ``sorry`` tactic (with the sorry's offset); _TacticFailed at the first error."""
        checker = self.checker
        sorries: list[tuple[Goal, int]] = []
        for tactic, at in tactics:
            state = checker.states[sid]
            sorry = _SORRY_TACTIC.fullmatch(tactic)
            if sorry is not None:
                if not state.goals:
                    raise _TacticFailed("no goals to be proved", at)
                rest = ProofState(
                    state.goals[1:], state.open_goals, state.has_sorry, root=state.root, steps=state.steps
                )
                sid = checker.new_state(rest)
                self.created.add(sid)
                sorries.append((state.goals[0], at + sorry.start(1)))
                continue
            if not state.goals:
                # Lean runs a tactic on an empty goal list: combinators that loop over the
                # goals succeed (`all_goals`, `try`, `repeat`, `skip`, `done`), a basic
                # tactic fails on getMainGoal (lean4 src/Lean/Elab/Tactic/BuiltinTactic.lean
                # evalAllGoals / evalAnyGoals); the Pantograph goal.tactic refuses instead
                why = self._on_no_goals(tactic)
                if why is None:
                    continue
                raise _TacticFailed(why, at)
            answer = self._tactic(sid, tactic)
            if isinstance(answer, ReplErrorAnswer):
                why = answer.desc
            elif answer.next_state_id is not None:
                sid = answer.next_state_id
                self.created.add(sid)
                continue
            else:
                why = answer.parse_error or "\n".join(m.data for m in answer.error_messages)
            raise _TacticFailed(_REPL_PREFIX.sub("", why or "the tactic failed"), at)
        return checker.states[sid], sorries

    def _on_no_goals(self, tactic: str) -> str | None:
        """Run ``tactic`` on no goals with Lean's combinator semantics: None when it
        succeeds (leaving no goals), else the error."""
        checker = self.checker
        try:
            tac = parse_tactic(tactic, checker.limits)
        except ParseError as exc:
            return exc.message
        ctx = TacticContext(checker.fresh, checker.config)
        try:
            left = Engine(ctx, TABLE).run(tac, [])
        except TacticError as exc:
            return str(exc)
        except RecursionError:
            return "maximum recursion depth has been reached"
        return None if not left else "no goals to be proved"

    def _tactic(self, sid: int, tactic: str) -> GoalTacticResult | ReplErrorAnswer:
        """goal.tactic on the first goal, within what is left of the request's timeout."""
        checker = self.checker
        saved = checker.timeout_ms
        if self.deadline is not None:
            left = int((self.deadline - time.monotonic()) * 1000)
            if left <= 0:
                raise _Interrupted
            checker.timeout_ms = left
        try:
            answer = checker.goal_tactic(GoalTactic(state_id=sid, tactic=tactic))
        finally:
            checker.timeout_ms = saved
        if isinstance(answer, ReplErrorAnswer) and answer.is_interrupt:
            raise _Interrupted
        return answer


def process(checker: Host, req: FrontendProcess) -> FrontendProcessResult | ReplErrorAnswer:
    """Answer frontend.process for ``checker`` (see the module docstring)."""
    if (req.file is None) == (req.file_name is None):
        return error_answer("arguments", "Exactly one of {fileName, file} must be supplied")
    if req.file is not None:
        text, name = req.file, _ANONYMOUS
    else:
        name = req.file_name or ""
        try:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return error_answer("io", f"{reason.lower()}\n  file: {name}")
    try:
        clean = strip_comments(text)
    except StatementError as exc:  # an unterminated /- comment, or a reading burnqed.lean.lexical refuses
        src = Source(text, text, name)
        at = getattr(exc, "pos", 0)
        unit = CompilationUnit(
            boundary=(0, src.byte(len(text))), messages=[src.message("error", str(exc), at)]
        )
        return FrontendProcessResult(units=[unit])
    run = _Run(checker, req, Source(text, clean, name))
    automatic = checker.automatic_mode
    checker.automatic_mode = True  # a file's tactic blocks never leave goals dormant
    try:
        units = run.units()
    except _Interrupted:
        for sid in run.created:
            checker.states.pop(sid, None)
        return INTERRUPT
    finally:
        checker.automatic_mode = automatic
    for sid in run.created - run.kept:
        checker.states.pop(sid, None)
    return FrontendProcessResult(units=units)

