"""Where a whole proof failed, as Lean would report it: the file, the error's span and message.

The correction round of whole mode (``search.correction_rounds``) hands the model its failed
answer with these errors, in its preset's format (burnqed/policy/corrections.py). The checker
runs a proof tactic by tactic, so the error of a refused tactic spans that whole tactic, and a
proof whose tactics all ran with goals left gets Lean's ``unsolved goals`` error at its ``by``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from burnqed.data.theorems import Theorem
from burnqed.policy.corrections import CorrectionTurn, LeanErrorSpan

__all__ = ["ChainFailure", "correction_turn"]


@dataclass(frozen=True, slots=True)
class ChainFailure:
    """A whole-proof candidate that did not prove: its tactics from the root, the refused one, why."""

    tactics: tuple[str, ...]
    failed: int | None  # index of the refused tactic; None: every tactic ran and goals are left
    message: str
    state: str  # the goals before the refused tactic (or those left)


def _block_lines(tactics: Sequence[str]) -> list[int]:
    """How many lines each tactic takes in the file's tactic block."""
    return [len(t.splitlines()) or 1 for t in tactics]


def correction_turn(theorem: Theorem, failure: ChainFailure, answer: str | None) -> CorrectionTurn:
    """The failed round as the correction turn shows it (``answer``: the model's text; else the proof in a fence)."""
    tactics = list(failure.tactics)
    try:
        code = theorem.lean_file(tactics)
    except ValueError:  # a statement the assembler cannot read: the declaration as the prompt showed it
        code = f"theorem {theorem.name} : {theorem.statement} := by\n" + "\n".join("  " + t for t in tactics) + "\n"
    lines = code.split("\n")
    sizes = _block_lines(tactics)
    by_line = len(lines) - 2 - sum(sizes)  # 0-based index of the line ending in `:= by`
    if failure.failed is None:
        column = max(lines[by_line].rfind("by"), 0)
        last = len(lines) - 2
        span = LeanErrorSpan(
            line=by_line + 1,
            column=column,
            end_line=last + 1,
            end_column=len(lines[last]),
            message=failure.message,
            goals_before=failure.state,
        )
    else:
        start = by_line + 1 + sum(sizes[: failure.failed])
        end = start + sizes[failure.failed] - 1
        indent = len(lines[start]) - len(lines[start].lstrip(" "))
        span = LeanErrorSpan(
            line=start + 1,
            column=indent,
            end_line=end + 1,
            end_column=len(lines[end]),
            message=failure.message,
            goals_before=failure.state,
        )
    shown = answer if answer is not None else f"```lean4\n{code.rstrip()}\n```"
    return CorrectionTurn(answer=shown, code=code, errors=(span,))
