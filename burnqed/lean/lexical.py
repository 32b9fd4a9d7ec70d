"""Lean 4's lexical layer, exactly: where comments, string and character literals begin and end.

Every reader of Lean text in burnqed (the statement lock, header comparison, ``sorry``
detection, ``verify-file``, the embedded checker's ``frontend.process`` and its term lexer)
goes through ``lex``. Reading a comment differently from Lean is a soundness bug: text that
is code to Lean and comment to us (issue 37: ``/--/ … -- -/ axiom cheat …``) is never seen by
our checks. So this module follows Lean's parser function by function, and where the reading
depends on something it cannot know (the token table of the imported notation), it refuses
with a ``LexError`` instead of guessing.

Source: leanprover/lean4, ``src/Lean/Parser/Basic.lean`` at commit
00c1b82722b50e9b1ae4999ccc97f932b2788b51 (the definitions named below have kept their shape
since v4.0; Pantograph's pin is on v4.21.0):

- ``whitespace``: between tokens, ``' '`` and ``'\\n'`` are skipped; a tab is an error ("tabs
  are not allowed") and so is ``'\\r'``; ``--`` runs to the next ``'\\n'``; ``/-`` opens a
  block comment unless the next character is ``-`` or ``!``: ``/--`` and ``/-!`` are *tokens*
  (doc comment, module doc), so whitespace stops there.
- ``finishCommentBlock nesting``: the body of ``/-``, ``/--`` and ``/-!`` alike starts right
  after the opener, so ``/--/`` does *not* close (the ``/`` is body). It reads one character:
  ``-`` followed by ``/`` closes one level (consuming both), ``/`` followed by ``-`` opens one
  (consuming both), anything else is skipped. Strings are not special inside comments.
  End of input is "unterminated comment".
- ``tokenFnAux``: at a token start, ``"`` begins a string (``strLitFnAux``), ``'`` not followed
  by ``'`` a character literal (``charLitFnAux``), a digit a number (``numberFnAux``),
  backquote before an identifier a name literal, ``r`` before ``#*"`` a raw string
  (``isRawStrLitStart`` / ``rawStrLitFnAux``), anything else the token table's longest match
  or an identifier (``identFnAux``: parts ``isIdFirst isIdRest*`` or ``«…»``, joined by ``.``).
- ``strLitFnAux`` / ``quotedCharCoreFn``: ``\\`` escapes ``\\ " ' r n t``, ``xHH``, ``uHHHH``
  and, in strings only, a gap (``stringGapFn``: newline, then blanks with no second newline);
  anything else is "invalid escape sequence". ``charLitFnAux``: one character or one escape,
  then ``'``, else "missing end of character literal".
- ``rawStrLitFnAux``: ``r#…#"`` ends at the first ``"`` followed by as many ``#``; no escapes.
- after a ``.``, digits are a projection index (``fieldIdxFn``: digits only, ``h.2.elim``);
- ``isIdFirst`` / ``isIdRest`` / ``isLetterLike`` / ``isSubScriptAlnum`` (``src/Init/Meta.lean``):
  ASCII letters, ``_`` and the letter-like blocks start a name; digits, ``' ! ?`` and
  subscripts continue it. ``Char.isWhitespace`` is ``' '``, ``\\t``, ``\\r``, ``\\n`` only.

What we refuse though Lean may accept it (never the reverse):

- a ``--`` or ``/-`` glued to a preceding symbol other than a bracket, ``,`` or ``;``:
  Lean's tokenizer takes the longest token of the table first (``<--`` is ``<-`` then ``-``,
  ``\\/-`` is ``\\/`` then ``-``), and the table depends on the imports;
- a ``'`` glued to a preceding symbol where it could begin a character literal (Mathlib's
  ``⁻¹'`` is one token), and ``_`` inside a numeral (its reading changed between versions);
- a newline inside ``«…»``, and any blank that is not ``' '`` or ``'\\n'`` outside comments
  and literals (Lean reads none of them as whitespace);
- a doc comment ``/--`` not followed by a declaration, a module doc ``/-!`` not on a line of
  its own before a command (Lean reads both as syntax, an error elsewhere).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "COMMAND_STARTS", "COMMENT_KINDS", "DOC_TARGETS", "LITERAL_KINDS", "AmbiguousText", "ForbiddenCharacter",
    "InvalidLiteral", "LexError", "MisplacedDocComment", "Segment", "SegmentKind", "StatementError",
    "UnterminatedComment", "UnterminatedLiteral", "blank_comments", "block_comment_end", "char_end",
    "code_only", "ident_end", "is_id_first", "is_id_rest", "is_letter_like", "lex", "number_end",
    "raw_string_end", "raw_string_start", "string_end",
]  # fmt: skip


class StatementError(ValueError):
    """Text that is not a header, a theorem in theorem form, or a Lean file of the shape burnqed checks."""


class LexError(StatementError):
    """Text whose lexical reading by Lean is an error or is not certain to be ours; ``pos`` is the offset.

    The tree: LexError › UnterminatedComment, UnterminatedLiteral, InvalidLiteral,
    ForbiddenCharacter, AmbiguousText, MisplacedDocComment.
    """

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} (at offset {pos})")
        self.message = message
        self.pos = pos


class UnterminatedComment(LexError):
    """A ``/-`` (or ``/--``, ``/-!``) comment that the text never closes."""


class UnterminatedLiteral(LexError):
    """A string, raw string, character literal or ``«`` name that the text never closes."""


class InvalidLiteral(LexError):
    """A literal Lean refuses: a bad escape, a character literal without its ``'``, a bad numeral."""


class ForbiddenCharacter(LexError):
    """A tab, a carriage return or another blank that Lean does not read as whitespace, in code."""


class AmbiguousText(LexError):
    """Text whose reading depends on the token table of the imports: refused rather than guessed."""


class MisplacedDocComment(LexError):
    """A ``/--`` or ``/-!`` where Lean's grammar does not take one."""


SegmentKind = Literal["code", "line_comment", "block_comment", "doc_comment", "module_doc", "string", "char"]
COMMENT_KINDS = frozenset({"line_comment", "block_comment", "doc_comment", "module_doc"})
LITERAL_KINDS = frozenset({"string", "char"})


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of the text: ``text[start:end]`` is code, a comment or a literal."""

    kind: SegmentKind
    start: int
    end: int


# one-character tokens that begin no longer token ending in `-`, `/` or `'` (brackets, separators)
_SAFE_BEFORE = frozenset("()[]{}⟨⟩⦃⦄,;")
# what a doc comment may precede: declModifiers' first tokens and the declaration keywords
DOC_TARGETS = frozenset(
    {
        "theorem", "lemma", "def", "abbrev", "example", "instance", "structure", "class", "inductive",
        "axiom", "opaque", "noncomputable", "private", "protected", "partial", "unsafe", "nonrec", "@[",
    }
)  # fmt: skip
# what may follow a module doc: a command (or the end of the text)
COMMAND_STARTS = DOC_TARGETS | {
    "open", "set_option", "namespace", "section", "end", "universe", "variable", "/--", "/-!",
}  # fmt: skip


def is_letter_like(c: str) -> bool:
    """Lean's ``isLetterLike`` (Init/Meta.lean): Greek but λ Π Σ, Coptic, letter-like symbols, math letters."""
    if len(c) != 1:
        return False
    v = ord(c)
    return (
        (0x3B1 <= v <= 0x3C9 and v != 0x3BB)
        or (0x391 <= v <= 0x3A9 and v not in (0x3A0, 0x3A3))
        or 0x3CA <= v <= 0x3FB
        or 0x1F00 <= v <= 0x1FFE
        or 0x2100 <= v <= 0x214F
        or 0x1D49C <= v <= 0x1D59F
    )


def is_id_first(c: str) -> bool:
    """Lean's ``isIdFirst``: ASCII letter, ``_`` or letter-like."""
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_" or is_letter_like(c)


def is_id_rest(c: str) -> bool:
    """Lean's ``isIdRest``: ``isIdFirst``, ASCII digit, ``' ! ?`` or a subscript (``isSubScriptAlnum``)."""
    if len(c) != 1:
        return False
    v = ord(c)
    return (
        is_id_first(c)
        or "0" <= c <= "9"
        or c in "'!?"
        or 0x2080 <= v <= 0x2089
        or 0x2090 <= v <= 0x209C
        or 0x1D62 <= v <= 0x1D6A
    )


def _is_hex(c: str) -> bool:
    return c in "0123456789abcdefABCDEF"


def block_comment_end(text: str, i: int, start: int) -> int:
    """``finishCommentBlock 1`` from ``i`` (just after the opener at ``start``): the offset after its ``-/``."""
    n, nesting = len(text), 1
    while True:
        if i >= n:
            raise UnterminatedComment("unterminated comment", start)
        c = text[i]
        i += 1
        if c == "-":
            if i >= n:
                raise UnterminatedComment("unterminated comment", start)
            if text[i] == "/":
                i += 1
                nesting -= 1
                if nesting == 0:
                    return i
        elif c == "/":
            if i >= n:
                raise UnterminatedComment("unterminated comment", start)
            if text[i] == "-":
                i += 1
                nesting += 1


def _quoted(text: str, i: int, start: int, in_string: bool) -> int:
    """``quotedCharCoreFn`` at ``i`` (after a backslash): the offset after the escape."""
    n = len(text)
    if i >= n:
        raise UnterminatedLiteral("unterminated literal", start)
    c = text[i]
    if c in "\\\"'rnt":
        return i + 1
    if c in "xu":
        width = 2 if c == "x" else 4
        digits = text[i + 1 : i + 1 + width]
        if len(digits) != width or not all(_is_hex(d) for d in digits):
            raise InvalidLiteral("invalid hexadecimal numeral in escape", i)
        return i + 1 + width
    if in_string and c == "\n":  # stringGapFn: exactly one newline, then blanks
        seen, j = False, i
        while j < n:
            ch = text[j]
            if ch == "\n":
                if seen:
                    raise InvalidLiteral("unexpected additional newline in string gap", j)
                seen = True
            elif ch not in " \t\r":
                return j
            j += 1
        return j
    raise InvalidLiteral("invalid escape sequence", i)


def string_end(text: str, start: int) -> int:
    """``strLitFnAux`` for the string opened at ``start``: the offset after its closing quote."""
    i, n = start + 1, len(text)
    while True:
        if i >= n:
            raise UnterminatedLiteral("unterminated string literal", start)
        c = text[i]
        i += 1
        if c == '"':
            return i
        if c == "\\":
            i = _quoted(text, i, start, in_string=True)


def char_end(text: str, start: int) -> int:
    """``charLitFnAux`` for the literal opened at ``start``: the offset after its closing ``'``."""
    i = start + 1
    if i >= len(text):
        raise UnterminatedLiteral("unterminated character literal", start)
    c = text[i]
    i += 1
    if c == "\\":
        i = _quoted(text, i, start, in_string=False)
    if i < len(text) and text[i] == "'":
        return i + 1
    raise InvalidLiteral("missing end of character literal", start)


def raw_string_start(text: str, i: int) -> bool:
    """``isRawStrLitStart``: whether ``r`` at ``i`` begins a raw string (``r#*"``)."""
    j = i + 1
    while j < len(text) and text[j] == "#":
        j += 1
    return j < len(text) and text[j] == '"'


def raw_string_end(text: str, start: int) -> int:
    """``rawStrLitFnAux`` for ``r#…#"`` at ``start``: the offset after ``"`` and as many ``#``."""
    j = start + 1
    while text[j] == "#":
        j += 1
    hashes = j - start - 1
    close = text.find('"' + "#" * hashes, j + 1)
    if close < 0:
        raise UnterminatedLiteral("unterminated raw string literal", start)
    return close + 1 + hashes


def ident_end(text: str, i: int) -> int:
    """``identFnAux`` from ``i``: parts ``isIdFirst isIdRest*`` or ``«…»`` joined by ``.`` (``isIdCont``)."""
    n = len(text)
    while True:
        if text[i] == "«":
            close = text.find("»", i + 1)
            if close < 0:
                raise UnterminatedLiteral("unterminated identifier escape", i)
            if "\n" in text[i:close]:
                raise AmbiguousText("a newline inside «…»: burnqed reads Lean text line by line", i)
            i = close + 1
        else:
            i += 1
            while i < n and is_id_rest(text[i]):
                i += 1
        if i + 1 < n and text[i] == "." and (is_id_first(text[i + 1]) or text[i + 1] == "«"):
            i += 1
            continue
        return i


def number_end(text: str, i: int) -> int:
    """``numberFnAux`` from ``i`` (a digit): binary, octal, hexadecimal, decimal or scientific."""
    n = len(text)

    def digits(j: int, ok: str | None, need: bool) -> int:
        k = j
        while k < n and (text[k].isascii() and (text[k] in ok if ok else text[k].isdigit()) or text[k] == "_"):
            if text[k] == "_":
                raise AmbiguousText("`_` inside a numeral (its reading depends on Lean's version)", k)
            k += 1
        if need and k == j:
            raise InvalidLiteral("a numeral needs digits after its base prefix", j)
        return k

    if text[i] == "0" and i + 1 < n and text[i + 1] in "bBoOxX":
        base = {"b": "01", "o": "01234567", "x": "0123456789abcdefABCDEF"}[text[i + 1].lower()]
        return digits(i + 2, base, need=True)
    j = digits(i, None, need=False)
    if j < n and text[j] == ".":
        j += 1
        j = digits(j, None, need=False)
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        if not (j < n and "0" <= text[j] <= "9"):
            raise InvalidLiteral("missing exponent digits in scientific literal", j)
        j = digits(j, None, need=False)
    return j


def _blank(c: str) -> bool:
    return c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp")


def lex(text: str) -> tuple[Segment, ...]:
    """``text`` as code, comment and literal segments, read as Lean reads it, or a LexError."""
    out: list[Segment] = []
    n = len(text)
    i = code_from = 0
    prev, prev_char = "start", ""  # what ended just before i: start, space, comment, word, literal, symbol

    def emit(kind: SegmentKind, start: int, end: int) -> None:
        if code_from < start:
            out.append(Segment("code", code_from, start))
        out.append(Segment(kind, start, end))

    def glued(what: str, at: int) -> None:
        if prev == "symbol" and prev_char not in _SAFE_BEFORE:
            raise AmbiguousText(f"`{what}` glued to `{prev_char}`: Lean's reading depends on its token table", at)

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c in " \n":
            i += 1
            prev = "space"
            continue
        if c == "\t":
            raise ForbiddenCharacter("a tab outside comments (Lean: tabs are not allowed)", i)
        if _blank(c):
            raise ForbiddenCharacter(f"the character U+{ord(c):04X} outside comments is no whitespace to Lean", i)
        if c == "-" and nxt == "-":
            glued("--", i)
            end = text.find("\n", i)
            end = n if end < 0 else end
            emit("line_comment", i, end)
        elif c == "/" and nxt == "-":
            glued("/-", i)
            third = text[i + 2] if i + 2 < n else ""
            if third and third in "-!":
                kind: SegmentKind = "doc_comment" if third == "-" else "module_doc"
                end = block_comment_end(text, i + 3, i)
            else:
                kind = "block_comment"
                end = block_comment_end(text, i + 2, i)
            emit(kind, i, end)
        elif c == '"':
            end = string_end(text, i)
            emit("string", i, end)
        elif c == "'" and nxt == "'":  # `''` is no character literal: a token (Mathlib's image `''`)
            if prev == "symbol" and prev_char not in _SAFE_BEFORE:
                raise AmbiguousText(f"`''` glued to `{prev_char}`: which token it ends depends on the table", i)
            i += 2
            prev, prev_char = "symbol", "'"
            continue
        elif c == "'":
            if prev == "symbol" and prev_char not in _SAFE_BEFORE:
                literal = True
                try:
                    char_end(text, i)
                except LexError:
                    literal = False
                if not literal and text.endswith("⁻¹", 0, i):  # Mathlib's preimage token `⁻¹'`
                    i += 1
                    prev, prev_char = "symbol", "'"
                    continue
                raise AmbiguousText(f"`'` glued to `{prev_char}`: a token or a character literal", i)
            end = char_end(text, i)
            emit("char", i, end)
        elif c == "r" and raw_string_start(text, i):
            end = raw_string_end(text, i)
            emit("string", i, end)
        elif c == "`" and (is_id_first(nxt) or nxt == "«"):  # a name literal: `r"…"` after it is a name
            i = ident_end(text, i + 1)
            prev = "word"
            continue
        elif c == "«" or is_id_first(c):
            i = ident_end(text, i)
            prev = "word"
            continue
        elif "0" <= c <= "9":
            if prev == "symbol" and prev_char == ".":  # a projection `h.2.elim`: fieldIdx reads digits only
                while i < n and "0" <= text[i] <= "9":
                    i += 1
            else:
                i = number_end(text, i)
            prev = "word"
            continue
        else:
            i += 1
            prev, prev_char = "symbol", c
            continue
        i = code_from = end
        prev = "comment" if out[-1].kind in COMMENT_KINDS else "literal"
    if code_from < n:
        out.append(Segment("code", code_from, n))
    segments = tuple(out)
    _check_doc_comments(text, segments)
    return segments


def _next_word(text: str, segments: tuple[Segment, ...], index: int) -> str:
    """The first token-ish word of code after ``segments[index]``, skipping comments; ``""`` at the end."""
    for seg in segments[index + 1 :]:
        if seg.kind in COMMENT_KINDS:
            if seg.kind in ("doc_comment", "module_doc"):
                return text[seg.start : seg.start + 3]
            continue
        if seg.kind != "code":
            return text[seg.start : seg.start + 1]
        body = text[seg.start : seg.end].lstrip(" \n")
        if not body:
            continue
        if body.startswith("@["):
            return "@["
        word = ""
        for ch in body:
            if not is_id_rest(ch):
                break
            word += ch
        return word or body[0]
    return ""


def _check_doc_comments(text: str, segments: tuple[Segment, ...]) -> None:
    for index, seg in enumerate(segments):
        if seg.kind == "doc_comment":
            word = _next_word(text, segments, index)
            if word not in DOC_TARGETS:
                raise MisplacedDocComment(f"a doc comment `/--` before `{word[:40]}`, not a declaration", seg.start)
        elif seg.kind == "module_doc":
            line_start = text.rfind("\n", 0, seg.start) + 1
            word = _next_word(text, segments, index)
            if text[line_start : seg.start].strip(" ") or (word and word not in COMMAND_STARTS):
                raise MisplacedDocComment("a module doc `/-!` must stand on its own line between commands", seg.start)


def blank_comments(text: str) -> str:
    """``text`` with every comment (``--``, ``/- -/``, ``/-- -/``, ``/-! -/``) blanked, offsets and newlines kept."""
    parts: list[str] = []
    for seg in lex(text):
        piece = text[seg.start : seg.end]
        if seg.kind in COMMENT_KINDS:
            piece = "".join("\n" if ch == "\n" else " " for ch in piece)
        parts.append(piece)
    return "".join(parts)


def code_only(text: str) -> str:
    """``text`` with comments and literals blanked: what a search for a word (``sorry``) should read."""
    parts: list[str] = []
    for seg in lex(text):
        piece = text[seg.start : seg.end]
        if seg.kind != "code":
            piece = "".join("\n" if ch == "\n" else " " for ch in piece)
        parts.append(piece)
    return "".join(parts)
