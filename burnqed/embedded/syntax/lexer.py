"""Lexer for Lean 4 term syntax of the fragment: tokens, keywords, comments, ASCII arrows.

Limits on input length and numeral size turn hostile input into a ``ParseError`` instead of
a hang; the parser (syntax/parser.py) consumes the tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from burnqed.lean.lexical import LexError, blank_comments

__all__ = ["KEYWORDS", "NOT_NAMES", "Limits", "ParseError", "Token", "tokenize"]


class ParseError(Exception):
    """Text that does not parse; ``pos`` is the 0-based character offset."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that keep parsing and arithmetic finite."""

    max_input_chars: int = 20_000
    max_depth: int = 200
    max_numeral_digits: int = 200


TOKEN_CACHE_SIZE = 2048  # distinct texts whose tokens are kept (most are one line)


@dataclass(frozen=True, slots=True)
class Token:
    """One token: kind is id, kw, num, sym, nl or eof."""

    kind: str
    text: str
    pos: int


KEYWORDS = frozenset(
    {
        "at",
        "with",
        "by",
        "fun",
        "λ",
        "have",
        "show",
        "from",
        "using",
        "generalizing",
        "then",
        "else",
        "if",
        "only",
    }
)

# `forall` is Lean 4's ASCII keyword for `∀` (Init/Prelude's binder notation)
ASCII_SYMBOLS = {"forall": "∀"}

# identifier-like text that Lean reads as a token (notation or keyword), never as a name
NOT_NAMES = frozenset({"ℕ", "ℤ", "ℚ", "ℝ", "ℂ", "Prop", "Type", "Sort"})

_SYMBOLS = sorted(
    [
        "<;>",
        "<->",
        "->",
        "<=",
        ">=",
        "!=",
        ":=",
        "=>",
        "↦",
        "/\\",
        "\\/",
        "?_",
        "<-",
        "←",
        "→",
        "↔",
        "∧",
        "∨",
        "¬",
        "∀",
        "∃",
        "≠",
        "≤",
        "≥",
        "∣",
        "⟨",
        "⟩",
        "·",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        ";",
        "|",
        "=",
        "<",
        ">",
        "+",
        "-",
        "*",
        "/",
        "%",
        "^",
        ".",
        "↑",
        "×",
        "∘",
        "@",
        "$",
        "!",
        "⁻¹",
        "∑",
        "∏",
        "∈",
        "&",
        "~",
        "#",
        "⊢",
        # Mathlib's `notation:50 a " ≡ " b " [MOD " n "]"` (Mathlib/Data/Nat/ModEq.lean) and
        # `" [ZMOD "` (Mathlib/Data/Int/ModEq.lean): the trimmed atoms are tokens of their own
        "≡",
        "[MOD",
        "[ZMOD",
    ],
    key=len,
    reverse=True,
)
_ASCII = {
    "<->": "↔",
    "->": "→",
    "<=": "≤",
    ">=": "≥",
    "!=": "≠",
    "/\\": "∧",
    "\\/": "∨",
    "<-": "←",
}
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₔₕₖₗₘₙₚₛₜᵢᵣᵤᵥⱼ"
_NUM_RE = re.compile(r"[0-9]+(\.[0-9]+)?")


def _id_start(ch: str) -> bool:
    return (ch.isalpha() and ch not in "λΠΣ") or ch == "_"


def _id_rest(ch: str) -> bool:
    return ch.isalnum() or ch in "_'!?" or ch in _SUBSCRIPTS


def tokenize(text: str, keep_newlines: bool = False) -> list[Token]:
    """Split text into tokens (comments dropped; ASCII arrows mapped to Unicode).

    Comments are found by burnqed.lean.lexical, the one reading of Lean's comments and
    literals; where that reading refuses (an unterminated comment, text whose reading
    depends on the token table) the text does not parse.
    """
    return list(_tokens(text, keep_newlines))


# A search or a campaign reads the same statement and tactic texts many times over (a statement
# per tactic tried on it, the same generic scripts on every statement); tokens are frozen, each
# caller gets its own list, and a refusal (ParseError) is not cached but raised anew
@lru_cache(maxsize=TOKEN_CACHE_SIZE)
def _tokens(text: str, keep_newlines: bool) -> tuple[Token, ...]:
    try:
        text = blank_comments(text)
    except LexError as exc:
        raise ParseError(exc.message, exc.pos) from exc
    toks: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            if keep_newlines:
                j = i + 1
                while j < n and text[j] in " \t":
                    j += 1
                if j < n and text[j] != "\n":
                    toks.append(Token("nl", str(j - i - 1), i))
            i += 1
            continue
        if ch.isspace():
            i += 1
            continue
        if ch == "«":
            j = text.find("»", i)
            if j < 0:
                raise ParseError("unterminated identifier", i)
            if j == i + 1 or "\n" in text[i:j]:
                raise ParseError("invalid escaped identifier", i)
            toks.append(Token("id", text[i + 1 : j], i))
            i = j + 1
            continue
        if _id_start(ch):
            j = i + 1
            while j < n and (
                _id_rest(text[j])
                or (text[j] == "." and j + 1 < n and _id_start(text[j + 1]))
            ):
                j += 1
            word = text[i:j]
            if word in ASCII_SYMBOLS:  # Lean's ASCII spelling of a symbol: a keyword, no name
                toks.append(Token("sym", ASCII_SYMBOLS[word], i))
            else:
                toks.append(Token("kw" if word in KEYWORDS else "id", word, i))
            i = j
            continue
        if "0" <= ch <= "9":  # str.isdigit() also holds for '₂', '²', '٣', which are no numerals
            m = _NUM_RE.match(text, i)
            if m is None:  # unreachable: an ASCII digit always starts a match
                raise ParseError(f"unexpected character {ch!r}", i)
            toks.append(Token("num", m.group(0), i))
            i = m.end()
            continue
        for sym in _SYMBOLS:
            if text.startswith(sym, i):
                toks.append(Token("sym", _ASCII.get(sym, sym), i))
                i += len(sym)
                break
        else:
            raise ParseError(f"unexpected character {ch!r}", i)
    toks.append(Token("eof", "", n))
    return tuple(toks)
