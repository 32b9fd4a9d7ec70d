"""Prompt formats, smart truncation of long proof states, and first-tactic extraction.

Two formats:

- ``plain``: ``[GOAL]<state>[PROOFSTEP]`` and the model answers ``<tactic>`` then EOS;
  the tiny model's format.
- ``deepseek-v2``: the model's chat template around a user message that holds the tactic
  state as a Lean comment block inside a ``lean4`` code fence; the model answers with Lean
  code, from which the first tactic is extracted. This is burnqed's own prompt, not the one
  DeepSeek-Prover-V2 was trained on: the ``deepseek-prover-v2`` preset (presets.py) is that.

A state longer than the prompt budget keeps its first goal's target (``⊢ ...``) and as many
of the hypotheses nearest to it as fit; cuts happen at line or token boundaries only.
"""

from __future__ import annotations

import re
from typing import Any, Literal

__all__ = [
    "OMITTED",
    "PromptFormat",
    "completion_text",
    "extract_first_tactic",
    "fit_state",
    "format_prompt",
]

PromptFormat = Literal["plain", "deepseek-v2"]

OMITTED = "…"  # marks hypotheses, goals or target text left out of a truncated state

_DEEPSEEK_INSTRUCTION = "Complete the following Lean 4 code by giving the next tactic for this proof state:"
# used only when a tokenizer has no chat template (DeepSeek-V3 style turn markers)
_DEEPSEEK_FALLBACK = "<｜begin▁of▁sentence｜><｜User｜>{content}<｜Assistant｜>"


def _user_message(state: str) -> str:
    return f"{_DEEPSEEK_INSTRUCTION}\n\n```lean4\n/- tactic state:\n{state}\n-/\n```"


def _render(state: str, prompt_format: PromptFormat, tokenizer: Any | None) -> str:
    if prompt_format == "plain":
        return f"[GOAL]{state}[PROOFSTEP]"
    if prompt_format == "deepseek-v2":
        content = _user_message(state)
        if tokenizer is not None and getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": content}], tokenize=False, add_generation_prompt=True
            )
            return str(text)
        return _DEEPSEEK_FALLBACK.format(content=content)
    raise ValueError(f"unknown prompt format {prompt_format!r} (plain | deepseek-v2)")


def _count(tokenizer: Any, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _cut_to_tokens(tokenizer: Any, text: str, budget: int) -> str:
    """The longest token-aligned prefix of ``text`` within ``budget`` tokens (no split characters)."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    for k in range(min(budget, len(ids)), 0, -1):
        prefix = tokenizer.decode(ids[:k], skip_special_tokens=True, clean_up_tokenization_spaces=False)
        # a byte-level token may end inside a multi-byte character: back off to a whole one
        if "\ufffd" not in prefix or "\ufffd" in text:
            return prefix
    return ""


def _split_goal(goal: str) -> tuple[list[str], list[str]]:
    """Hypothesis lines and target lines (from the first ``⊢`` on) of one rendered goal."""
    lines = goal.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("⊢"):
            return lines[:i], lines[i:]
    return lines[:-1], lines[-1:]


def fit_state(state: str, tokenizer: Any, max_tokens: int) -> str:
    """``state`` shortened to at most ``max_tokens`` tokens, keeping the first goal's target.

    Hypotheses are dropped from the farthest (first) to the nearest; other goals are kept
    only if they fit whole; a target that alone is too long is cut at a token boundary.
    Every omission is marked with ``…``.
    """
    # a byte-level token covers at least one byte: short texts need no tokenizer call
    if len(state.encode("utf-8")) < max_tokens or _count(tokenizer, state) <= max_tokens:
        return state
    goals = [g for g in re.split(r"\n\s*\n", state.strip("\n")) if g.strip()]
    hyps, target_lines = _split_goal(goals[0])
    target = "\n".join(target_lines)
    marker_cost = _count(tokenizer, f"{OMITTED}\n")
    if _count(tokenizer, target) + marker_cost > max_tokens:
        return _cut_to_tokens(tokenizer, target, max(1, max_tokens - marker_cost)) + OMITTED
    kept: list[str] = []
    for line in reversed(hyps):
        candidate = "\n".join([OMITTED, line, *kept, target])
        if _count(tokenizer, candidate) > max_tokens:
            break
        kept.insert(0, line)
    head = kept if len(kept) == len(hyps) else [OMITTED, *kept]
    text = "\n".join([*head, target])
    for i, goal in enumerate(goals[1:], start=1):
        more = f"{text}\n\n{goal}"
        tail = f"\n\n{OMITTED}" if i < len(goals) - 1 else ""
        if _count(tokenizer, more + tail) > max_tokens:
            return f"{text}\n\n{OMITTED}"
        text = more
    return text


def format_prompt(
    state: str,
    prompt_format: PromptFormat = "plain",
    *,
    tokenizer: Any | None = None,
    max_tokens: int | None = None,
) -> str:
    """The prompt for one proof state; with a tokenizer and ``max_tokens`` the state is fitted."""
    if tokenizer is not None and max_tokens is not None:
        overhead = _count(tokenizer, _render("", prompt_format, tokenizer))
        state = fit_state(state, tokenizer, max(8, max_tokens - overhead))
    return _render(state, prompt_format, tokenizer)


def completion_text(tactic: str, prompt_format: PromptFormat = "plain") -> str:
    """What the model should answer for ``tactic`` (the SFT target, without EOS)."""
    if prompt_format == "plain":
        return tactic
    return f"```lean4\n{tactic}\n```"


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_BLOCK_COMMENT = re.compile(r"/-.*?(?:-/|\Z)", re.DOTALL)
_LINE_COMMENT = re.compile(r"--.*$", re.MULTILINE)
_HEADER = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?(?:theorem|lemma|example)\b", re.MULTILINE)
_BY = re.compile(r"^by\b\s*")
_BULLET = re.compile(r"^[·.]\s+")
_NOT_TACTICS = {"sorry", "admit", "done"}


def _balanced(text: str) -> bool:
    return sum(text.count(c) for c in "([{⟨") <= sum(text.count(c) for c in ")]}⟩")


def extract_first_tactic(text: str, *, require_fence: bool = False) -> str:
    """The first tactic of a model's answer, or ``""`` when there is none.

    Handles code fences (the first one wins), theorem/lemma/example headers (everything up
    to ``:=``), a leading ``by``, Lean comments, focusing bullets, and tactics continued on
    more-indented lines or inside open brackets. ``sorry``/``admit`` are never tactics.
    With ``require_fence`` an answer without a code fence (prose) has no tactic.
    """
    fence = _FENCE.search(text)
    if fence is None and require_fence:
        return ""
    body = fence.group(1) if fence else text.split("```")[0]
    body = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", body))
    header = _HEADER.search(body)
    if header:
        assign = body.find(":=", header.end())
        if assign < 0:
            return ""
        body = body[assign + 2 :]
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    first = lines[0]
    stripped = _BY.sub("", first.strip())
    if not stripped:  # `:= by` ending its line: the tactic block starts on the next line
        return extract_first_tactic("\n".join(lines[1:])) if len(lines) > 1 else ""
    indent = len(first) - len(first.lstrip())
    parts = [_BULLET.sub("", stripped)]
    for line in lines[1:]:
        if not line.strip():
            continue
        deeper = len(line) - len(line.lstrip()) > indent
        if deeper or not _balanced("\n".join(parts)):
            parts.append(line[indent:] if deeper else line.strip())
        else:
            break
    tactic = "\n".join(parts).strip()
    return "" if tactic in _NOT_TACTICS else tactic
