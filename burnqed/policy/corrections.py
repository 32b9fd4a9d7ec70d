"""The correction turn of whole-proof search: a failed proof's Lean errors fed back as the model's authors do.

Sources (format facts only; the code here is burnqed's own):

- ``goedel``: github.com/Goedel-LM/Goedel-Prover-V2 @2e9036e. The errors are rendered by
  ``get_error_str`` (src/utils.py:9-62): per error ``\\nError i:\\n\\nCorresponding Code:\\n```lean4\\n``,
  the four lines before the error, the error's lines with ``<error>``/``</error>`` at its start
  and end, the line after, the fence, then ``\\nError Message: <data>\\n``; with
  ``--error_thres`` (src/inference.py:25, default on) at most 8 errors, a multi-line error shows
  at most 6 of its lines then ``... --[Truncated]-- ...``, and ``... [Omitted N more errors] ...``
  follows. The turn (src/utils.py:363-377, ``DeepSeekCoTHandler``, used for the DeepSeek-style
  and Goedel prompts): the conversation so far, the failed answer as an assistant turn, then the
  user turn ``correction_message`` (src/utils.py:370-373).
- ``kimina``: github.com/MoonshotAI/Kimina-Prover-Preview @7abd61a,
  kimina_prover_demo/error_fix.py:109-120 (the failed answer as an assistant turn, then a user
  turn that is the formatted feedback alone) and kimina_prover_demo/utils.py:116-196
  (``create_tool_message``: the first 3 errors, each ``# Error i:``, the goals before the error,
  the message, and a snippet of the code less its import lines with numbered lines, ``>`` on the
  error's line).

What Lean reports and the embedded checker does not: the checker runs a proof tactic by tactic,
so an error's span is the whole failing tactic (Lean narrows it to the offending term), and a
proof that ends with goals left is reported as Lean does, ``unsolved goals`` at the ``by``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "CorrectionTurn",
    "LeanErrorSpan",
    "correction_message",
    "goedel_error_str",
    "kimina_feedback",
]

CorrectionFormat = Literal["goedel", "kimina", "none"]

# Goedel-Prover-V2 src/utils.py:18 and :47 (error_thres on, src/inference.py:25)
_GOEDEL_MAX_ERRORS = 8
_GOEDEL_SHOW_LINES = 6
# Kimina-Prover-Preview kimina_prover_demo/utils.py:127
_KIMINA_MAX_ERRORS = 3


class LeanErrorSpan(BaseModel):
    """One error as Lean reports it: 1-based line, 0-based column (``pos``/``endPos``), message, goals before."""

    model_config = ConfigDict(frozen=True)

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None
    message: str
    goals_before: str | None = None


class CorrectionTurn(BaseModel):
    """One failed round: the model's answer, the Lean file that was checked, and its errors."""

    model_config = ConfigDict(frozen=True)

    answer: str
    code: str
    errors: tuple[LeanErrorSpan, ...]


def correction_message(round_number: int, errors: str) -> str:
    """The user turn that feeds Lean's errors back (Goedel-Prover-V2 src/utils.py:370-373; Kimina handler :444-447)."""
    return (
        f"The proof (Round {round_number - 1}) is not correct. Following is the compilation error message, where we "
        f"use <error></error> to signal the position of the error.\n\n{errors}"
        "\n\nBefore producing the Lean 4 code to formally prove the given theorem, provide a detailed analysis of "
        "the error message."
    )


def goedel_error_str(code: str, errors: Sequence[LeanErrorSpan]) -> str:
    """The errors of ``code`` marked up as Goedel-Prover-V2's ``get_error_str`` does (error_thres on)."""
    lines = code.split("\n")
    out = ""
    for i, err in enumerate(errors[:_GOEDEL_MAX_ERRORS]):
        start, col = err.line - 1, err.column
        if err.end_line is None or err.end_column is None:
            end, end_col = start, len(lines[start])
        else:
            end, end_col = err.end_line - 1, err.end_column
        out += f"\nError {i + 1}:\n\nCorresponding Code:\n```lean4\n"
        snippet = "".join(f"{lines[start + k]}\n" for k in range(-4, 0) if start + k >= 0)
        if start != end:
            snippet += lines[start][:col] + "<error>" + lines[start][col:] + "\n"
            last = start
            for j in range(start + 1, min(end, start + _GOEDEL_SHOW_LINES)):
                snippet += f"{lines[j]}\n"
                last = j
            if end > start + _GOEDEL_SHOW_LINES:
                indent = len(lines[last]) - len(lines[last].lstrip(" "))
                snippet += "\n" + " " * indent + "... --[Truncated]-- ...\n"
            snippet += lines[end][:end_col] + "</error>" + lines[end][end_col:] + "\n"
        else:
            row = lines[start]
            snippet += row[:col] + "<error>" + row[col:end_col] + "</error>" + row[end_col:] + "\n"
        if end + 1 < len(lines):
            snippet += f"{lines[end + 1]}\n"
        out += snippet + "\n```\n" + f"\nError Message: {err.message}\n"
    if len(errors) > _GOEDEL_MAX_ERRORS:
        out += f"\n... [Omitted {len(errors) - _GOEDEL_MAX_ERRORS} more errors] ...\n"
    return out


def _without_imports(code: str) -> list[str]:
    """The code's lines after its leading ``import`` lines (Kimina's ``split_proof_header``, utils.py:4-22)."""
    lines = code.strip().split("\n")
    index = 0
    for line in lines:
        if not line.startswith("import"):
            break
        index += 1
    return lines[index:]


def kimina_feedback(code: str, errors: Sequence[LeanErrorSpan]) -> str:
    """The feedback turn of Kimina-Prover's error fixing (``create_tool_message``, utils.py:130-196)."""
    proof_lines = _without_imports(code)
    out = ""
    for i, err in enumerate(errors[:_KIMINA_MAX_ERRORS], 1):
        out += f"# Error {i}:\n"
        if err.goals_before:
            out += f"Goals state before error position: \n{err.goals_before}\n\n"
        out += f"Error message: \n{err.message.strip()}\n\n"
        # the authors index the import-less lines with Lean's line number (utils.py:157,166-175)
        line_num = err.line - 1
        snippet = "```lean4\n"
        for ln in range(max(0, line_num - 2), min(len(proof_lines), line_num + 3)):
            snippet += f"{ln + 1:03d}{' >' if ln == line_num else '  '}| {proof_lines[ln]}\n"
        out += f"Lean 4 code snippet with error:\n{snippet}```\n"
    return out


def feedback_text(fmt: CorrectionFormat, turn: CorrectionTurn, round_number: int) -> str:
    """The user turn that follows the failed answer of round ``round_number - 1``."""
    if fmt == "kimina":
        return kimina_feedback(turn.code, turn.errors)
    return correction_message(round_number, goedel_error_str(turn.code, turn.errors))
