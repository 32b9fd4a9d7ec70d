"""Prompt formats, smart truncation and first-tactic extraction."""

from __future__ import annotations

import pytest

from burnqed.policy.model import PolicyModel
from burnqed.policy.prompts import (
    OMITTED,
    completion_text,
    extract_first_tactic,
    fit_state,
    format_prompt,
)


def test_plain_prompt_wraps_state_in_goal_and_proofstep_markers() -> None:
    assert format_prompt("n : ℕ\n⊢ n + 0 = n") == "[GOAL]n : ℕ\n⊢ n + 0 = n[PROOFSTEP]"


def test_deepseek_prompt_puts_state_in_lean_comment_inside_lean4_fence(tiny_policy: PolicyModel) -> None:
    text = format_prompt("⊢ True", "deepseek-v2", tokenizer=tiny_policy.tokenizer)
    assert text.startswith("<s><|user|>")
    assert "```lean4\n/- tactic state:\n⊢ True\n-/\n```" in text
    assert text.endswith("<|assistant|>")


def test_deepseek_prompt_without_chat_template_uses_deepseek_turn_markers() -> None:
    text = format_prompt("⊢ True", "deepseek-v2")
    assert text.startswith("<｜begin▁of▁sentence｜><｜User｜>") and text.endswith("<｜Assistant｜>")


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown prompt format"):
        format_prompt("⊢ True", "lean3")  # type: ignore[arg-type]


def test_completion_text_per_format() -> None:
    assert completion_text("simp") == "simp"
    assert extract_first_tactic(completion_text("intro n", "deepseek-v2")) == "intro n"


def _count(policy: PolicyModel, text: str) -> int:
    return len(policy.tokenizer(text, add_special_tokens=False)["input_ids"])


def test_short_state_is_left_alone(tiny_policy: PolicyModel) -> None:
    state = "h : P\n⊢ P"
    assert fit_state(state, tiny_policy.tokenizer, 100) == state


def test_long_state_keeps_target_and_nearest_hypotheses(tiny_policy: PolicyModel) -> None:
    hyps = [f"h{i} : x{i} + {i} = {i} + x{i}" for i in range(40)]
    state = "\n".join([*hyps, "⊢ x0 + x39 = x39 + x0"])
    fitted = fit_state(state, tiny_policy.tokenizer, 60)
    lines = fitted.split("\n")
    assert _count(tiny_policy, fitted) <= 60
    assert lines[0] == OMITTED
    assert lines[-1] == "⊢ x0 + x39 = x39 + x0"
    assert lines[-2] == hyps[-1]  # nearest hypothesis kept
    assert hyps[0] not in lines
    assert all(line in hyps for line in lines[1:-1])  # whole lines only


def test_extra_goals_are_dropped_before_the_first_goal_is_cut(tiny_policy: PolicyModel) -> None:
    first = "a b : ℕ\n⊢ a + b = b + a"
    state = first + "\n\n" + "\n\n".join(f"c{i} : ℕ\n⊢ c{i} * 1 = c{i}" for i in range(30))
    fitted = fit_state(state, tiny_policy.tokenizer, 40)
    assert fitted.startswith(first)
    assert fitted.endswith(OMITTED)
    assert _count(tiny_policy, fitted) <= 40


def test_overlong_target_is_cut_at_a_token_boundary_without_broken_characters(tiny_policy: PolicyModel) -> None:
    target = "⊢ " + " ∧ ".join(f"(∀ (n{i} : ℕ), n{i} + 0 = n{i})" for i in range(40))
    fitted = fit_state(target, tiny_policy.tokenizer, 30)
    assert fitted.endswith(OMITTED)
    body = fitted[: -len(OMITTED)]
    assert target.startswith(body) and len(body) > 10
    assert "\ufffd" not in fitted
    assert _count(tiny_policy, fitted) <= 30


def test_prompt_budget_counts_the_template(tiny_policy: PolicyModel) -> None:
    state = "\n".join(f"h{i} : P{i}" for i in range(80)) + "\n⊢ Q"
    prompt = format_prompt(state, "plain", tokenizer=tiny_policy.tokenizer, max_tokens=50)
    assert _count(tiny_policy, prompt) <= 50
    assert prompt.endswith("⊢ Q[PROOFSTEP]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("simp", "simp"),
        ("  intro n  \nsimp", "intro n"),
        ("```lean4\nomega\n```", "omega"),
        ("Here it is:\n```lean\nlinarith [h]\nsimp\n```\nmore text", "linarith [h]"),
        ("```lean4\ntheorem foo (n : ℕ) : n + 0 = n := by\n  simp\n  rfl\n```", "simp"),
        ("theorem foo : True := by trivial", "trivial"),
        ("lemma bar (a b : ℤ) :\n    a + b = b + a := by\n  -- commute\n  ring", "ring"),
        ("example : 1 = 1 := rfl", "rfl"),
        ("by exact h", "exact h"),
        ("/- a comment\n spanning lines -/\nnorm_num -- trailing", "norm_num"),
        ("· simp at h", "simp at h"),
        ("rw [Nat.add_comm,\n  Nat.mul_comm]\nrfl", "rw [Nat.add_comm,\n  Nat.mul_comm]"),
        ("have h2 : 0 < 1 := by\n    norm_num\nexact h2", "have h2 : 0 < 1 := by\n    norm_num"),
        ("sorry", ""),
        ("```lean4\ntheorem foo : True :=\n```", ""),
        ("", ""),
        ("   \n\n", ""),
        ("-- only a comment", ""),
    ],
)
def test_extract_first_tactic(text: str, expected: str) -> None:
    assert extract_first_tactic(text) == expected


def test_prose_has_no_tactic_when_a_fence_is_required() -> None:
    assert extract_first_tactic("The next step is to simplify.", require_fence=True) == ""
    assert extract_first_tactic("Use this:\n```lean4\nsimp\n```", require_fence=True) == "simp"
    assert extract_first_tactic("```lean4\nomega", require_fence=True) == "omega"  # cut off by max_new_tokens
