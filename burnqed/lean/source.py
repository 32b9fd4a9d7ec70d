"""Lean source as text: comments, ``sorry``, tokens. What the statement lock compares is tokens:
``10∣x`` and ``10 ∣ x`` are one statement. Comments and literals are found by the one lexer,
``burnqed.lean.lexical``, which reads them as Lean's parser does or refuses.

Plain text processing, as in burnqed.lean.statement (which re-exports these names).
"""

from __future__ import annotations

import re

from burnqed.lean.lexical import StatementError, blank_comments, code_only, lex

__all__ = ["StatementError", "has_sorry", "lean_tokens", "strip_comments"]

_SORRY = re.compile(r"(?<![\w.'])(sorry|admit)(?![\w'])")


def strip_comments(text: str) -> str:
    """``text`` with Lean comments blanked out, offsets kept: ``burnqed.lean.lexical.blank_comments``.

    Raises a LexError (a StatementError) where Lean's reading is an error or not certain.
    """
    return blank_comments(text)


def has_sorry(text: str) -> bool:
    """Whether ``text`` (comments aside) uses ``sorry`` or ``admit``."""
    return _SORRY.search(code_only(text)) is not None



# symbol tokens longer than one character, longest first: maximal munch as Lean's tokenizer does,
# so a space that splits one of them (`< =`) keeps the text apart from the token (`<=`)
_SYMBOLS = sorted(
    (
        ":=", "->", "<-", "<->", "<=", ">=", "!=", "==", "=>", "&&", "||", "++", "::", "..", "...", "^^", "<;>",
        "|>.", "|>", "<|", "<|>", "≠", "∘", "⁻¹", "%[", "@[", "#[", "←", "→", "↔", "×ˢ", "+ᵥ", "•", "∑", "∏",
        "≃*", "≃+*", "≃ₗ", "→+*", "→*", "→+", "→ₗ", "≃", "≅", "⁅", "⁆", "⟪", "⟫", "=ᶠ", "≤ᶠ", "∀ᶠ", "∃ᶠ", "ᶜ",
    ),
    key=len,
    reverse=True,
)  # fmt: skip
_IDENT_START = re.compile(r"[^\W\d]|[_«α-ωΑ-Ωℕℤℚℝℂ𝕜]", re.UNICODE)


def _ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_'!?" or "\u2080" <= ch <= "\u209c" or "\u1d62" <= ch <= "\u1d6a" or ch == "ⁿ"


def _ident_dot(ch: str) -> bool:
    # `h.1` and `h.le` are one token each (a projection glued to its name); `h .1` is not
    return ch.isdigit() or bool(_IDENT_START.match(ch))


def lean_tokens(text: str) -> list[str]:
    """``text`` (comments dropped) as Lean tokens: identifiers (dotted, «quoted»), numbers, strings, symbols.

    Whitespace only separates tokens; a symbol is the longest known multi-character token
    or one character. Close enough to Lean's tokenizer to compare two spellings of one
    statement, and never looser: texts with different token sequences differ.
    """
    out: list[str] = []
    for seg in lex(text):
        if seg.kind in ("string", "char"):
            out.append(text[seg.start : seg.end])
        elif seg.kind == "code":
            out.extend(_code_tokens(text[seg.start : seg.end]))
    return out


def _code_tokens(clean: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(clean)
    while i < n:
        ch = clean[i]
        if ch.isspace():
            i += 1
            continue
        j = i
        if ch == "«":
            j = clean.find("»", i)
            j = n if j < 0 else j + 1
        elif ch.isdigit():
            while j < n and (clean[j].isalnum() or clean[j] == "_" or (clean[j] == "." and j + 1 < n and clean[j + 1].isdigit())):
                j += 1
        elif _IDENT_START.match(ch) and ch not in "λΠΣ":
            while j < n and (_ident_char(clean[j]) or (clean[j] == "." and j + 1 < n and _ident_dot(clean[j + 1]))):
                j += 1
        else:
            j = i + next((len(sym) for sym in _SYMBOLS if clean.startswith(sym, i)), 1)
        out.append(clean[i:j])
        i = j
    return out
