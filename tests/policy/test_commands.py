"""The ``burnqed policy`` commands, the policy benchmark, and the package's exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import burnqed.policy
from burnqed.cli import main
from burnqed.config import BurnqedConfig
from burnqed.policy.config import PolicyConfig, TinyModelConfig
from burnqed.policy.model import PolicyModel


def test_every_exported_name_exists() -> None:
    for name in burnqed.policy.__all__:
        assert getattr(burnqed.policy, name) is not None, name
    for name in ["PolicyModel", "GenerationService", "TacticCandidate", "PolicyLoadError", "extract_first_tactic",
                 "format_prompt", "build_tiny_model", "ensure_tiny_model", "sft_policy", "SFTConfig"]:
        assert name in burnqed.policy.__all__


def test_policy_generate_prints_candidates_as_json_lines(tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["policy", "generate", "--model", str(tiny_model_dir), "n : ℕ\\n⊢ n + 0 = n", "-n", "3",
                 "--set", "policy.max_new_tokens=6"])
    assert code == 0
    line = json.loads(capsys.readouterr().out.strip())
    assert line["state"] == "n : ℕ\\n⊢ n + 0 = n"
    assert 1 <= len(line["candidates"]) <= 3


def test_policy_generate_with_a_missing_model_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policy", "generate", "--model", str(tmp_path / "none"), "⊢ True"]) == 2  # a refusal (README)
    assert "does not exist" in capsys.readouterr().err


def test_policy_sft_and_prompt_refusals_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refused input exits 2 in every policy command, as the README's exit-code scheme says."""
    out = tmp_path / "out"
    assert main(["policy", "sft", "--pairs", str(tmp_path / "missing.jsonl"), "--base", str(tmp_path / "none"),
                 "--output", str(out)]) == 2
    assert not out.exists()
    assert main(["policy", "prompt", "--preset", "no-such-preset", "--state", "⊢ True"]) == 2
    err = capsys.readouterr().err
    assert "burnqed policy sft:" in err and "burnqed policy prompt:" in err


def test_policy_sft_fine_tunes_from_a_pairs_file(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"state": f"h{i} : P\n⊢ P", "tactic": f"exact h{i}"}) + "\n" for i in range(6)))
    out = tmp_path / "out"
    code = main(["policy", "sft", "--pairs", str(pairs), "--base", str(tiny_model_dir), "--output", str(out),
                 "--epochs", "1", "--batch-size", "4"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["num_pairs"] == 6 and report["steps"] == 2
    assert PolicyModel.load(out).hidden_size == 128


def test_policy_build_tiny_builds_then_leaves_it_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny"
    small = ["--set", "policy.tiny.hidden_size=32", "--set", "policy.tiny.intermediate_size=64",
             "--set", "policy.tiny.corpus_sets=[]", "--set", f"paths.home={json.dumps(str(tmp_path))}"]
    assert main(["policy", "build-tiny", "--output", str(out), *small]) == 0
    assert (out / "config.json").is_file()
    assert main(["policy", "build-tiny", "--output", str(out), *small]) == 0
    assert "already holds a model" in capsys.readouterr().out


@pytest.mark.anyio
async def test_policy_bench_reports_batched_and_single_throughput() -> None:
    from burnqed.bench.policy import bench

    config = BurnqedConfig(
        policy=PolicyConfig(
            device="cpu",
            max_new_tokens=3,
            tiny=TinyModelConfig(vocab_size=400, hidden_size=32, intermediate_size=64, num_layers=1, num_heads=2,
                                 num_kv_heads=1),
        )
    )
    result = await bench(config, True)
    json.dumps(result)
    assert result["generate"]["batched_model_calls"] < result["generate"]["single_model_calls"]
    assert result["generate"]["speedup"] > 0 and result["encode"]["speedup"] > 0


def test_policy_pairs_replays_reference_proofs_whole_or_by_step(tmp_path: Path) -> None:
    lean = ["--set", "lean.backend=embedded", "--set", "lean.num_workers=1"]
    for whole in (False, True):
        out = tmp_path / f"pairs-{whole}.jsonl"
        args = ["policy", "pairs", "--theorem-set", "core", "--limit", "4", "--output", str(out), *lean]
        assert main([*args, "--whole"] if whole else args) == 0
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        # core's 4th theorem: modus_ponens, `intro p q hp hpq`, `apply hpq`, `exact hp`
        tactics = [r["tactic"] for r in rows]
        if whole:
            assert "intro p q hp hpq\napply hpq\nexact hp" in tactics and "apply hpq\nexact hp" in tactics
        else:
            assert "apply hpq" in tactics and not any("\n" in t for t in tactics)
        assert all(r["state"] for r in rows)
