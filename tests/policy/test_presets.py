"""Model presets: golden prompts written by hand from the authors' cited lines, answer parsing,
the preset's settings on the wire of the stand-in vLLM server, and the remote-code refusal."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.data.theorems import Theorem
from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import PolicyRemoteCodeRefused
from burnqed.policy.model import check_remote_code
from burnqed.policy.openai_api import OpenAIPolicy
from burnqed.policy.presets import (
    PRESETS,
    PresetError,
    correction_message,
    get_preset,
    parse_first_tactic,
    parse_proof,
    render_prompt,
)
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search.engine import prompt_context
from tests.policy.test_openai_api import StandIn, stand_in  # noqa: F401 - the module-scoped fixture

STATE = "n : Nat\n⊢ n + 0 = n"
THEOREM = Theorem(name="add_zero", statement="∀ (n : Nat), n + 0 = n")
CTX = prompt_context(THEOREM, STATE, ["intro n"])
FRESH = prompt_context(THEOREM, "⊢ ∀ (n : Nat), n + 0 = n", [])

# DeepSeek-Prover-V1.5 prover/utils.py:11
HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 0\n\nopen BigOperators Real Nat Topology Rat\n\n"
# DeepSeek-Prover-V2 README.md:147-148, Goedel-Prover-V2 src/utils.py:341
PLAN = (
    "Before producing the Lean 4 code to formally prove the given theorem, provide a detailed proof plan outlining "
    "the main proof steps and strategies.\nThe plan should highlight key ideas, intermediate lemmas, and proof "
    "structures that will guide the construction of the final formal proof."
)

GOLDEN: dict[str, str] = {
    "plain": "[GOAL]n : Nat\n⊢ n + 0 = n[PROOFSTEP]",
    # BFS-Prover-V2-7B README.md, Usage: "{state}:::"
    "bfs-prover-v2": "n : Nat\n⊢ n + 0 = n:::",
    # internlm2_5-step-prover README.md, Input template
    "internlm2.5-step-prover": (
        "---\nNAME: add_zero\n\n---\nPROOF_BEFORE: intro n\n\n---\nSTATE_BEFORE: n : Nat\n⊢ n + 0 = n\n\n---\nTACTIC: "
    ),
    # DeepSeek-Prover-V1.5 prover/utils.py:14 + generator.py:38-42 (proof so far appended)
    "deepseek-prover-v1.5": (
        "Complete the following Lean 4 code:\n\n```lean4\n" + HEADER
        + "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n"
    ),
    # DeepSeek-Prover-V2 README.md:127-152, DeepSeek-V3 turn markers (no tokenizer at hand)
    "deepseek-prover-v2": (
        "<｜begin▁of▁sentence｜><｜User｜>Complete the following Lean 4 code:\n\n```lean4\n" + HEADER
        + "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  sorry\n```\n\n" + PLAN + "<｜Assistant｜>"
    ),
    # Goedel-Prover-V2 src/utils.py:340-341 (fence closed right after `sorry`), ChatML (Qwen3)
    "goedel-prover-v2": (
        "<|im_start|>user\nComplete the following Lean 4 code:\n\n```lean4\n" + HEADER
        + "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  sorry```\n\n" + PLAN
        + "<|im_end|>\n<|im_start|>assistant\n"
    ),
    # Goedel-Prover-V2 src/utils.py:405-418 (KiminaCoTHandler), ChatML (Qwen)
    "kimina-prover-distill": (
        "<|im_start|>system\nYou are an expert in mathematics and Lean 4.<|im_end|>\n"
        "<|im_start|>user\nThink about and solve the following problem step by step in Lean 4.\n"
        "# Problem:theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n"
        "# Formal statement:\n```lean4\n" + HEADER + "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n```\n"
        "<|im_end|>\n<|im_start|>assistant\n"
    ),
}


def test_every_preset_has_a_golden_prompt() -> None:
    assert set(GOLDEN) | {"deepseek-v2-state"} == set(PRESETS)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_prompt_is_exactly_what_the_authors_send(name: str) -> None:
    assert render_prompt(get_preset(name), CTX) == GOLDEN[name]


def test_goedel_without_a_proof_so_far_closes_with_by_sorry_on_one_line() -> None:
    # Goedel-Prover-V2 src/utils.py:340: `split(":= by")[0] + ":= by sorry"`
    text = render_prompt(get_preset("goedel-prover-v2"), FRESH)
    assert "theorem add_zero : ∀ (n : Nat), n + 0 = n := by sorry```\n\n" in text


def test_deepseek_v2_without_a_proof_so_far_ends_the_file_with_sorry() -> None:
    text = render_prompt(get_preset("deepseek-prover-v2"), FRESH)
    assert "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  sorry\n```\n\n" in text


def test_a_theorem_header_replaces_the_default_one() -> None:
    theorem = Theorem(name="t", statement="True", header="import Foo\nopen Bar")
    text = render_prompt(get_preset("deepseek-prover-v1.5"), prompt_context(theorem, "⊢ True", []))
    assert text == "Complete the following Lean 4 code:\n\n```lean4\nimport Foo\nopen Bar\n\ntheorem t : True := by\n"


def test_whole_file_presets_need_a_theorem() -> None:
    with pytest.raises(PresetError, match="needs a theorem"):
        render_prompt(get_preset("deepseek-prover-v2"), PromptContext(state=STATE))


def test_a_chat_template_renders_chat_presets_when_a_tokenizer_has_one(tiny_policy) -> None:  # type: ignore[no-untyped-def]
    text = render_prompt(get_preset("kimina-prover-distill"), CTX, tiny_policy.tokenizer)
    assert text.startswith("<s>") and "You are an expert in mathematics and Lean 4." in text


def test_unknown_preset_is_refused_in_one_line() -> None:
    with pytest.raises(PresetError, match="unknown policy preset 'gpt' \\(known: plain, bfs-prover-v2"):
        get_preset("gpt")
    with pytest.raises(ValueError, match="unknown policy preset"):
        PolicyConfig(preset="gpt")


# ---------------------------------------------------------------- settings


def test_preset_defaults_apply_unless_set_explicitly() -> None:
    assert PolicyConfig().sampling() == (48, 1.0, 0.95)  # plain: today's tiny-model settings
    assert PolicyConfig(preset="kimina-prover-distill").sampling() == (16000, 0.8, 0.95)
    assert PolicyConfig(preset="goedel-prover-v2", max_new_tokens=64).sampling() == (64, 1.0, 0.95)
    assert PolicyConfig(prompt_format="deepseek-v2").preset_name == "deepseek-v2-state"
    assert get_preset("deepseek-prover-v1.5").stop == ("```",)
    assert get_preset("internlm2.5-step-prover").trust_remote_code


# ---------------------------------------------------------------- answers


def test_bfs_answer_drops_the_echoed_state() -> None:
    bfs = get_preset("bfs-prover-v2")
    assert parse_first_tactic(bfs, "n : Nat\n⊢ n + 0 = n:::simp") == "simp"
    assert parse_first_tactic(bfs, " omega") == "omega"
    assert parse_first_tactic(bfs, "sorry") == ""


def test_internlm_answer_ends_at_the_next_block() -> None:
    assert parse_first_tactic(get_preset("internlm2.5-step-prover"), "rw [h]\n---\nNAME: x") == "rw [h]"


def test_deepseek_v15_continuation_is_read_up_to_the_fence_after_the_proof_so_far() -> None:
    p = get_preset("deepseek-prover-v1.5")
    answer = "  induction n with\n  | zero => rfl\n  | succ k ih => simp\n  omega\n```\nmore"
    assert parse_proof(p, answer, CTX) == ["intro n", "induction n with\n| zero => rfl\n| succ k ih => simp", "omega"]
    assert parse_first_tactic(p, answer, CTX) == "induction n with\n| zero => rfl\n| succ k ih => simp"


def test_whole_proof_is_the_last_lean4_block() -> None:
    p = get_preset("goedel-prover-v2")
    answer = (
        "Plan: first a sketch.\n```lean4\ntheorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  sorry\n```\n"
        "Now the proof.\n```lean4\nimport Mathlib\n\ntheorem add_zero : ∀ (n : Nat), n + 0 = n := by\n"
        "  intro n\n  have h : n + 0 = n := by\n    simp\n  exact h\n```"
    )
    assert parse_proof(p, answer) == ["intro n", "have h : n + 0 = n := by\n  simp", "exact h"]
    assert parse_first_tactic(p, answer, FRESH) == "intro n"
    assert parse_first_tactic(p, answer, CTX) == "have h : n + 0 = n := by\n  simp"  # continues the proof so far
    assert parse_proof(p, "no code at all") is None
    assert parse_proof(p, "```lean4\ntheorem t : True := by\n  sorry\n```") is None


def test_correction_turn_is_goedels() -> None:
    # Goedel-Prover-V2 src/utils.py:371-372
    assert correction_message(1, "E") == (
        "The proof (Round 0) is not correct. Following is the compilation error message, where we use "
        "<error></error> to signal the position of the error.\n\nE\n\nBefore producing the Lean 4 code to formally "
        "prove the given theorem, provide a detailed analysis of the error message."
    )


# ---------------------------------------------------------------- remote code


def test_custom_code_checkpoints_load_only_when_trusted(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"auto_map": {"AutoModel": "modeling_x.X"}}), encoding="utf-8")
    with pytest.raises(PolicyRemoteCodeRefused, match="set policy.trust_remote_code = true") as info:
        check_remote_code(tmp_path, PolicyConfig())
    assert "\n" not in str(info.value)
    check_remote_code(tmp_path, PolicyConfig(trust_remote_code=True))
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(PolicyRemoteCodeRefused):
        check_remote_code(plain, PolicyConfig(preset="internlm2.5-step-prover"))
    check_remote_code(plain, PolicyConfig())


# ---------------------------------------------------------------- CLI


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_policy_prompt_prints_the_golden_prompt(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main([
        "policy", "prompt", "--preset", name, "--state", "n : Nat\\n⊢ n + 0 = n",
        "--theorem", "∀ (n : Nat), n + 0 = n", "--name", "add_zero", "--proof", "intro n",
    ])
    assert rc == 0
    assert capsys.readouterr().out == GOLDEN[name]


# ---------------------------------------------------------------- the wire


REPLIES = {
    "plain": ("simp", "simp"),
    "bfs-prover-v2": ("n : Nat\n⊢ n + 0 = n:::simp", "simp"),
    "internlm2.5-step-prover": ("simp\n---", "simp"),
    "deepseek-prover-v1.5": ("  simp\n```", "simp"),
    "deepseek-prover-v2": ("Plan.\n```lean4\ntheorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  simp\n```", "simp"),
    "goedel-prover-v2": ("```lean4\ntheorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  simp\n```", "simp"),
    "kimina-prover-distill": ("<think>…</think>\n```lean4\ntheorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  simp\n```", "simp"),
}


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(GOLDEN))
async def test_each_preset_on_the_wire_of_a_vllm_server(name: str, stand_in: StandIn) -> None:  # noqa: F811
    reply, tactic = REPLIES[name]
    stand_in.script(rules=[("", [(reply, [-0.25, -0.5])])])
    preset = get_preset(name)
    config = PolicyConfig(backend="openai", base_url=stand_in.api, preset=name, trust_remote_code=True, seed=None)
    async with OpenAIPolicy.connect(config) as policy:
        (found,) = await policy.generate([STATE], 1, contexts=[CTX])
    assert found == [TacticCandidate(tactic=tactic, log_prob=math.fsum([-0.25, -0.5]))]
    (request,) = stand_in.log()["requests"]
    body = request["body"]
    bos = "<｜begin▁of▁sentence｜>"
    expected = GOLDEN[name][len(bos):] if GOLDEN[name].startswith(bos) else GOLDEN[name]  # the server adds BOS
    assert body["prompt"] == [expected]
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (
        preset.max_new_tokens, preset.temperature, preset.top_p
    )
    assert body.get("stop") == (list(preset.stop) or None)


# ---------------------------------------------------------------- eval over a stand-in vLLM server


def _eval(stand_in_api: str, theorems: Path, output: Path, mode: str) -> list[str]:
    return [
        "eval", "--theorems", str(theorems), "--output", str(output), "--search-mode", mode,
        "--preset", "deepseek-prover-v1.5", "--trajectories", str(output.with_suffix(".parquet")),
        "--set", "policy.backend=openai", "--set", f"policy.base_url={stand_in_api}",
        "--set", "search.automation_tactics=[]", "--set", "lean.num_workers=1", "--set", "search.whole_samples=2",
    ]


@pytest.mark.parametrize(("mode", "proved"), [("whole", False), ("hybrid", True)])
def test_eval_whole_and_hybrid_over_a_served_whole_proof_model_on_the_embedded_backend(
    stand_in: StandIn, tmp_path: Path, mode: str, proved: bool  # noqa: F811
) -> None:
    # the model's first proof fails at its second step; asked again after `intro n`, it ends with rfl
    stand_in.script(rules=[
        (":= by\n  intro n\n", [("  rfl\n```", [-0.2])]),
        (":= by\n", [("  intro n\n  bogus\n```", [-0.1])]),
    ])
    theorems = tmp_path / "set.jsonl"
    from burnqed.data.theorems import save_theorems

    save_theorems(theorems, [THEOREM])
    output = tmp_path / f"{mode}.json"
    assert main(_eval(stand_in.api, theorems, output, mode)) == 0
    report = json.loads(output.read_text(encoding="utf-8"))
    assert {o["name"]: o["proved"] for o in report["outcomes"]} == {"add_zero": proved}
    assert output.with_suffix(".parquet").is_file()
    prompts = [r["body"]["prompt"][0] for r in stand_in.log()["requests"]]
    assert all(r["body"]["stop"] == ["```"] for r in stand_in.log()["requests"])
    # whole: one request at the root; hybrid: resumed after the valid step with it in the prompt
    assert any(p.endswith(":= by\n  intro n\n") for p in prompts) == (mode == "hybrid")


def test_the_proof_read_is_the_named_theorems_not_a_helper_lemmas() -> None:
    answer = (
        "```lean4\nlemma helper (n : Nat) : n + 0 = n := by\n  simp\n\n"
        "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  exact helper n\n```"
    )
    assert parse_proof(get_preset("kimina-prover-distill"), answer, FRESH) == ["intro n", "exact helper n"]
