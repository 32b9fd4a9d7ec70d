"""The chat presets through a tiny tokenizer carrying their model family's chat template.

For each chat preset of the field's models (``deepseek-prover-v2``, ``goedel-prover-v2``,
``kimina-prover-distill``) a tiny ``PreTrainedTokenizerFast`` is built here, offline, over a
WordLevel model with the family's special tokens and ``chat_template`` set to the family's
template; the prompt it renders for fixed inputs (theorem, header, proof so far, and a
correction round with a failed answer that carries reasoning) is compared with a golden string
written by hand, and the tokenizer-free fallback (``presets._turns``) must give the same string,
so a user without the tokenizer sends what the authors send.

Template sources. Only the branches these inputs exercise are written below (system, user and
assistant turns, the generation prompt); tool-call and tool-response branches are left out.

- Qwen3 (Goedel-Prover-V2-8B is Qwen3-8B based; Kimina-Prover-Distill-8B/-1.7B are Qwen3 based):
  Qwen/Qwen3-0.6B's template as Hugging Face's own test suite holds it verbatim,
  github.com/huggingface/huggingface.js @fe42e68, packages/jinja/test/e2e.test.js:822.
  The Qwen3 family shares one template; that the two provers' tokenizer_config.json keep it is an
  assumption (their Hugging Face repositories cannot be read here): Goedel's own inference code
  renders every prompt through the checkpoint's template (Goedel-LM/Goedel-Prover-V2 @2e9036e,
  src/utils.py:345,376,422,450) and reads a Qwen prompt back by ``<|im_start|>user`` ...
  ``<|im_end|>`` (src/utils.py:72-73), which fits it.
- Qwen2.5 (Kimina-Prover-Preview-Distill-7B, Qwen2.5-Math based): Qwen/Qwen2.5-7B-Instruct's
  template, huggingface.js @fe42e68 packages/jinja/test/e2e.test.js:706 (its default system text
  never shows: the Kimina prompt always has a system turn; Qwen2.5-Math's default differs only there).
- DeepSeek (DeepSeek-Prover-V2-7B): no authoritative copy of the 7B checkpoint's own template
  could be found in the public sources searchable here. Tested against the best documented form
  of the family's template: deepseek-ai/DeepSeek-R1's as huggingface.js holds it
  (e2e.test.js:681; its test target, :689, renders ``<｜begin▁of▁sentence｜><｜User｜>...<｜Assistant｜>``
  and drops an earlier answer's text up to ``</think>``). Goedel's code reads a DeepSeek-Prover-V2-7B
  prompt back by ``<｜User｜>`` ... ``<｜Assistant｜>`` (Goedel-Prover-V2 src/utils.py:69-70),
  which fits it. DeepSeek-Prover-V2's answers carry no ``<think>`` block, so the one line in which
  the family's templates differ (V3's keeps ``</think>`` text, R1's drops it) does not change
  what it is sent.

The correction turn's own text (Goedel's ``get_error_str`` message, Kimina's feedback) is pinned by
tests/policy/test_corrections.py; here it is inserted as ``feedback_text`` renders it.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from tokenizers import Tokenizer  # noqa: E402
from tokenizers.models import WordLevel  # noqa: E402
from tokenizers.pre_tokenizers import Whitespace  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402

from burnqed.data.theorems import Theorem  # noqa: E402
from burnqed.policy.corrections import CorrectionTurn, LeanErrorSpan, feedback_text  # noqa: E402
from burnqed.policy.presets import _turns, chat_messages, get_preset, render_prompt  # noqa: E402
from burnqed.search.engine import prompt_context  # noqa: E402

# ------------------------------------------------------------------------------- templates

# Qwen3: huggingface/huggingface.js @fe42e68 packages/jinja/test/e2e.test.js:822 (Qwen/Qwen3-0.6B);
# the system, user, assistant and generation-prompt branches only (no tools, no tool responses)
QWEN3_TEMPLATE = (
    "{%- if messages[0].role == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}"
    "{%- for message in messages[::-1] %}"
    "{%- set index = (messages|length - 1) - loop.index0 %}"
    "{%- if ns.multi_step_tool and message.role == \"user\" and not(message.content.startswith('<tool_response>') "
    "and message.content.endswith('</tool_response>')) %}"
    "{%- set ns.multi_step_tool = false %}{%- set ns.last_query_index = index %}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- for message in messages %}"
    "{%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
    "{%- elif message.role == \"assistant\" %}"
    "{%- set content = message.content %}{%- set reasoning_content = '' %}"
    "{%- if '</think>' in message.content %}"
    "{%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}"
    "{%- set reasoning_content = message.content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}"
    "{%- endif %}"
    "{%- if loop.index0 > ns.last_query_index %}"
    "{%- if loop.last or (not loop.last and reasoning_content) %}"
    "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}"
    "{%- endif %}"
)

# Qwen2.5: huggingface.js @fe42e68 e2e.test.js:706 (Qwen/Qwen2.5-7B-Instruct); no tools branches
QWEN25_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) "
    "or (message.role == \"assistant\" and not message.tool_calls) %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

# DeepSeek (best documented form, see the module docstring): huggingface.js @fe42e68
# e2e.test.js:681 (deepseek-ai/DeepSeek-R1); system, user, assistant and generation prompt only
DEEPSEEK_TEMPLATE = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}"
    "{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}"
    "{%- for message in messages %}{%- if message['role'] == 'system' %}"
    "{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}"
    "{% set ns.is_first_sp = false %}"
    "{%- else %}{% set ns.system_prompt = ns.system_prompt + '\\n\\n' + message['content'] %}{%- endif %}"
    "{%- endif %}{%- endfor %}"
    "{{ bos_token }}{{ ns.system_prompt }}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}"
    "{%- if message['role'] == 'assistant' and 'tool_calls' not in message %}"
    "{% set content = message['content'] %}"
    "{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}"
    "{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}"
    "{%- endif %}"
    "{%- endfor -%}"
    "{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}"
)

QWEN_SPECIALS = {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
DEEPSEEK_SPECIALS = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}


def tiny_tokenizer(template: str, specials: dict[str, str | None]) -> PreTrainedTokenizerFast:
    """A WordLevel tokenizer over a handful of words, the family's special tokens and chat template."""
    special = [t for t in specials.values() if t] + ["<|im_start|>", "<｜User｜>", "<｜Assistant｜>", "[UNK]"]
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys([*special, "theorem", "by", "sorry", "intro", "n"]))}
    backend = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", **{k: v for k, v in specials.items() if v})
    tok.add_tokens([t for t in special if t != "[UNK]"], special_tokens=True)  # markers stay whole
    tok.chat_template = template
    return tok


# --------------------------------------------------------------------------------- inputs

THEOREM = Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n", header="import Mathlib\nopen Nat")
HEADER = "import Mathlib\nopen Nat\n\n"
DECL = "theorem add_zero : ∀ (n : Nat), n + 0 = n"
# a failed answer with reasoning first, as the Qwen3-based provers answer
ANSWER = "<think>\nTry simp.\n</think>\n\nThe proof:\n```lean4\n" + HEADER + DECL + " := by\n  intro n\n  simpa\n```"
FAILED = CorrectionTurn(
    answer=ANSWER,
    code=HEADER + DECL + " := by\n  intro n\n  simpa\n",
    errors=(LeanErrorSpan(line=5, column=2, end_line=5, end_column=7, message="simp made no progress"),),
)
CTX = prompt_context(THEOREM, "n : Nat\n⊢ n + 0 = n", ["intro n"])
CORRECTED = CTX.model_copy(update={"corrections": (FAILED,)})

# DeepSeek-Prover-V2 README.md:141-148, Goedel-Prover-V2 src/utils.py:341
PLAN = (
    "Before producing the Lean 4 code to formally prove the given theorem, provide a detailed proof plan outlining "
    "the main proof steps and strategies.\nThe plan should highlight key ideas, intermediate lemmas, and proof "
    "structures that will guide the construction of the final formal proof."
)
# the answer as the templates send it back: Qwen3 keeps what follows `</think>`, newlines stripped in
# front; DeepSeek-R1's keeps what follows `</think>` as it is
QWEN_KEPT = "The proof:\n```lean4\n" + HEADER + DECL + " := by\n  intro n\n  simpa\n```"
DEEPSEEK_KEPT = "\n\n" + QWEN_KEPT

DEEPSEEK_USER = (
    "Complete the following Lean 4 code:\n\n```lean4\n" + HEADER + DECL + " := by\n  intro n\n  sorry\n```\n\n" + PLAN
)
GOEDEL_USER = "Complete the following Lean 4 code:\n\n```lean4\n" + HEADER + DECL + " := by\n  intro n\n  sorry```\n\n" + PLAN
KIMINA_USER = (
    "Think about and solve the following problem step by step in Lean 4.\n"
    "# Problem:" + DECL + " := by\n  intro n\n"
    "# Formal statement:\n```lean4\n" + HEADER + DECL + " := by\n  intro n\n```\n"
)
KIMINA_SYSTEM = "<|im_start|>system\nYou are an expert in mathematics and Lean 4.<|im_end|>\n"

GOLDEN_FIRST: dict[str, str] = {
    "deepseek-prover-v2": "<｜begin▁of▁sentence｜><｜User｜>" + DEEPSEEK_USER + "<｜Assistant｜>",
    "goedel-prover-v2": "<|im_start|>user\n" + GOEDEL_USER + "<|im_end|>\n<|im_start|>assistant\n",
    "kimina-prover-distill": KIMINA_SYSTEM + "<|im_start|>user\n" + KIMINA_USER + "<|im_end|>\n<|im_start|>assistant\n",
}


def golden_corrected(name: str) -> str:
    """The correction round's prompt, written out: the first turn, the failed answer, the feedback."""
    feedback = feedback_text(get_preset(name).correction, FAILED, 1)
    if name == "deepseek-prover-v2":
        return (
            "<｜begin▁of▁sentence｜><｜User｜>" + DEEPSEEK_USER
            + "<｜Assistant｜>" + DEEPSEEK_KEPT + "<｜end▁of▁sentence｜>"
            + "<｜User｜>" + feedback + "<｜Assistant｜>"
        )
    first = GOLDEN_FIRST[name].removesuffix("<|im_start|>assistant\n")
    return (
        first + "<|im_start|>assistant\n" + QWEN_KEPT + "<|im_end|>\n"
        + "<|im_start|>user\n" + feedback + "<|im_end|>\n<|im_start|>assistant\n"
    )


TOKENIZERS = {
    "deepseek-prover-v2": (DEEPSEEK_TEMPLATE, DEEPSEEK_SPECIALS),
    "goedel-prover-v2": (QWEN3_TEMPLATE, QWEN_SPECIALS),
    "kimina-prover-distill": (QWEN3_TEMPLATE, QWEN_SPECIALS),
}


# ---------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_family_template_renders_the_golden_first_turn(name: str) -> None:
    tok = tiny_tokenizer(*TOKENIZERS[name])
    assert render_prompt(get_preset(name), CTX, tok) == GOLDEN_FIRST[name]


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_fallback_turns_give_the_same_first_turn(name: str) -> None:
    assert render_prompt(get_preset(name), CTX) == GOLDEN_FIRST[name]


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_family_template_renders_the_golden_correction_round(name: str) -> None:
    tok = tiny_tokenizer(*TOKENIZERS[name])
    assert render_prompt(get_preset(name), CORRECTED, tok) == golden_corrected(name)


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_fallback_turns_give_the_same_correction_round(name: str) -> None:
    preset = get_preset(name)
    assert render_prompt(preset, CORRECTED) == golden_corrected(name)
    # the reasoning of the failed answer is not sent back
    assert "Try simp." not in _turns(preset, chat_messages(preset, CORRECTED))


def test_kimina_preview_distill_on_qwen25_renders_the_first_turn_alike() -> None:
    # Kimina-Prover-Preview-Distill-7B (Qwen2.5-Math based): the system turn is always given, so
    # Qwen2.5's default system text never shows and the first turn is the Qwen3 one
    tok = tiny_tokenizer(QWEN25_TEMPLATE, QWEN_SPECIALS)
    assert render_prompt(get_preset("kimina-prover-distill"), CTX, tok) == GOLDEN_FIRST["kimina-prover-distill"]


def test_the_tokenizer_round_trips_the_rendered_prompt_to_its_special_tokens() -> None:
    # the template's markers are single tokens of the tiny tokenizer (what a model's own tokenizer does)
    tok = tiny_tokenizer(*TOKENIZERS["goedel-prover-v2"])
    ids = tok(render_prompt(get_preset("goedel-prover-v2"), CTX, tok))["input_ids"]
    assert ids[0] == tok.convert_tokens_to_ids("<|im_start|>")
    assert tok.convert_tokens_to_ids("<|im_end|>") in ids
