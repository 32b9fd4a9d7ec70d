"""Chat turns written out with a model family's markers, for when no tokenizer with a chat template is at hand.

Each family's markers are written as its chat template renders the turns the chat presets send
(system, user, assistant, then the generation prompt); tests/policy/test_chat_templates.py pins
them against the templates through a tiny tokenizer. Sources (format facts only):

- ``chatml``: Qwen3's template, Qwen/Qwen3-0.6B's as Hugging Face's tests hold it,
  github.com/huggingface/huggingface.js @fe42e68 packages/jinja/test/e2e.test.js:822 (the
  Qwen3-based Goedel-Prover-V2-8B and Kimina-Prover-Distill-8B/-1.7B).
- ``deepseek``: no copy of DeepSeek-Prover-V2-7B's own template was found; the best documented
  form of the family's is DeepSeek-R1's, huggingface.js @fe42e68 e2e.test.js:681.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["CHATML_TURNS", "DEEPSEEK_TURNS", "render_turns"]

DEEPSEEK_TURNS = "deepseek"
CHATML_TURNS = "chatml"


def render_turns(turns: str | None, messages: Sequence[dict[str, str]]) -> str:
    """``messages`` with the ``turns`` family's markers, the generation prompt added (ChatML unless ``deepseek``)."""
    if turns == DEEPSEEK_TURNS:
        text = "<｜begin▁of▁sentence｜>"
        for m in messages:
            if m["role"] == "system":
                text += m["content"]
            elif m["role"] == "user":
                text += f"<｜User｜>{m['content']}"
            else:
                # R1's template keeps an answer's text after its last `</think>` (Prover-V2's carry none)
                text += f"<｜Assistant｜>{m['content'].split('</think>')[-1]}<｜end▁of▁sentence｜>"
        return text + "<｜Assistant｜>"
    # Qwen3: an assistant turn before the last user turn keeps only the text after its last
    # `</think>`, newlines stripped in front (a correction round's failed answer goes back
    # without its reasoning)
    last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    text = ""
    for i, m in enumerate(messages):
        content = m["content"]
        if m["role"] == "assistant" and i < last_user and "</think>" in content:
            content = content.split("</think>")[-1].lstrip("\n")
        text += f"<|im_start|>{m['role']}\n{content}<|im_end|>\n"
    return text + "<|im_start|>assistant\n"
