"""Pratt parser for Lean 4 term syntax of the fragment (surface syntax, untyped).

The parser knows Lean's notation precedences and produces ``Syn`` nodes that elaboration
(elab/elaborate.py) types. It accepts more than the fragment (application, projections, anonymous
constructors, ``?_``, ``by``) because proof terms in tactics use them; elaboration rejects
what a statement may not contain. Limits on input length, nesting depth and numeral size
turn hostile input into a ``ParseError`` instead of a hang.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from burnqed.embedded.syntax.lexer import KEYWORDS, NOT_NAMES, Limits, ParseError, Token, tokenize
from burnqed.embedded.syntax.parser_notation import modeq_tail
from burnqed.embedded.syntax.parser_named import named_argument

__all__ = ["KEYWORDS", "NOT_NAMES", "Limits", "ParseError", "Parser", "Syn", "Token", "parse_statement", "tokenize"]


@dataclass(frozen=True, slots=True)
class Syn:
    """A surface-syntax node (see Parser for the kinds)."""

    kind: str
    pos: int
    value: Any = None
    args: tuple[Syn, ...] = field(default_factory=tuple)


# Lean's precedences for infix operators: op -> (prec, rhs prec); left-assoc ops use prec+1 on the rhs.
_INFIX: dict[str, tuple[int, int]] = {
    "→": (25, 25),
    "↔": (20, 21),
    "∨": (30, 30),
    "∧": (35, 35),
    "=": (50, 51),
    "≠": (50, 51),
    "<": (50, 51),
    "≤": (50, 51),
    ">": (50, 51),
    "≥": (50, 51),
    "∣": (50, 51),
    "≡": (50, 51),  # Mathlib's `a ≡ b [MOD n]`: `b` then `[MOD n]` (syntax/parser_notation.py)
    "+": (65, 66),
    "-": (65, 66),
    "*": (70, 71),
    "/": (70, 71),
    "%": (70, 71),
    "^": (80, 80),
}
_NEG_PREC = 75  # `prefix:75 "-"`: a leading minus is a term of precedence 75
_NON_ASSOC = {"↔", "=", "≠", "<", "≤", ">", "≥", "∣", "≡"}
_ARG_START = {"id", "num"}
_ARG_SYMS = {"(", "⟨", "?_", "↑"}
MAX_PREC = 1024


# tactics whose syntax has a `:` of its own (a by-block holding one may contain a `:`)
_COLON_TACTICS = frozenset(
    {"have", "show", "obtain", "suffices", "let", "set", "by_cases", "rcases", "cases", "induction",
     "generalize", "interval_cases", "calc", "specialize", "exists", "use", "refine", "exact", "intro", "fun"}
)


def _projections(node: Syn, pos: int, field: Token) -> Syn:
    """``node.f``; the lexer reads ``h.2.1``'s ``2.1`` as one decimal, which Lean's parser
    reads as the field indices ``2`` then ``1`` (``fieldIdx``): one projection each."""
    parts = field.text.split(".") if field.kind == "num" else [field.text]
    for part in parts:
        node = Syn("proj", pos, part, (node,))
    return node


class Parser:
    """Pratt parser over a token list.

    Kinds of Syn: ident (value=name), num (value=int), binop (value=op, args=(a, b)),
    unop (value '¬' / '-' / '↑', args=(a,)), binder (value=(q, [(name, type Syn|None,
    implicit)]), args=(body,)), app (args=(f, a1, ...)), proj (value=field, args=(e,)),
    anon (args=items), hole (``?_``), blank (``_``), ascribe (args=(e, type)), by (value=the tactic
    text), paren (args=(e,)), modeq (value ``MOD`` / ``ZMOD``, args=(n, a, b): ``a ≡ b [MOD n]``).
    """

    def __init__(
        self,
        text: str,
        tokens: list[Token],
        limits: Limits,
        stop: frozenset[str] = frozenset(),
    ) -> None:
        self.text = text
        self.toks = tokens
        self.i = 0
        self.limits = limits
        self.depth = 0
        self.stop = (
            stop  # symbols that end a term in tactic context (e.g. ',' inside use)
        )

    # -- token helpers
    @property
    def tok(self) -> Token:
        """The current token."""
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        """The token k ahead."""
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        """Whether the current token is the symbol or keyword ``text``."""
        t = self.tok
        return t.kind in ("sym", "kw") and t.text == text

    def advance(self) -> Token:
        """Consume one token."""
        t = self.tok
        if t.kind != "eof":
            self.i += 1
        return t

    def expect(self, text: str) -> Token:
        """Consume ``text`` or raise a ParseError."""
        if not self.at(text):
            raise self.error(f"expected '{text}'")
        return self.advance()

    def error(self, message: str) -> ParseError:
        """A ParseError at the current token."""
        t = self.tok
        found = "end of input" if t.kind == "eof" else f"'{t.text}'"
        return ParseError(f"unexpected {found}; {message}", t.pos)

    def skip_nl(self) -> None:
        """Skip newline tokens (inside brackets)."""
        while self.tok.kind == "nl":
            self.i += 1

    # -- terms
    def enter(self) -> None:
        """Count one level of nesting (undo with ``leave``); too deep is a ParseError here."""
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise ParseError(f"maximum nesting depth {self.limits.max_depth} exceeded", self.tok.pos)

    def leave(self) -> None:
        """End a level of nesting opened by ``enter``."""
        self.depth -= 1

    def term(self, min_prec: int = 0) -> Syn:
        """Parse a term whose operators bind at least ``min_prec``."""
        self.enter()
        try:
            lhs = self._leading(min_prec)
            lhs_prec = MAX_PREC
            while True:
                t = self.tok
                if t.kind == "sym" and t.text in _INFIX and t.text not in self.stop:
                    prec, rprec = _INFIX[t.text]
                    if prec < min_prec:
                        break
                    if t.text in _NON_ASSOC and lhs_prec <= prec:
                        # Lean's `infix` (↔, relations) wants a left side above its own
                        # precedence: `a ↔ b ↔ c` and `a < b < c` do not parse
                        raise ParseError(f"unexpected token '{t.text}'; expected term", t.pos)
                    self.advance()
                    rhs = self.term(rprec)
                    lhs = Syn("binop", t.pos, t.text, (lhs, rhs))
                    lhs = modeq_tail(self, lhs) if t.text == "≡" else lhs
                    lhs_prec = prec
                    continue
                if (
                    t.kind == "sym"
                    and t.text == "."
                    and self.peek().kind in ("num", "id")
                    and self.peek().pos == t.pos + 1
                ):
                    self.advance()
                    f = self.advance()
                    lhs = _projections(lhs, t.pos, f)
                    continue
                if (
                    MAX_PREC >= min_prec
                    and lhs.kind in ("ident", "app", "proj", "paren")
                    and self._arg_start()
                ):
                    args = [lhs]
                    while self._arg_start():
                        args.append(self._argument())
                    if lhs.kind == "app":
                        lhs = Syn("app", lhs.pos, None, lhs.args + tuple(args[1:]))
                    else:
                        lhs = Syn("app", lhs.pos, None, tuple(args))
                    continue
                break
            return lhs
        finally:
            self.leave()

    def _arg_start(self) -> bool:
        t = self.tok
        if t.kind in _ARG_START:
            return True
        return t.kind == "sym" and t.text in _ARG_SYMS and t.text not in self.stop

    def _argument(self) -> Syn:
        node = named_argument(self, Syn) or self._leading(MAX_PREC)  # `(x := e)` first
        while (
            self.at(".")
            and self.peek().kind in ("num", "id")
            and self.peek().pos == self.tok.pos + 1
        ):
            p = self.advance().pos
            node = _projections(node, p, self.advance())
        return node

    def _leading(self, min_prec: int) -> Syn:
        t = self.tok
        if t.kind == "id":
            self.advance()
            if t.text == "_":
                return Syn("blank", t.pos)
            return Syn("ident", t.pos, t.text)
        if t.kind == "num":
            self.advance()
            if "." in t.text:
                raise ParseError(f"decimal literal '{t.text}' is not supported in this fragment", t.pos)
            if len(t.text) > self.limits.max_numeral_digits:
                raise ParseError(
                    f"numeral with more than {self.limits.max_numeral_digits} digits",
                    t.pos,
                )
            return Syn("num", t.pos, int(t.text))
        if t.kind == "kw" and t.text == "by":
            self.advance()
            start = self.tok.pos
            depth = 0
            binds_colon = False  # a tactic of the block so far reads its own `:` (have h : T)
            # `by` ending its line: the block is the lines indented at least as far as its first
            # tactic's (Lean's tacticSeq: `sepByIndent`'s checkColGe against that column)
            block_col = int(self.tok.text) if self.tok.kind == "nl" and self.peek().kind != "eof" else None
            while self.tok.kind != "eof":
                x = self.tok
                if depth == 0 and x.kind == "sym" and x.text in self.stop:
                    break
                if depth == 0 and x.kind == "nl" and (block_col is None or int(x.text) < block_col):
                    break
                if x.text in _COLON_TACTICS:
                    binds_colon = True
                # `(by norm_num : 17 < 33819)`: no tactic of the block takes the `:`, so
                # Lean's parser ends the block there and reads a type ascription
                if depth == 0 and x.kind == "sym" and x.text == ":" and not binds_colon:
                    break
                if x.kind == "sym" and x.text in "([{⟨":
                    depth += 1
                elif x.kind == "sym" and x.text in ")]}⟩":
                    if depth == 0:
                        break
                    depth -= 1
                self.advance()
            return Syn("by", t.pos, self.text[start : self.tok.pos])
        if t.kind == "kw" and t.text == "show":  # `show T from e`, `show T by tac`
            self.advance()
            ty = self.term(0)
            if self.at("from"):
                self.advance()
                return Syn("show", t.pos, None, (ty, self.term(0)))
            if self.at("by"):
                return Syn("show", t.pos, None, (ty, self._leading(0)))
            raise self.error("expected 'from' or 'by'")
        if t.kind == "kw" and t.text in ("fun", "λ"):
            return self._fun()
        if t.kind != "sym":
            raise self.error("expected term")
        s = t.text
        if s == "(":
            self.advance()
            self.skip_nl()
            inner = self.term(0)
            self.skip_nl()
            if self.at(":"):
                self.advance()
                ty = self.term(0)
                self.skip_nl()
                self.expect(")")
                return Syn("ascribe", t.pos, None, (inner, ty))
            self.expect(")")
            return _cdot_function(Syn("paren", t.pos, None, (inner,)))
        if s == "⟨":
            self.advance()
            self.skip_nl()
            items: list[Syn] = []
            if not self.at("⟩"):
                saved = self.stop
                self.stop = saved | {","}
                try:
                    items.append(self.term(0))
                    self.skip_nl()
                    while self.at(","):
                        self.advance()
                        self.skip_nl()
                        items.append(self.term(0))
                        self.skip_nl()
                finally:
                    self.stop = saved
            self.expect("⟩")
            return Syn("anon", t.pos, None, tuple(items))
        if s == "?_":
            self.advance()
            return Syn("hole", t.pos)
        if s == "¬":
            self.advance()
            return Syn("unop", t.pos, "¬", (self.term(40),))
        if s == "-":
            if min_prec > _NEG_PREC:
                # `a ^ -b` and `↑-a` do not parse in Lean (write `a ^ (-b)`)
                raise self.error("expected term")
            self.advance()
            return Syn("unop", t.pos, "-", (self.term(_NEG_PREC),))
        if s == "↑":
            self.advance()
            # counted like term(): `↑↑↑…` recurses through _argument without passing term()
            self.enter()
            try:
                return Syn("unop", t.pos, "↑", (self._argument(),))
            finally:
                self.leave()
        if s in ("∀", "∃"):
            return self._binder()
        if s == "·":  # a placeholder of `(· % 10)`; the enclosing parentheses make the function
            self.advance()
            return Syn("cdot", t.pos)
        raise self.error("expected term")

    def _fun(self) -> Syn:
        """``fun x => e`` / ``fun (x : T) ↦ e``: one bound name, ``Syn("fun", pos, (name, type), (body,))``."""
        pos = self.advance().pos
        paren = self.at("(")
        if paren:
            self.advance()
        names, ty = self._binder_group_names(), None
        if paren and self.at(":"):
            self.advance()
            ty = self.term(0)
        if paren:
            self.expect(")")
        if len(names) != 1:
            raise ParseError("only a function of one bound name is supported in this fragment", pos)
        if not (self.at("=>") or self.at("↦")):
            raise self.error("expected '=>'")
        self.advance()
        self.skip_nl()
        return Syn("fun", pos, (names[0][0], ty), (self.term(0),))

    def _binder_group_names(self) -> list[tuple[str, int]]:
        names: list[tuple[str, int]] = []
        # `ℕ`, `ℤ` (Mathlib notations) and `Prop` (a keyword) are tokens, never binder names
        while self.tok.kind == "id" and self.tok.text not in NOT_NAMES:
            names.append((self.tok.text, self.tok.pos))
            self.advance()
        return names

    def _binder(self) -> Syn:
        q = self.advance()
        groups: list[tuple[str, Syn | None, bool]] = []
        pred: tuple[str, Syn] | None = None
        if self.at("(") or self.at("{"):
            while self.at("(") or self.at("{"):
                implicit = self.advance().text == "{"
                names = self._binder_group_names()
                if not names:
                    raise self.error("expected binder name")
                ty = None
                if self.at(":"):
                    self.advance()
                    ty = self.term(0)
                self.expect("}" if implicit else ")")
                groups.extend((n, ty, implicit) for n, _ in names)
        else:
            names = self._binder_group_names()
            if not names:
                raise self.error("expected binder name")
            ty = None
            if self.at(":"):
                self.advance()
                ty = self.term(0)
            elif self.tok.kind == "sym" and self.tok.text in (
                ">",
                "<",
                "≥",
                "≤",
                "≠",
                "∣",
            ):
                if len(names) > 1:
                    # Lean's binder predicates take one name: `∀ x > 0, ∀ y > 0, p`
                    raise self.error("expected ','")
                op = self.advance().text
                pred = (op, self.term(51))
            groups.extend((n, ty, False) for n, _ in names)
        self.expect(",")
        body = self.term(0)
        if pred is not None:
            # binder predicates: ∀ x > 0, p  is  ∀ x, x > 0 → p ;  ∃ x > 0, p  is  ∃ x, x > 0 ∧ p
            conn = "→" if q.text == "∀" else "∧"
            for name, _ty, _imp in reversed(groups):
                cond = Syn(
                    "binop", q.pos, pred[0], (Syn("ident", q.pos, name), pred[1])
                )
                body = Syn("binop", q.pos, conn, (cond, body))
                body = Syn("binder", q.pos, (q.text, [(name, None, False)]), (body,))
            return body
        return Syn("binder", q.pos, (q.text, groups), (body,))

    def at_end(self) -> bool:
        """Whether all tokens are consumed."""
        return self.tok.kind == "eof"


_CDOT_NAME = "x✝"  # the hygienic name Lean gives the bound variable of `(· % 10)`


def _cdot_function(paren: Syn) -> Syn:
    """Lean's `·` sugar (lean4 src/Lean/Elab/BuiltinNotation.lean, `expandCDot?`): the
    parentheses around a term holding `·` make it the function `fun x => …` of that place
    (nested parentheses took their own `·` already). More than one `·` is refused here."""
    count = 0

    def go(s: Syn) -> Syn:
        nonlocal count
        if s.kind == "cdot":
            count += 1
            return Syn("ident", s.pos, _CDOT_NAME)
        if s.kind in ("paren", "by", "fun") or not s.args:
            return s
        return Syn(s.kind, s.pos, s.value, tuple(go(a) for a in s.args))

    body = go(paren.args[0])
    if count == 0:
        return paren
    if count > 1:
        raise ParseError("a `·` function of more than one argument is not supported in this fragment", paren.pos)
    return Syn("fun", paren.pos, (_CDOT_NAME, None), (body,))


def parse_statement(text: str, limits: Limits) -> Syn:
    """Parse a goal.start expression: a term, or theorem-style binders ``(a : ℕ) ... : P``."""
    if len(text) > limits.max_input_chars:
        raise ParseError(
            f"input longer than {limits.max_input_chars} characters",
            limits.max_input_chars,
        )
    toks = tokenize(text)
    p = Parser(text, toks, limits)
    if p.at("(") or p.at("{"):
        groups = _try_theorem_binders(p)
        if groups is not None:
            body = p.term(0)
            if not p.at_end():
                raise p.error("expected end of input")
            node = body
            for name, ty, implicit, pos in reversed(groups):
                node = Syn("binder", pos, ("∀", [(name, ty, implicit)]), (node,))
            return node
        p.i = 0
    node = p.term(0)
    if not p.at_end():
        raise p.error("expected end of input")
    return node


def _try_theorem_binders(p: Parser) -> list[tuple[str, Syn | None, bool, int]] | None:
    groups: list[tuple[str, Syn | None, bool, int]] = []
    try:
        while p.at("(") or p.at("{"):
            open_tok = p.advance()
            implicit = open_tok.text == "{"
            names = p._binder_group_names()
            if not names or not p.at(":"):
                return None
            p.advance()
            ty = p.term(0)
            p.expect("}" if implicit else ")")
            groups.extend((n, ty, implicit, pos) for n, pos in names)
    except ParseError:
        return None
    if not p.at(":"):
        return None
    p.advance()
    return groups
