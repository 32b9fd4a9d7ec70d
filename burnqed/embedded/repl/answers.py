"""The REPL answers the checker and its frontend both build: an error answer, the interrupt
answer, a message placed as the embedded checker can place it."""

from __future__ import annotations

from burnqed.embedded.repl.refusal import FILE_NAME
from burnqed.lean.protocol import Message, Position, ReplErrorAnswer

__all__ = ["INTERRUPT", "error_answer", "tactic_message"]

INTERRUPT = ReplErrorAnswer(error="internal", desc="interrupt")
"""What a request that ran past the ``timeout`` option answers (as Pantograph does)."""


def error_answer(kind: str, desc: str) -> ReplErrorAnswer:
    """A REPL error answer (``{"error": kind, "desc": desc}``)."""
    return ReplErrorAnswer(error=kind, desc=desc)


def tactic_message(severity: str, data: str) -> Message:
    """A message with the fields of Lean's SerialMessage (the embedded checker has no
    source positions inside a tactic: it reports the start of the tactic text)."""
    return Message(
        severity=severity,  # type: ignore[arg-type]
        data=data,
        file_name=FILE_NAME,
        pos=Position(line=1, column=0),
        keep_full_range=False,
        caption="",
    )
