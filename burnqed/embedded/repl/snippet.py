"""A Lean snippet cut into commands, as the embedded frontend.process reads it.

A command starts at a line with no indentation that holds more than a comment; indented lines
continue it, and an ``open ... in`` / ``set_option ... in`` line joins the command after it.
Offsets are characters into the text; ``Source.byte`` turns them into Lean's UTF-8 byte offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from burnqed.embedded.elab.elaborate import position
from burnqed.lean.protocol import Message, Position

__all__ = ["COMMAND_WORDS", "Source", "command_starts", "first_line", "first_word", "is_header_command"]

# `open Real in` / `set_option maxHeartbeats 400000 in`: a prefix of the next command
_IN_PREFIX = re.compile(r"(?:open|set_option)\s[^\n]*\sin")
_MODULE = re.compile(r"[^\W\d][\w'.]*")
# words that begin a command: after a scope command on its line, Lean reads a second command
COMMAND_WORDS = frozenset(
    {
        "theorem", "lemma", "example", "def", "axiom", "axioms", "instance", "abbrev", "structure",
        "class", "inductive", "variable", "opaque", "macro", "macro_rules", "syntax", "notation",
        "infix", "infixl", "infixr", "prefix", "postfix", "elab", "attribute", "import", "open",
        "set_option", "namespace", "section", "end", "universe", "noncomputable", "mutual",
        "private", "protected", "local", "export", "initialize", "deriving",
    }
)  # fmt: skip


@dataclass
class Source:
    """The snippet: its text, the text with comments blanked (offsets kept) and its file name."""

    text: str
    clean: str
    name: str

    def byte(self, offset: int) -> int:
        """The UTF-8 byte offset of a character offset."""
        return len(self.text[:offset].encode("utf-8"))

    def message(self, severity: str, data: str, offset: int) -> Message:
        """A Lean message at a character offset of the text."""
        line, column = position(self.text, offset)
        return Message(
            severity=severity,  # type: ignore[arg-type]
            data=data,
            file_name=self.name,
            pos=Position(line=line, column=column),
            keep_full_range=False,
            caption="",
        )


def command_starts(src: Source, begin: int) -> list[int]:
    """Offsets where the commands from ``begin`` start: lines that are not indented and hold
    more than a comment. An ``open ... in`` line joins the command after it."""
    starts: list[int] = []
    offset = begin
    for line in src.text[begin:].split("\n"):  # Lean's lines end at LF only
        clean = src.clean[offset : offset + len(line)]
        if line[:1] and not line[0].isspace() and clean.strip():
            starts.append(offset)
        offset += len(line) + 1
    merged: list[int] = []
    for start in starts:
        if merged and _IN_PREFIX.fullmatch(first_line(src.clean, merged[-1])):
            continue  # the prefix line and this command are one command
        merged.append(start)
    return merged


def is_header_command(command: str) -> bool:
    """Whether a command is imports only (``import A``, ``import A import B``): anything else
    on the line would be a command of its own, never to be swallowed by the header."""
    words = command.split()
    return (
        len(words) % 2 == 0
        and all(w == "import" for w in words[0::2])
        and not any(w in COMMAND_WORDS or not _MODULE.fullmatch(w) for w in words[1::2])
    )


def first_line(clean: str, start: int) -> str:
    """The line of ``clean`` from ``start``, stripped."""
    end = clean.find("\n", start)
    return clean[start : len(clean) if end < 0 else end].strip()


def first_word(text: str) -> str:
    """The first word of ``text`` (empty when there is none)."""
    words = text.split(maxsplit=1)
    return words[0] if words else ""
