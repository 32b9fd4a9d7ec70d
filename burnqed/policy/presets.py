"""Model presets: each open prover model prompted, stopped, sampled and parsed as its authors run it.

A preset fixes everything a user should not have to know about a model: whether it proposes
one tactic (``step``) or a whole proof (``whole``), the prompt text (raw completion or a chat
turn with its system text), what the prompt shows (state, theorem, header, proof so far),
stop sequences, new-token budget, the authors' sampling defaults, and how an answer is read.
``policy.preset = NAME`` selects one; an unset ``policy.preset`` follows ``policy.prompt_format``.

Sources (format facts only; the code here is burnqed's own). Commits are those read:

- ``bfs-prover-v2``: huggingface.co/ByteDance-Seed/BFS-Prover-V2-7B, README.md, "Usage": the
  input is ``"{state}:::"``; the model echoes the state and ``:::`` before the tactic
  (the example splits the decoded text on ``:::`` and keeps part 1).
- ``internlm2.5-step-prover``: huggingface.co/internlm/internlm2_5-step-prover, README.md,
  "Dialogue Example / Input template": NAME, PROOF_BEFORE, STATE_BEFORE, TACTIC blocks, each
  opened by ``---``; the checkpoint needs ``trust_remote_code`` (InternLM2 modelling code).
- ``deepseek-prover-v1.5``: github.com/deepseek-ai/DeepSeek-Prover-V1.5 @2c4ba91,
  prover/utils.py:11 (default header), :13-18 (``non_cot_prompt``), :43-45 (the answer is cut
  at the first ```` ``` ````); prover/workers/generator.py:37-43 (the proof so far,
  ``_extra_prompt``, is appended after the statement: RMaxTS's truncate-and-resume,
  prover/algorithms/rmax_tree_search.py:229-237); configs/sampling.py:18-23 (temperature 1,
  max_tokens 2048, top_p 0.95).
- ``deepseek-prover-v2``: github.com/deepseek-ai/DeepSeek-Prover-V2 @e598a57, README.md:127-160
  (the whole file ending ``:= by\\n  sorry`` in a lean4 fence, the proof-plan instruction, one
  user turn through the chat template, ``max_new_tokens=8192``).
- ``goedel-prover-v2``: github.com/Goedel-LM/Goedel-Prover-V2 @2e9036e, README.md:171-202 and
  src/utils.py:339-350 (``DeepSeekCoTHandler.prover_inference``: statement cut at ``:= by``
  plus ``:= by sorry``, no newline before the closing fence), src/utils.py:323-337 (the proof
  is the *last* lean4 block), src/utils.py:363-377 (the correction turn, burnqed/policy/corrections.py;
  also used for ``deepseek-prover-v2``, whose own authors describe none),
  src/inference.py:104-106 (top_p 0.95, temperature 1.0), README.md:202 (32768 new tokens).
- ``kimina-prover-distill``: github.com/Goedel-LM/Goedel-Prover-V2 @2e9036e, src/utils.py:405-427
  (``KiminaCoTHandler``: system text, "Think about and solve ..." user turn, ``# Problem:``
  with the statement lines less imports/options/blank lines, then ``# Formal statement:``) and
  src/utils.py:247-259 (that cleaning); github.com/MoonshotAI/Kimina-Prover-Preview @7abd61a,
  kimina_prover_demo/error_fix.py:61 (16000 max tokens) and :83 (temperature 0.8).
- ``plain``: burnqed's tiny model, ``[GOAL]<state>[PROOFSTEP]`` (the ReProver/LeanDojo style).
- ``deepseek-v2-state``: burnqed's earlier tactic-state chat prompt (``prompt_format =
  "deepseek-v2"``), kept so existing configs run unchanged; it is *not* the authors' format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.policy.chat_turns import CHATML_TURNS, DEEPSEEK_TURNS, render_turns
from burnqed.policy.corrections import CorrectionFormat, correction_message, feedback_text
from burnqed.policy.types import PromptContext

__all__ = [
    "LEAN4_DEFAULT_HEADER",
    "PRESETS",
    "ModelPreset",
    "PresetError",
    "chat_messages",
    "correction_message",
    "get_preset",
    "parse_candidate",
    "parse_first_tactic",
    "parse_proof",
    "render_chat",
    "render_prompt",
    "split_tactics",
]

# DeepSeek-Prover-V1.5 prover/utils.py:11, the header every one of these models saw in training
LEAN4_DEFAULT_HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n"

# DeepSeek-Prover-V2 README.md:141-148 and Goedel-Prover-V2 src/utils.py:341 (same instruction)
_COMPLETE = "Complete the following Lean 4 code:\n\n```lean4\n"
_PLAN = (
    "Before producing the Lean 4 code to formally prove the given theorem, provide a detailed proof plan "
    "outlining the main proof steps and strategies.\nThe plan should highlight key ideas, intermediate lemmas, "
    "and proof structures that will guide the construction of the final formal proof."
)
# Goedel-Prover-V2 src/utils.py:413-418 (KiminaCoTHandler)
_KIMINA_SYSTEM = "You are an expert in mathematics and Lean 4."
_KIMINA_TASK = "Think about and solve the following problem step by step in Lean 4."
# burnqed's earlier tactic-state prompt (prompt_format "deepseek-v2")
_STATE_INSTRUCTION = "Complete the following Lean 4 code by giving the next tactic for this proof state:"

# Chat turn markers used when no tokenizer with a chat template is at hand: the model family's
# own (burnqed/policy/chat_turns.py, which cites the templates they follow).
_DEEPSEEK_TURNS = DEEPSEEK_TURNS
_CHATML_TURNS = CHATML_TURNS

Template = Literal[
    "plain", "bfs", "internlm-step", "deepseek-v1.5", "deepseek-v2", "goedel-v2", "kimina", "deepseek-v2-state"
]
Parse = Literal["first-tactic", "after-separator", "until-separator", "until-fence", "last-lean4-block", "fenced-first-tactic"]


class PresetError(ValueError):
    """An unknown preset name, or a preset that cannot render what it was asked for."""


class ModelPreset(BaseModel):
    """How one model is prompted, stopped, sampled and read, as its authors run it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    model: str = Field(description="the checkpoint(s) the preset is for")
    kind: Literal["step", "whole"]
    template: Template
    chat: bool = Field(description="the prompt is a chat turn rendered by the tokenizer's chat template")
    turns: str | None = Field(default=None, description="turn markers used when no chat template is at hand")
    system: str | None = None
    shows: tuple[str, ...] = Field(description="what the prompt contains: state, name, statement, header, proof_so_far")
    stop: tuple[str, ...] = ()
    max_new_tokens: int = Field(ge=1)
    temperature: float = Field(ge=0)
    top_p: float = Field(gt=0, le=1)
    parse: Parse
    trust_remote_code: bool = Field(default=False, description="the checkpoint needs its own modelling/tokenizer code")
    correction: CorrectionFormat = Field(default="none", description="the correction turn's format (none: asked afresh)")
    source: str = Field(description="where the format is documented (repository, path, lines)")


PRESETS: dict[str, ModelPreset] = {
    p.name: p
    for p in (
        ModelPreset(
            name="plain",
            model="burnqed tiny model (and any model fine-tuned by `burnqed policy sft` in this format)",
            kind="step",
            template="plain",
            chat=False,
            shows=("state",),
            max_new_tokens=48,
            temperature=1.0,
            top_p=0.95,
            parse="first-tactic",
            source="burnqed/policy/prompts.py (ReProver/LeanDojo [GOAL]/[PROOFSTEP] style)",
        ),
        ModelPreset(
            name="bfs-prover-v2",
            model="ByteDance-Seed/BFS-Prover-V2-7B, -32B",
            kind="step",
            template="bfs",
            chat=False,
            shows=("state",),
            max_new_tokens=256,  # the card's example uses the model's generation defaults; a tactic fits
            temperature=1.0,
            top_p=0.95,
            parse="after-separator",
            source="huggingface.co/ByteDance-Seed/BFS-Prover-V2-7B README.md, Usage",
        ),
        ModelPreset(
            name="internlm2.5-step-prover",
            model="internlm/internlm2_5-step-prover",
            kind="step",
            template="internlm-step",
            chat=False,
            shows=("name", "proof_so_far", "state"),
            max_new_tokens=128,
            temperature=1.0,
            top_p=0.95,
            parse="until-separator",
            trust_remote_code=True,
            source="huggingface.co/internlm/internlm2_5-step-prover README.md, Dialogue Example (Input template)",
        ),
        ModelPreset(
            name="deepseek-prover-v1.5",
            model="deepseek-ai/DeepSeek-Prover-V1.5-RL, -SFT",
            kind="whole",
            template="deepseek-v1.5",
            chat=False,
            shows=("header", "statement", "proof_so_far"),
            stop=("```",),  # the authors cut the answer at the first ``` (prover/utils.py:43-45)
            max_new_tokens=2048,
            temperature=1.0,
            top_p=0.95,
            parse="until-fence",
            source="github.com/deepseek-ai/DeepSeek-Prover-V1.5 prover/utils.py:11-18,43-45; configs/sampling.py:18-23",
        ),
        ModelPreset(
            name="deepseek-prover-v2",
            model="deepseek-ai/DeepSeek-Prover-V2-7B",
            kind="whole",
            template="deepseek-v2",
            chat=True,
            turns=_DEEPSEEK_TURNS,
            shows=("header", "statement", "proof_so_far"),
            max_new_tokens=8192,
            temperature=1.0,
            top_p=0.95,
            parse="last-lean4-block",
            correction="goedel",
            source="github.com/deepseek-ai/DeepSeek-Prover-V2 README.md:127-160",
        ),
        ModelPreset(
            name="goedel-prover-v2",
            model="Goedel-LM/Goedel-Prover-V2-8B, -32B",
            kind="whole",
            template="goedel-v2",
            chat=True,
            turns=_CHATML_TURNS,
            shows=("header", "statement", "proof_so_far"),
            max_new_tokens=32768,
            temperature=1.0,
            top_p=0.95,
            parse="last-lean4-block",
            correction="goedel",
            source="github.com/Goedel-LM/Goedel-Prover-V2 README.md:171-202; src/utils.py:323-350; src/inference.py:104-106",
        ),
        ModelPreset(
            name="kimina-prover-distill",
            model="AI-MO/Kimina-Prover-Distill-8B, -1.7B, Kimina-Prover-Preview-Distill-7B",
            kind="whole",
            template="kimina",
            chat=True,
            turns=_CHATML_TURNS,
            system=_KIMINA_SYSTEM,
            shows=("header", "statement", "proof_so_far"),
            max_new_tokens=16000,
            temperature=0.8,
            top_p=0.95,
            parse="last-lean4-block",
            correction="kimina",
            source="github.com/Goedel-LM/Goedel-Prover-V2 src/utils.py:247-259,405-427; "
            "github.com/MoonshotAI/Kimina-Prover-Preview kimina_prover_demo/error_fix.py:61,83",
        ),
        ModelPreset(
            name="deepseek-v2-state",
            model="burnqed's earlier chat prompt (prompt_format = deepseek-v2); not the authors' format",
            kind="step",
            template="deepseek-v2-state",
            chat=True,
            turns=_DEEPSEEK_TURNS,
            shows=("state",),
            max_new_tokens=48,
            temperature=1.0,
            top_p=0.95,
            parse="fenced-first-tactic",
            source="burnqed/policy/prompts.py",
        ),
    )
}


def get_preset(name: str) -> ModelPreset:
    """The preset called ``name`` (PresetError naming the known ones otherwise)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise PresetError(f"unknown policy preset {name!r} (known: {', '.join(PRESETS)})") from None


# ---------------------------------------------------------------------------------------------
# rendering


def _header(ctx: PromptContext) -> str:
    """The file header as the whole-proof models saw it: the theorem's own, else the authors' default."""
    if ctx.header is None or not ctx.header.strip():
        return LEAN4_DEFAULT_HEADER
    return ctx.header.rstrip("\n") + "\n\n"


def _statement(ctx: PromptContext) -> str:
    """The declaration without its ``:= by`` (what the authors split off at ``:= by``)."""
    decl = ctx.declaration.rstrip()
    if not decl:
        raise PresetError("this preset shows the theorem statement: the prompt needs a theorem (--theorem)")
    cut = decl.rfind(":= by")
    return decl[:cut].rstrip() if cut >= 0 else decl


def _proof_lines(ctx: PromptContext) -> str:
    """The proof so far as an indented tactic block ("" when empty)."""
    out = []
    for tactic in ctx.proof_so_far:
        out.append("\n".join("  " + line for line in tactic.split("\n")))
    return "\n".join(out) + ("\n" if out else "")


def _user_content(preset: ModelPreset, ctx: PromptContext) -> str:
    t = preset.template
    if t == "deepseek-v2":
        # README.md:127-138: the whole file, ending `:= by` then `  sorry`, stripped
        body = _header(ctx) + _statement(ctx) + " := by\n" + _proof_lines(ctx) + "  sorry"
        return f"{_COMPLETE}{body.strip()}\n```\n\n{_PLAN}"
    if t == "goedel-v2":
        # src/utils.py:340-341: `split(":= by")[0] + ":= by sorry"`, the fence closed right after it
        proof = _proof_lines(ctx)
        body = _header(ctx) + _statement(ctx) + (" := by\n" + proof + "  sorry" if proof else " := by sorry")
        return f"{_COMPLETE}{body}```\n\n{_PLAN}"
    if t == "kimina":
        # src/utils.py:410-415: statement up to `:= by`; Problem = its lines less imports/options/blank
        formal = _header(ctx) + _statement(ctx) + " := by" + ("\n" + _proof_lines(ctx).rstrip("\n") if ctx.proof_so_far else "")
        problem = "\n".join(
            line
            for line in formal.splitlines()
            if not (line.startswith(("import", "set_option", "open")) or not line.strip())
        )
        return f"{_KIMINA_TASK}\n# Problem:{problem}\n# Formal statement:\n```lean4\n{formal}\n```\n"
    if t == "deepseek-v2-state":
        return f"{_STATE_INSTRUCTION}\n\n```lean4\n/- tactic state:\n{ctx.state}\n-/\n```"
    raise PresetError(f"preset {preset.name} is not a chat preset")


def chat_messages(preset: ModelPreset, ctx: PromptContext) -> list[dict[str, str]]:
    """The chat turns of a chat preset (system first when the authors give one)."""
    messages = [{"role": "system", "content": preset.system}] if preset.system else []
    messages.append({"role": "user", "content": _user_content(preset, ctx)})
    if preset.correction != "none":
        for round_number, turn in enumerate(ctx.corrections, 1):
            messages.append({"role": "assistant", "content": turn.answer})
            messages.append({"role": "user", "content": feedback_text(preset.correction, turn, round_number)})
    return messages


def _turns(preset: ModelPreset, messages: Sequence[dict[str, str]]) -> str:
    """The family's turn markers around ``messages``, for when no chat template is at hand."""
    return render_turns(preset.turns, messages)


def render_chat(preset: ModelPreset, messages: Sequence[dict[str, str]], tokenizer: Any | None = None) -> str:
    """``messages`` through the tokenizer's chat template (generation prompt added), else the family's markers."""
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        return str(tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True))
    return _turns(preset, messages)


def render_prompt(preset: ModelPreset, ctx: PromptContext, tokenizer: Any | None = None) -> str:
    """The exact text the model's authors send for ``ctx``."""
    t = preset.template
    if t == "plain":
        return f"[GOAL]{ctx.state}[PROOFSTEP]"
    if t == "bfs":
        return f"{ctx.state}:::"
    if t == "internlm-step":
        proof_before = "\n".join(ctx.proof_so_far)
        return (
            f"---\nNAME: {ctx.name}\n\n"
            f"---\nPROOF_BEFORE: {proof_before}\n\n"
            f"---\nSTATE_BEFORE: {ctx.state}\n\n"
            f"---\nTACTIC: "
        )
    if t == "deepseek-v1.5":
        # prover/utils.py:14 + generator.py:38-42: prompt, header, statement `:= by\n`, proof so far
        return f"{_COMPLETE}{_header(ctx)}{_statement(ctx)} := by\n{_proof_lines(ctx)}"
    return render_chat(preset, chat_messages(preset, ctx), tokenizer)


# ---------------------------------------------------------------------------------------------
# answers

# Goedel-Prover-V2 src/utils.py:325-336: the last lean4 block, then an unclosed-newline one, then `lean`
_BLOCKS = (
    re.compile(r"```lean4\n(.*?)\n```", re.DOTALL),
    re.compile(r"```lean4\n(.*?)```", re.DOTALL),
    re.compile(r"```lean\n(.*?)```", re.DOTALL),
)
_DECL = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?(?:theorem|lemma|example)\b", re.MULTILINE)
_NOT_TACTICS = {"sorry", "admit"}


def split_tactics(block: str) -> list[str]:
    """A tactic block split into its top-level tactics (deeper-indented lines continue a tactic)."""
    lines = [ln for ln in block.split("\n") if ln.strip() and not ln.strip().startswith("--")]
    if not lines:
        return []
    base = min(len(ln) - len(ln.lstrip()) for ln in lines)
    tactics: list[str] = []
    for ln in lines:
        # `| case =>` alternatives and a leading `<;>` continue the tactic above at the same column
        continues = ln.lstrip().startswith(("|", "<;>"))
        if (len(ln) - len(ln.lstrip()) == base and not continues) or not tactics:
            tactics.append(ln[base:].rstrip())
        else:
            tactics[-1] += "\n" + ln[base:].rstrip()
    return tactics


def _proof_of_code(code: str, name: str | None = None) -> list[str] | None:
    """The tactics after the theorem's ``:= by`` in a Lean file: the theorem called ``name`` when
    there is one (helper lemmas come first in such answers), else the last declaration."""
    decls = list(_DECL.finditer(code))
    if not decls:
        return None
    named = [d for d in decls if name and re.match(rf"\s+{re.escape(name)}\b", code[d.end() :])]
    decl = (named or decls)[-1]
    assign = code.find(":= by", decl.end())
    if assign < 0:
        return None
    rest = code[assign + len(":= by") :]
    # the proof ends where a next top-level declaration starts
    nxt = re.search(r"^\S", rest.split("\n", 1)[1] if "\n" in rest else "", re.MULTILINE)
    if "\n" in rest and nxt is not None:
        head, tail = rest.split("\n", 1)
        rest = head + "\n" + tail[: nxt.start()]
    tactics = split_tactics(rest)
    return tactics


def parse_proof(preset: ModelPreset, text: str, ctx: PromptContext | None = None) -> list[str] | None:
    """The whole proof (tactics from the root) in a whole-proof model's answer; None if it holds none."""
    if preset.parse == "until-fence":
        cut = text.find("```")
        cont = text[:cut] if cut >= 0 else text
        tactics = [*(ctx.proof_so_far if ctx else ()), *split_tactics(cont)]
    elif preset.parse == "last-lean4-block":
        code = None
        for pattern in _BLOCKS:
            found = pattern.findall(text)
            if found:
                code = found[-1]
                break
        if code is None:
            return None
        tactics = _proof_of_code(code, ctx.name if ctx is not None else None) or []
    else:
        tactic = parse_first_tactic(preset, text)
        return [tactic] if tactic else None
    tactics = [t for t in tactics if t.strip() not in _NOT_TACTICS]
    if not tactics or any(re.search(r"\bsorry\b|\badmit\b", t) for t in tactics):
        return None
    return tactics


def parse_first_tactic(preset: ModelPreset, text: str, ctx: PromptContext | None = None) -> str:
    """The next tactic in an answer ("" when there is none): a step model's tactic, or the first
    tactic after the proof so far of a whole-proof model's proof."""
    from burnqed.policy.prompts import extract_first_tactic

    if preset.parse == "first-tactic":
        return extract_first_tactic(text)
    if preset.parse == "fenced-first-tactic":
        return extract_first_tactic(text, require_fence=True)
    if preset.parse == "after-separator":
        # the model echoes the state and `:::` before its tactic (the card splits on `:::`)
        tactic = text.rsplit(":::", 1)[-1].strip()
        return "" if tactic in _NOT_TACTICS else tactic
    if preset.parse == "until-separator":
        tactic = text.split("\n---", 1)[0].strip()
        return "" if tactic in _NOT_TACTICS else tactic
    if preset.parse == "until-fence":
        cut = text.find("```")
        tactics = split_tactics(text[:cut] if cut >= 0 else text)
        return tactics[0] if tactics and tactics[0] not in _NOT_TACTICS else ""
    proof = parse_proof(preset, text, ctx)
    if not proof:
        return ""
    done = len(ctx.proof_so_far) if ctx is not None else 0
    # a whole proof that repeats the proof so far continues after it; one that does not starts afresh
    if ctx is not None and list(proof[:done]) == list(ctx.proof_so_far) and len(proof) > done:
        return proof[done]
    return proof[0]


def parse_candidate(preset: ModelPreset, text: str, ctx: PromptContext) -> str:
    """What a candidate holds for ``ctx.want``: the next tactic, or the rest of the proof from
    ``ctx.state`` (its tactics one after another, split again by ``split_tactics``); "" for none."""
    if ctx.want == "tactic":
        return parse_first_tactic(preset, text, ctx)
    if preset.kind == "whole":
        proof = parse_proof(preset, text, ctx)
        if not proof:
            return ""
        done = len(ctx.proof_so_far)
        if done and list(proof[:done]) == list(ctx.proof_so_far):
            proof = proof[done:]  # the model restated the proof so far: continue after it
        return "\n".join(proof)
    if preset.parse in ("first-tactic", "fenced-first-tactic"):
        # a step-format model trained on whole proofs (the tiny model in `plain`): all its lines
        from burnqed.policy.prompts import _FENCE

        fence = _FENCE.search(text)
        body = fence.group(1) if fence else text
        if preset.parse == "fenced-first-tactic" and fence is None:
            return ""
        tactics = [t for t in split_tactics(body) if t.strip() not in _NOT_TACTICS]
        if any(re.search(r"\bsorry\b|\badmit\b", t) for t in tactics):
            return ""
        return "\n".join(tactics)
    return parse_first_tactic(preset, text, ctx)
