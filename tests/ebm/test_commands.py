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


def test_a_full_disk_while_the_head_is_saved_is_one_line_naming_it(
    tmp_path: Path, synthetic_trajectory_file: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 41: a 64-line traceback when the disk filled while a checkpoint was saved
    (safetensors raises its own error, quoting the OS's text, not an OSError)."""
    import burnqed.ebm.checkpoint
    from safetensors import SafetensorError

    def full(state: object, path: str) -> None:
        Path(path).write_bytes(b"half")  # what a full disk leaves: a torn temp file
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    monkeypatch.setattr(burnqed.ebm.checkpoint, "save_file", full)
    out = tmp_path / "ckpt"
    argv = ["train-ebm", "--trajectories", str(synthetic_trajectory_file), "--encoder", "hashing:32",
            "--output", str(out), "--epochs", "1", "--set", "ebm.hidden_dims=[16]", "--set", "ebm.batch_size=8"]
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "Traceback" not in err[0], err
    assert err[0].startswith(f"burnqed: No space left on device while saving {out};") and "run the same command again" in err[0]
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]  # the torn temp file holds no space
    monkeypatch.undo()
    assert main(argv) == 0  # space freed: the same command finishes


def test_a_disk_that_fills_during_torch_save_is_named_too(
    tmp_path: Path, synthetic_trajectory_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """torch.save on a full disk keeps no errno ("unexpected pos 64 vs 0"): a real 1 MiB tmpfs,
    filled so that the head fits and its training state does not."""
    import os
    import subprocess

    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        stat = os.statvfs(mount)
        (mount / "filler").write_bytes(b"\0" * (stat.f_bavail * stat.f_frsize - 16 * 1024))
        out = mount / "ckpt"
        code = main(["train-ebm", "--trajectories", str(synthetic_trajectory_file), "--encoder", "hashing:32",
                     "--output", str(out), "--cache-dir", str(tmp_path / "cache"), "--epochs", "1",
                     "--set", "ebm.hidden_dims=[16]", "--set", "ebm.batch_size=8"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 1 and len(err) == 1, err
        assert err[0].startswith(f"burnqed: No space left on device while saving {out};")
        assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
