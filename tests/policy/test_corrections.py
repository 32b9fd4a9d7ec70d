"""The correction turn: golden texts written by hand from the authors' cited lines
(Goedel-Prover-V2 @2e9036e src/utils.py:9-62, :363-377; Kimina-Prover-Preview @7abd61a
kimina_prover_demo/utils.py:116-196, error_fix.py:109-120), and the turns the presets render."""

from __future__ import annotations

from burnqed.data.theorems import Theorem
from burnqed.policy.corrections import CorrectionTurn, LeanErrorSpan, correction_message, goedel_error_str, kimina_feedback
from burnqed.policy.presets import chat_messages, get_preset, render_prompt
from burnqed.search.correction import ChainFailure, correction_turn
from burnqed.search.engine import prompt_context

THEOREM = Theorem(name="t", statement="True ∧ (1 = 1)")
CODE = "theorem t : True ∧ (1 = 1) := by\n  constructor\n  trivial\n  bogus\n"
BOGUS = LeanErrorSpan(line=4, column=2, end_line=4, end_column=7, message="unknown tactic", goals_before="⊢ 1 = 1")

# get_error_str: "\nError 1:\n", "\nCorresponding Code:\n```lean4\n", the 4 lines before (3 exist), the line
# with <error>…</error>, the line after (the file's trailing empty line), "\n```\n", "\nError Message: …\n"
GOEDEL_BOGUS = (
    "\nError 1:\n\nCorresponding Code:\n```lean4\n"
    "theorem t : True ∧ (1 = 1) := by\n  constructor\n  trivial\n  <error>bogus</error>\n\n"
    "\n```\n\nError Message: unknown tactic\n"
)
# utils.py:370-373
GOEDEL_TURN = (
    "The proof (Round 0) is not correct. Following is the compilation error message, where we use <error></error> "
    "to signal the position of the error.\n\n" + GOEDEL_BOGUS + "\n\nBefore producing the Lean 4 code to formally "
    "prove the given theorem, provide a detailed analysis of the error message."
)
# create_tool_message: "# Error 1:\n", goals, message, numbered snippet (2 before, 2 after, `>` on the line)
KIMINA_BOGUS = (
    "# Error 1:\nGoals state before error position: \n⊢ 1 = 1\n\nError message: \nunknown tactic\n\n"
    "Lean 4 code snippet with error:\n```lean4\n002  |   constructor\n003  |   trivial\n004 >|   bogus\n```\n"
)


def test_goedel_error_string_marks_the_failed_tactic() -> None:
    assert goedel_error_str(CODE, [BOGUS]) == GOEDEL_BOGUS
    assert correction_message(1, GOEDEL_BOGUS) == GOEDEL_TURN


def test_goedel_error_string_truncates_a_long_error_and_omits_errors_past_eight() -> None:
    code = "a0\na1\na2\na3\n" + "".join(f"  b{i}\n" for i in range(4, 12)) + "z12"
    span = LeanErrorSpan(line=4, column=1, end_line=12, end_column=3, message="m")
    want = (
        "\nError 1:\n\nCorresponding Code:\n```lean4\na0\na1\na2\na<error>3\n  b4\n  b5\n  b6\n  b7\n  b8\n"
        "\n  ... --[Truncated]-- ...\n  b</error>11\nz12\n\n```\n\nError Message: m\n"
    )
    assert goedel_error_str(code, [span]) == want
    many = goedel_error_str(code, [LeanErrorSpan(line=1, column=0, end_line=1, end_column=2, message="e")] * 9)
    assert many.count("\nError Message: e\n") == 8 and many.endswith("\n... [Omitted 1 more errors] ...\n")


def test_kimina_feedback_as_create_tool_message() -> None:
    assert kimina_feedback(CODE, [BOGUS]) == KIMINA_BOGUS


def test_a_failed_chain_is_reported_at_its_tactic_or_as_unsolved_goals_at_by() -> None:
    failed = correction_turn(THEOREM, ChainFailure(("constructor", "trivial", "bogus"), 2, "unknown tactic", "⊢ 1 = 1"), None)
    assert failed.code == CODE and failed.errors == (BOGUS,)
    assert failed.answer == "```lean4\n" + CODE.rstrip() + "\n```"  # no raw text: the proof in a fence
    left = correction_turn(THEOREM, ChainFailure(("constructor", "trivial"), None, "unsolved goals\n⊢ 1 = 1", "⊢ 1 = 1"), "A")
    assert left.answer == "A"
    (span,) = left.errors
    assert (span.line, span.column, span.end_line, span.end_column) == (1, 30, 3, 9)
    assert goedel_error_str(left.code, left.errors).startswith(
        "\nError 1:\n\nCorresponding Code:\n```lean4\ntheorem t : True ∧ (1 = 1) := <error>by\n  constructor\n  trivial</error>\n"
    )


def _ctx(*turns: CorrectionTurn):  # type: ignore[no-untyped-def]
    return prompt_context(THEOREM, "⊢ True ∧ 1 = 1", [], want="proof").model_copy(update={"corrections": turns})


def test_chat_presets_append_the_failed_answer_and_the_errors_in_their_authors_format() -> None:
    turn = CorrectionTurn(answer="my proof", code=CODE, errors=(BOGUS,))
    goedel = chat_messages(get_preset("goedel-prover-v2"), _ctx(turn, turn))
    first = chat_messages(get_preset("goedel-prover-v2"), _ctx())
    assert goedel[: len(first)] == first
    assert goedel[len(first) :] == [
        {"role": "assistant", "content": "my proof"},
        {"role": "user", "content": GOEDEL_TURN},
        {"role": "assistant", "content": "my proof"},
        {"role": "user", "content": GOEDEL_TURN.replace("(Round 0)", "(Round 1)")},
    ]
    rendered = render_prompt(get_preset("goedel-prover-v2"), _ctx(turn))
    assert rendered.endswith(
        f"<|im_start|>assistant\nmy proof<|im_end|>\n<|im_start|>user\n{GOEDEL_TURN}<|im_end|>\n<|im_start|>assistant\n"
    )
    kimina = chat_messages(get_preset("kimina-prover-distill"), _ctx(turn))
    assert kimina[0]["role"] == "system" and kimina[2:] == [
        {"role": "assistant", "content": "my proof"},
        {"role": "user", "content": KIMINA_BOGUS},
    ]
    dsv2 = render_prompt(get_preset("deepseek-prover-v2"), _ctx(turn))
    assert dsv2.endswith(f"<｜Assistant｜>my proof<｜end▁of▁sentence｜><｜User｜>{GOEDEL_TURN}<｜Assistant｜>")


def test_presets_without_an_authors_correction_turn_are_asked_afresh() -> None:
    turn = CorrectionTurn(answer="my proof", code=CODE, errors=(BOGUS,))
    for name in ("plain", "deepseek-prover-v1.5", "bfs-prover-v2"):
        preset = get_preset(name)
        assert preset.correction == "none"
        assert render_prompt(preset, _ctx(turn)) == render_prompt(preset, _ctx())
