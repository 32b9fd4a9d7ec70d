"""Parser of tactic text: sequences (``;`` and newlines), ``<;>``, focusing, blocks and the
argument forms of each supported tactic (names, terms, rewrite rules, locations, rcases
patterns, ``with`` alternatives). Unknown tactic names are parse errors, as in Lean."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from burnqed.embedded.syntax.parser import Limits, ParseError, Parser, Syn, tokenize
from burnqed.embedded.syntax.tactic_parser_more import (
    parse_calc_steps, parse_case, parse_cases_prime, parse_simp_config, parse_conv, parse_have_binders, parse_induction_prime, parse_match,
    parse_suffices, parse_unfold)

__all__ = ["TACTIC_NAMES", "Pattern", "Tac", "parse_tactic"]

Pattern = tuple[
    Any, ...
]  # ("name", n) | ("blank",) | ("clear",) | ("tuple", [p]) | ("alts", [p])


@dataclass(frozen=True, slots=True)
class Tac:
    """A parsed tactic: its name, position and arguments."""

    name: str
    pos: int
    data: dict[str, Any] = field(default_factory=dict)


_NO_ARGS = {
    "subst_vars",
    "exfalso",
    "constructor",
    "left",
    "right",
    "contradiction",
    "assumption",
    "trivial",
    "rfl",
    "decide",
    "ring",
    "omega",
    "positivity",
    "sorry",
    "admit",
    "skip",
    "done",
}
_TERM_LIST = {"linarith", "nlinarith"}
_SIMP = {"simp", "norm_num", "simp_arith", "field_simp", "simp_all", "zify", "push_cast", "norm_cast"}
TACTIC_NAMES = frozenset(
    _NO_ARGS
    | _TERM_LIST
    | _SIMP
    | {
        "intro",
        "intros",
        "rintro",
        "exact",
        "apply",
        "refine",
        "refine'",
        "simpa",
        "use",
        "exists",
        "specialize",
        "have",
        "show",
        "rw",
        "rewrite",
        "rwa",
        "induction",
        "cases",
        "rcases",
        "obtain",
        "all_goals", "any_goals", "try", "first", "repeat",
        "by_contra", "by_contra!",
        "by_cases",
        "clear",
        "symm",
        "exact_mod_cast",
        "subst",
        "push_neg",
        "interval_cases",
        "calc",
        "match",
        "induction'",
        "cases'",
        "ring_nf",
        "case", "next", "suffices",
        "revert", "contrapose", "contrapose!", "unfold", "conv", "conv_lhs", "conv_rhs",
    }
)
# Lean / Mathlib tactics outside the embedded checker: parsed (a script where they never run
# is Lean's), refused when run
_OPAQUE_TACTICS = frozenset(
    {"aesop", "tauto", "qify", "gcongr", "bound", "nlinarith!", "linarith!",
     "field_simp!", "simp_arith!", "exact?", "apply?", "decide!", "native_decide", "norm_num!", "abel", "group",
     "noncomm_ring", "linear_combination", "polyrith", "nofun", "contradiction!", "trivial!", "assumption'", "congr",
     "ext", "funext", "conv", "split", "split_ifs", "unfold", "delta", "change", "norm_num1", "ring1", "ring_nf!",
     "mod_cases", "fin_cases", "rel", "peel", "lift", "choose", "set", "let", "generalize", "induction'",
     "rcases'", "contrapose", "contrapose!", "push_neg!", "revert", "suffices", "case",
     "exfalso", "absurd", "exacts", "constructorm", "casesm", "rename_i", "next", "injection", "simp?", "aesop?"}
)
_TERM_STOP = frozenset({",", "|", "<;>", ";", "]", ")", ":=", "⟩"})


class _TacticParser(Parser):
    def line_indent(self, pos: int) -> int:
        start = self.text.rfind("\n", 0, pos) + 1
        j = start
        while j < len(self.text) and self.text[j] in " \t":
            j += 1
        return j - start

    def column(self, pos: int) -> int:
        return pos - (self.text.rfind("\n", 0, pos) + 1)

    def at_sep_end(self, base: int, stop: frozenset[str]) -> bool:
        t = self.tok
        if t.kind == "eof":
            return True
        if t.kind == "nl" and int(t.text) <= base:
            return True
        return t.kind == "sym" and t.text in stop

    def seq(self, base: int, stop: frozenset[str] = frozenset(), *, allow_empty: bool = False) -> Tac:
        # lean4 src/Lean/Parser/Term.lean: tacticSeq1Indented is sepBy1IndentSemicolon (non-empty)
        pos = self.tok.pos
        items: list[Tac] = []
        while True:
            while self.at(";") or (self.tok.kind == "nl" and int(self.tok.text) > base):
                self.advance()
            if self.at_sep_end(base, stop):
                break
            items.append(self.then_(base, stop))
            if not (
                self.at(";") or self.tok.kind == "nl" or self.at_sep_end(base, stop)
            ):
                raise self.error("expected ';' or line break")
        if not items and not allow_empty:
            raise self.error("expected tactic")
        return Tac("seq", pos, {"items": items})

    def then_(self, base: int, stop: frozenset[str]) -> Tac:
        t = self.atomic(base, stop)
        while self.at("<;>") or self._continued("<;>", base):
            while self.tok.kind == "nl":
                self.advance()
            pos = self.advance().pos
            while self.tok.kind == "nl":  # `t <;>` ⏎ `t2`: the second tactic has no column check
                self.advance()
            t2 = self.atomic(base, stop)
            t = Tac("then", pos, {"first": t, "rest": t2})
        return t

    def _continued(self, sym: str, base: int) -> bool:
        """A line break before ``sym`` continues the innermost tactic, whatever the line's
        column: ``t <;> t'`` is a trailing parser (lean4 src/Init/Tactics.lean, ``macro:1 x:tactic
        tk:" <;> " y:tactic:2``) and only a sequence's next item is checked against the block's
        column (``sepByIndent``'s ``checkColGe``), so an ``all_goals`` block's last tactic takes a
        ``<;> omega`` written at the column of ``all_goals``."""
        return self.tok.kind == "nl" and self.peek().kind == "sym" and self.peek().text == sym

    def term_(self, extra: frozenset[str] = frozenset()) -> Syn:
        # a term may begin on the next line when that line is indented past the tactic's
        # column: Lean's tokens skip whitespace, newlines included, and only the `checkColGe`
        # of the block's next tactic (`sepByIndent`, lean4 src/Lean/Parser/Extra.lean) ends
        # the tactic; `simpa [...] using` ⏎ `term` is one tactic
        while self.tok.kind == "nl" and int(self.tok.text) > self.tactic_col and self.peek().kind != "eof":
            self.advance()
        saved = self.stop
        self.stop = saved | _TERM_STOP | extra
        try:
            return self.term(0)
        finally:
            self.stop = saved

    def names(self) -> list[str]:
        out = []
        while self.tok.kind == "id":
            out.append(self.advance().text)
        return out

    def bracket_terms(self, allow_rev: bool) -> list[tuple[bool, Syn]]:
        self.expect("[")
        out: list[tuple[bool, Syn]] = []
        self.skip_nl()
        while not self.at("]"):
            rev = False
            if allow_rev and self.at("←"):
                self.advance()
                rev = True
            if allow_rev and self.at("*"):  # `simp [*]`: every hypothesis is a rule
                out.append((False, Syn("ident", self.advance().pos, "*")))
            else:
                out.append((rev, self.term_()))
            self.skip_nl()
            if self.at(","):
                self.advance()
                self.skip_nl()
            elif not self.at("]"):
                raise self.error("expected ',' or ']'")
        self.advance()
        return out

    def location(self) -> list[str] | None:
        if not self.at("at"):
            return None
        self.advance()
        locs: list[str] = []
        while self.tok.kind == "id" or self.at("⊢") or self.at("*"):
            locs.append(self.advance().text)
        if not locs:
            raise self.error("expected hypothesis name")
        return locs

    def pattern(self) -> Pattern:
        alts = [self.pattern_one()]
        while self.at("|"):
            self.advance()
            alts.append(self.pattern_one())
        return alts[0] if len(alts) == 1 else ("alts", alts)

    def pattern_one(self) -> Pattern:
        self.enter()
        try:
            return self._pattern_one()
        finally:
            self.leave()

    def _pattern_one(self) -> Pattern:
        t = self.tok
        if t.kind == "id":
            self.advance()
            return ("blank",) if t.text == "_" else ("name", t.text)
        if self.at("-"):
            self.advance()
            return ("clear",)
        if self.at("⟨"):
            self.advance()
            items = []
            if not self.at("⟩"):
                items.append(self.pattern())
                while self.at(","):
                    self.advance()
                    items.append(self.pattern())
            self.expect("⟩")
            return ("tuple", items)
        if self.at("("):
            self.advance()
            p = self.pattern()
            self.expect(")")
            return p
        raise self.error("expected rcases pattern")

    def alternatives(self, base: int) -> list[tuple[str, list[str], Tac, int]]:
        alts = []
        while self.tok.kind == "nl":
            self.advance()
        while self.at("|"):
            bar = self.advance()
            if self.tok.kind != "id":
                raise self.error("expected case name")
            name = self.advance().text
            args = self.names()
            self.expect("=>")
            body = self.seq(self.line_indent(bar.pos), frozenset({"|"}))
            alts.append((name, args, body, bar.pos))
            while (
                self.tok.kind == "nl"
                and self.peek().kind == "sym"
                and self.peek().text == "|"
            ):
                self.advance()
        if not alts:
            raise self.error("expected '|'")
        return alts

    def _opaque(self, name: str, stop: frozenset[str]) -> Tac:
        """A Lean tactic the checker does not run (its arguments skipped to the end of the
        tactic): parsed so that a script where it never runs (``t <;> aesop`` after ``t``
        closed every goal) is read as Lean reads it; run, it fails."""
        pos = self.advance().pos
        depth = 0
        while self.tok.kind != "eof":
            x = self.tok
            if depth == 0 and (x.kind == "nl" or (x.kind == "sym" and (x.text in stop or x.text in ("<;>", ";")))):
                break
            if x.kind == "sym" and x.text in "([{⟨":
                depth += 1
            elif x.kind == "sym" and x.text in ")]}⟩":
                if depth == 0:
                    break
                depth -= 1
            self.advance()
        return Tac(name, pos, {"opaque": True})

    # the column of the tactic being parsed: a line indented past it continues the tactic
    tactic_col: int = 1 << 30

    def atomic(self, base: int, stop: frozenset[str]) -> Tac:
        # every nested tactic (blocks, focus, combinator bodies, alternatives) passes here
        self.enter()
        saved = self.tactic_col
        self.tactic_col = self.column(self.tok.pos)
        try:
            return self._atomic(base, stop)
        finally:
            self.tactic_col = saved
            self.leave()

    def _atomic(self, base: int, stop: frozenset[str]) -> Tac:
        t = self.tok
        if self.at("("):
            self.advance()
            inner = self.seq(-1, frozenset({")"}))
            self.expect(")")
            return inner
        if self.at("{"):  # Lean's tacticSeqBracketed: focuses the main goal and must close it
            self.advance()
            body = self.seq(-1, frozenset({"}"}), allow_empty=True)
            self.expect("}")
            return Tac("focus", t.pos, {"body": body})
        if self.at("·") or self.at("."):
            self.advance()
            body = self.seq(self.column(t.pos), stop)
            return Tac("focus", t.pos, {"body": body})
        if t.kind not in ("id", "kw"):
            raise self.error("expected tactic")
        name = t.text
        if name in _OPAQUE_TACTICS and name not in TACTIC_NAMES:
            return self._opaque(name, stop)
        if name not in TACTIC_NAMES:
            raise ParseError("unknown tactic", t.pos)
        self.advance()
        d: dict[str, Any] = {}
        if name in _NO_ARGS:
            pass
        elif name == "clear" and self.at("*"):  # `clear * - h…` (mathlib4 Mathlib/Tactic/ClearExcept.lean)
            d["keep"] = (self.advance(), self.expect("-"), self.names())[2]
        elif name in ("intro", "intros", "clear", "subst", "revert", "contrapose", "contrapose!"):
            d["names"] = self.names()
        elif name == "rintro":
            pats = []
            while self.tok.kind == "id" or self.at("⟨") or self.at("("):
                pats.append(self.pattern_one())
            d["patterns"] = pats
        elif name in ("case", "next"):
            d.update(parse_case(self, name, t.pos, stop))
        elif name == "ring_nf":
            d["at"] = self.location()
        elif name in ("conv", "conv_lhs", "conv_rhs"):
            d.update(parse_conv(self, name, t.pos, stop))
        elif name == "match":
            d.update(parse_match(self))
        elif name == "suffices":
            d.update(parse_suffices(self, t.pos, stop))
        elif name == "cases'":
            d.update(parse_cases_prime(self))
        elif name == "induction'":
            d.update(parse_induction_prime(self))
        elif name in ("exact", "apply", "refine", "refine'", "specialize", "exact_mod_cast"):
            d["term"] = self.term_()
        elif name in ("use", "exists"):
            items = [self.term_()]
            while self.at(","):
                self.advance()
                items.append(self.term_())
            d["terms"] = items
        elif name in _TERM_LIST:
            d["terms"] = (
                [s for _, s in self.bracket_terms(False)] if self.at("[") else []
            )
        elif name in _SIMP or name == "simpa":
            parse_simp_config(self)
            if self.at("only"):
                self.advance()
                d["only"] = True
            d["rules"] = self.bracket_terms(True) if self.at("[") else []
            d["at"] = self.location()
            if name == "simpa" and self.at("using"):
                self.advance()
                d["using"] = self.term_()
        elif name in ("rw", "rewrite", "rwa"):
            d["rules"] = self.bracket_terms(True)
            d["at"] = self.location()
        elif name in ("have", "show"):
            if name == "have":
                d["name"] = self.advance().text if self.tok.kind == "id" else "this"
                if self.at("("):
                    d.update(parse_have_binders(self, t.pos))
                elif self.at(":"):
                    self.advance()
                    d["type"] = self.term_()
            else:
                d["type"] = self.term_()
            if name == "have" and self.at(":="):
                self.advance()
                if self.at("by"):
                    self.advance()
                    d["by"] = self.seq(self.line_indent(t.pos), stop)
                else:
                    d["term"] = self.term_()
        elif name in ("induction", "cases"):
            d["target"] = self.term_()
            if self.at("generalizing"):
                self.advance()
                d["generalizing"] = self.names()
            if self.at("with"):
                self.advance()
                d["alts"] = self.alternatives(self.line_indent(t.pos))
        elif name == "rcases":
            d["term"] = self.term_()
            if self.at("with"):
                self.advance()
                d["pattern"] = self.pattern()
            else:
                d["pattern"] = ("blank",)
        elif name == "obtain":
            d["pattern"] = self.pattern()
            if self.at(":"):
                self.advance()
                d["type"] = self.term_()
            if self.at(":="):
                self.advance()
                d["term"] = self.term_()
        elif name in ("all_goals", "any_goals", "try", "repeat"):
            d["body"] = self.seq(self.line_indent(t.pos), stop)
        elif name == "first":
            alts = []
            while self.tok.kind == "nl":
                self.advance()
            while self.at("|"):
                self.advance()
                alts.append(self.then_(base, stop | {"|"}))
                while (
                    self.tok.kind == "nl"
                    and self.peek().kind == "sym"
                    and self.peek().text == "|"
                ):
                    self.advance()
            if not alts:
                raise self.error("expected '|'")
            d["alts"] = alts
        elif name in ("by_contra", "by_contra!"):
            d["name"] = self.advance().text if self.tok.kind == "id" else "this"
            if name == "by_contra!" and self.at(":"):
                raise self.error("by_contra! h : T is not supported in this fragment")
        elif name == "by_cases":
            hname = "h"
            if (
                self.tok.kind == "id"
                and self.peek().kind == "sym"
                and self.peek().text == ":"
            ):
                hname = self.advance().text
                self.advance()
            d["name"] = hname
            d["type"] = self.term_()
        elif name == "symm":
            pass
        elif name == "calc":
            d["steps"] = parse_calc_steps(self, self.line_indent(t.pos), stop)
        elif name == "push_neg":
            d["at"] = self.location()
        elif name == "unfold":
            d.update(parse_unfold(self))
        elif name == "interval_cases":
            if self.tok.kind == "id" and self.peek().kind == "sym" and self.peek().text == ":":
                d["name"] = self.advance().text
                self.advance()
            d["term"] = self.term_(frozenset({"with", "using"}))
            if self.at("using"):
                raise self.error("interval_cases ... using is not supported by the embedded checker")
        return Tac(name, t.pos, d)


def parse_tactic(text: str, limits: Limits) -> Tac:
    """Parse the text of one goal.tactic request into a tactic sequence."""
    if len(text) > limits.max_input_chars:
        raise ParseError(
            f"input longer than {limits.max_input_chars} characters",
            limits.max_input_chars,
        )
    p = _TacticParser(text, tokenize(text, keep_newlines=True), limits)
    tac = p.seq(-1)
    if not p.at_end():
        raise p.error("expected end of input")
    return tac
