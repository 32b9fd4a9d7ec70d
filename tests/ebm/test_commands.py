"""``burnqed train-ebm`` and ``burnqed bench ebm`` end to end (in-process CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burnqed.cli import main

pytestmark = pytest.mark.usefixtures("torch_single_thread")


def test_train_ebm_writes_a_checkpoint_and_prints_the_report(
    tmp_path: Path, synthetic_trajectory_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ckpt"
    args = [
        "train-ebm",
        "--trajectories",
        str(synthetic_trajectory_file),
        "--encoder",
        "hashing:32",
        "--output",
        str(out),
    ]
    small = ["--set", "ebm.hidden_dims=[16]", "--set", "ebm.batch_size=8"]
    assert main([*args, "--epochs", "2", *small]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["epochs"] == 2 and report["resumed_from_step"] == 0
    assert (out / "head.safetensors").is_file() and (out / "head.json").is_file()
    assert main([*args, "--epochs", "3", *small]) == 0  # resumes from the same folder
    assert json.loads(capsys.readouterr().out)["resumed_from_step"] == report["steps"]


def test_train_ebm_with_the_tiny_policy_as_encoder(
    tmp_path: Path, synthetic_trajectory_file: Path, tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["train-ebm", "--trajectories", str(synthetic_trajectory_file), "--encoder", str(tiny_model_dir),
         "--output", str(tmp_path / "c"), "--epochs", "1", "--set", "ebm.hidden_dims=[16]",
         "--set", "policy.device=\"cpu\"", "--set", "policy.dtype=\"float32\""]
    )  # fmt: skip
    assert code == 0
    assert json.loads(capsys.readouterr().out)["encoder_fingerprint"] != "hashing"


def test_train_ebm_reports_unusable_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "train-ebm",
            "--trajectories",
            str(tmp_path / "none.parquet"),
            "--encoder",
            "hashing:8",
            "--output",
            str(tmp_path / "c"),
        ]
    )
    assert code == 1
    assert "cannot read trajectories" in capsys.readouterr().err


def test_bench_ebm_quick_prints_throughputs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "ebm", "--quick"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("score_states_per_s_batch1", "score_states_per_s_batch64", "train_groups_per_s_cached"):
        assert result[key] > 0
    assert result["states_encoded_second_run"] == 0
