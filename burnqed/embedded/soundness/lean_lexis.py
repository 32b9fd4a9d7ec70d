"""A second, independent reading of Lean's comments and literals, and the lexer campaign.

``reference_spans`` walks text the way Lean's parser loop does (``whitespace``, then one
token, then ``whitespace`` ...; leanprover/lean4 src/Lean/Parser/Basic.lean, see
burnqed.lean.lexical for the citations), but with regular expressions for the literals and
a fixed token table, so it shares no code with ``burnqed.lean.lexical``. The differential
test (tests/lean/test_lexical.py) and ``burnqed bench soundness`` (family ``lexer``) compare
the two: wherever ours accepts a text, the reference must read the same comments and
literals; where they differ, ours must have refused.

``run_lexer_campaign`` builds proof files with generated comment/string mixtures spliced
into them (and the issue-37 attack forms) and sends each through the final check's text
refusal; a file accepted whose reference reading differs from ours is a false acceptance.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from burnqed.lean.lexical import COMMENT_KINDS, LexError, lex
from burnqed.lean.final_check import refuse_file
from burnqed.lean.statement import LeanHeader, StatementError, statement_decl

__all__ = ["LeanReadError", "LexerTally", "PIECES", "TOKEN_TABLE", "ours_spans", "reference_spans", "run_lexer_campaign"]

# a token table like core Lean's (plus Mathlib's `''` and `⁻¹'`): every ASCII symbol, and longer tokens
TOKEN_TABLE = frozenset(
    set("!#$%&()*+,-./:;<=>?@[\\]^`{|}~")
    | {"⁻¹", "⁻¹'", "''", "<-", "->", "<->", "//", "\\/", "/\\", ":=", "<;>", "..", "@[", "/--", "/-!", "≤", "∀", "→"}
)
_FIRST = "A-Za-z_\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe\u2100-\u214f\U0001d49c-\U0001d59f"
_REST = _FIRST + "0-9'!?\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a"
_PART = f"(?:«[^»]*»|[{_FIRST}][{_REST}]*)"
_IDENT = re.compile(f"{_PART}(?:\\.{_PART})*")
_ESC = r"\\(?:[\\\"'rnt]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})"
_STRING = re.compile(f'"(?:[^"\\\\]|{_ESC}|\\\\\\n[ \\t\\r]*(?![\\n \\t\\r]))*"', re.DOTALL)
_CHAR = re.compile(f"'(?:[^\\\\]|{_ESC})'", re.DOTALL)
_RAW = re.compile(r'r(#*)".*?"\1', re.DOTALL)
_NUMBER = re.compile(r"0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9][0-9_]*)?")


class LeanReadError(Exception):
    """Lean's parser reports an error on this text (the reference's view)."""


def _comment_end(text: str, i: int) -> int:
    """finishCommentBlock, written as a scan over the two-character openers and closers."""
    depth = 1
    while depth:
        m = re.compile(r"-/|/-").search(text, i)
        if m is None:
            raise LeanReadError("unterminated comment")
        depth += 1 if m.group() == "/-" else -1
        i = m.end()
    return i


def reference_spans(text: str) -> list[tuple[str, int, int]]:
    """The comments and literals Lean's parser loop reads in ``text`` as (kind, start, end), or LeanReadError."""
    spans: list[tuple[str, int, int]] = []
    pos, n = 0, len(text)
    while True:
        while pos < n:  # whitespace
            if text[pos] in "\t\r":
                raise LeanReadError("tab or carriage return")
            if text[pos] in " \n":
                pos += 1
            elif text.startswith("--", pos):
                end = text.find("\n", pos)
                end = n if end < 0 else end
                spans.append(("comment", pos, end))
                pos = end
            elif text.startswith("/-", pos) and not text.startswith(("/--", "/-!"), pos):
                end = _comment_end(text, pos + 2)
                spans.append(("comment", pos, end))
                pos = end
            else:
                break
        if pos >= n:
            return spans
        c, nxt = text[pos], text[pos + 1 : pos + 2]
        if text.startswith(("/--", "/-!"), pos):  # the doc comment token and its commentBody
            end = _comment_end(text, pos + 3)
            spans.append(("comment", pos, end))
            pos = end
            continue
        for kind, pattern, when in (
            ("string", _STRING, c == '"'),
            ("char", _CHAR, c == "'" and nxt != "'"),
            ("string", _RAW, c == "r" and re.match(r'r#*"', text[pos:]) is not None),
        ):
            if when:
                m = pattern.match(text, pos)
                if m is None:
                    raise LeanReadError(f"bad {kind} literal")
                spans.append((kind, pos, m.end()))
                pos = m.end()
                break
        else:
            if c.isascii() and c.isdigit() and text[pos - 1 : pos] == ".":  # fieldIdx after `.`: digits only
                pos = re.compile("[0-9]+").match(text, pos).end()  # type: ignore[union-attr]
                continue
            if c.isascii() and c.isdigit():
                m = _NUMBER.match(text, pos)
                # parseOptExp (lean4 src/Lean/Parser/Basic.lean): an `e` right after a decimal
                # without exponent wants digits; after `1e1` or `0x1` an `e` starts an identifier
                decimal = m is not None and m.group()[:2].lower() not in ("0b", "0o", "0x")
                bad_exp = decimal and text[m.end() : m.end() + 1] in ("e", "E") and not re.search("[eE]", m.group())
                if m is None or m.group().endswith("_") or bad_exp:
                    raise LeanReadError("bad numeral")
                pos = m.end()
                continue
            if c == "`" and _IDENT.match(text, pos + 1):
                pos = _IDENT.match(text, pos + 1).end()  # type: ignore[union-attr]
                continue
            ident = _IDENT.match(text, pos)
            token = max((len(t) for t in TOKEN_TABLE if text.startswith(t, pos)), default=0)
            if ident is None and token == 0:  # no token: a grammar error in Lean, not a lexical one
                token = 1
            if ident is not None and ident.end() - pos > token:
                pos = ident.end()
            else:
                pos += token


def ours_spans(text: str) -> list[tuple[str, int, int]]:
    """burnqed.lean.lexical's reading in the reference's terms (comments of every kind are ``comment``)."""
    return [
        ("comment" if seg.kind in COMMENT_KINDS else seg.kind, seg.start, seg.end)
        for seg in lex(text)
        if seg.kind != "code"
    ]


PIECES = (
    "--", "/-", "/--", "/-!", "-/", "/--/", "-", "/", '"', '\\"', "\\", "'", "'a'", "'-'", "'/'", "'\\''", "''",
    "«", "»", "«a--b»", "«/-»", "\n", " ", "  ", "x", "h'", "r\"", "r#\"", "\"#", "#", "1", "2.5", "(", ")", ":=",
    "<-", "\\/", "//", "⁻¹'", "sorry", "axiom", "theorem", "native_decide", "`r", "`", "`«", ".", ".1", "e", "\\n", "\\x4", "\\u0041", "\t",
)  # fmt: skip

_BASE = "theorem locked_thm (n : ℕ) : n + 0 = n := by\n  simp\n"
_ATTACKS = (
    # issue 37: a doc comment opened by `/--/`, closed on a line that `--` hides from a naive reader
    "/--/ harmless\n-- -/ axiom cheat : (1 : ℕ) = 2\ntheorem locked_thm (n : ℕ) : n + 0 = n := by\n  simp\n",
    "theorem locked_thm (n : ℕ) : n + 0 = n := by\n  /--/\n  -- -/ sorry\n",
    "theorem locked_thm (n : ℕ) : n + 0 = n := by\n  /--/\n  -- -/ native_decide\n",
    "/--/ -- -/ axiom cheat : False\ntheorem locked_thm (n : ℕ) : n + 0 = n := by\n  simp\n",
    'theorem locked_thm (n : ℕ) : n + 0 = n := by\n  simp -- "\n  /- " -/ sorry\n',
)


@dataclass
class LexerTally:
    """What the lexer campaign saw: files tried, accepted, refused, and false acceptances."""

    attempts: int = 0
    accepted: int = 0
    refused: int = 0
    false_accepted: list[str] = field(default_factory=list)


def _mixture(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))


def _splice(rng: random.Random) -> str:
    lines = _BASE.splitlines(keepends=True)
    at = rng.randrange(len(lines) + 1)
    where = rng.choice(("line", "end", "inline"))
    mix = _mixture(rng)
    if where == "line" or at == len(lines):
        lines.insert(at, mix + "\n")
    elif where == "end":
        lines[at] = lines[at].rstrip("\n") + " " + mix + "\n"
    else:
        line = lines[at]
        cut = rng.randrange(len(line))
        lines[at] = line[:cut] + mix + line[cut:]
    return "".join(lines)


def run_lexer_campaign(count: int, seed: int = 0) -> LexerTally:
    """``count`` generated files (and the attack forms) through the text refusal; count false acceptances."""
    rng = random.Random(seed)
    tally = LexerTally()
    lock = statement_decl("theorem locked_thm (n : ℕ) : n + 0 = n")
    texts = list(_ATTACKS) + [_splice(rng) for _ in range(count)]
    for text in texts:
        tally.attempts += 1
        try:
            refuse_file(text, statement=lock, header=LeanHeader())
            mine = ours_spans(text)
        except (StatementError, LexError):
            tally.refused += 1
            continue
        tally.accepted += 1
        try:
            theirs = reference_spans(text)
        except LeanReadError as exc:
            tally.false_accepted.append(f"Lean errors ({exc}) on an accepted file: {text[:300]!r}")
            continue
        if theirs != mine:
            tally.false_accepted.append(f"Lean reads other comments than ours: {text[:300]!r}")
    return tally
