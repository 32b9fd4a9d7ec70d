"""Why the embedded checker refuses a statement: malformed text, or text beyond its fragment.

The difference matters to eval: a statement with ℝ, ∑ or a Mathlib constant is not a search
failure but a typed "outside the embedded fragment" outcome (burnqed.lean.errors.OUTSIDE_FRAGMENT),
which real Lean may well accept. The prefix travels in the REPL's error text, as Lean's own would.
"""

from __future__ import annotations

from dataclasses import dataclass

from burnqed.embedded.elab.elaborate import ElabError, position
from burnqed.embedded.syntax.parser import ParseError
from burnqed.lean.errors import OUTSIDE_FRAGMENT

__all__ = ["FILE_NAME", "Refusal", "refusal"]

FILE_NAME = "<Pantograph>"
"""The file name Pantograph's goal.start errors carry."""


@dataclass(frozen=True)
class Refusal:
    """Why a statement text was refused: ``error`` is the REPL's type (parsing / elab), ``pos``
    the 0-based character offset in the text, ``message`` the explanation, which begins with
    ``outside the embedded fragment: `` when the statement uses what the fragment cannot
    express (real Lean may well take it)."""

    error: str
    pos: int
    message: str

    @property
    def outside(self) -> bool:
        """Whether the statement is beyond the fragment rather than malformed."""
        return self.message.startswith(OUTSIDE_FRAGMENT)

    def desc(self, text: str) -> str:
        """The goal.start error text: ``<Pantograph>:LINE:COL: message``."""
        line, col = position(text, self.pos)
        return f"{FILE_NAME}:{line}:{col}: {self.message}"


# ElabError messages naming a type, construct or constant the fragment lacks
_OUTSIDE_ELAB = ("unsupported", "unknown identifier", "unknown constant")
# ParseErrors that are plain malformation, whatever the fragment: cut-off or unbalanced text, limits
_MALFORMED_PARSE = (
    "unexpected end of input",
    "unterminated",
    "invalid escaped identifier",
    "maximum nesting depth",
    "input longer than",
    "numeral with more than",
)
_PAIRS = {")": "(", "]": "[", "}": "{", "⟩": "⟨"}


def _balanced(text: str) -> bool:
    """Whether the brackets of ``text`` pair up: unbalanced text is cut off or mistyped."""
    stack: list[str] = []
    for ch in text:
        if ch in "([{⟨":
            stack.append(ch)
        elif ch in _PAIRS and (not stack or stack.pop() != _PAIRS[ch]):
            return False
    return not stack


def _outside(exc: ParseError | ElabError, text: str) -> bool:
    """Whether a refusal says the statement is beyond the fragment (ℝ, ∑, Finset.range, √, an
    unknown constant, a tuple, ℕ+) rather than malformed (cut off, unbalanced, past a limit).
    Lean's grammar is far larger than the fragment's, so an unexpected token in well-bracketed
    text is taken for notation the fragment lacks."""
    message = exc.message
    if isinstance(exc, ElabError):
        return message.startswith(_OUTSIDE_ELAB)
    if message.startswith(_MALFORMED_PARSE) or "unterminated" in message:
        return False
    return _balanced(text)


def refusal(kind: str, exc: ParseError | ElabError, text: str) -> Refusal:
    """The Refusal for a parse or elaboration error in ``text``, marked outside the fragment when it is."""
    message = f"{OUTSIDE_FRAGMENT}: {exc.message}" if _outside(exc, text) else exc.message
    return Refusal(kind, exc.pos, message)
