"""Issue 13, hole 10: ``burnqed iterate`` stopped by SIGTERM mid-search keeps every finished
theorem's rows (one part per theorem), marks its entry partial and exits 130; the rerun
resumes without a new attempt and does not search the finished theorems again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.config import BurnqedConfig
from burnqed.coordination.daemon import write_config_snapshot
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.iteration import RunLayout
from tests.fixtures.lean import fake_config

TRAIN = [
    Theorem(name=f"refl_{i}", statement=f"∀ (n : Nat), n + {i} = n + {i}", proof=["intro n", "rfl"])
    for i in range(12)
]
HELD_OUT = [Theorem(name="mul_comm", statement="∀ (a b : Nat), a * b = b * a")]


def _config(tmp_path: Path, tiny_model_dir: Path, first_sft_epochs: int = 1) -> Path:
    save_theorems(tmp_path / "train.jsonl", TRAIN)
    save_theorems(tmp_path / "held_out.jsonl", HELD_OUT)
    config = BurnqedConfig.model_validate(
        {
            "lean": fake_config().model_dump(),
            "policy": {
                "model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "float32",
                "max_new_tokens": 8, "max_prompt_tokens": 128, "seed": 0,
                "sft": {"epochs": 1, "batch_size": 8, "device": "cpu", "warmup_steps": 0},
            },
            "ebm": {"epochs": 1, "hidden_dims": [16], "batch_size": 4, "num_negatives": 1, "val_fraction": 0.0,
                    "device": "cpu", "warmup_steps": 0},
            # each theorem takes ~0.3 s (the fake REPL's sleep), so a signal lands mid-search
            "search": {"num_candidates": 1, "max_nodes": 2, "max_depth": 3, "time_limit_s": 30.0,
                       "automation_tactics": ["sleep 300", "intro n", "rfl"], "concurrency": 1},
            "iteration": {"train_set": str(tmp_path / "train.jsonl"), "train_size": len(TRAIN),
                          "eval_set": str(tmp_path / "held_out.jsonl"), "eval_size": 0,
                          "max_nodes": None, "num_candidates": None, "time_limit_s": None,
                          "first_sft_epochs": first_sft_epochs, "sft_epochs": 1, "ebm_min_positives": 1},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / "run")},
        }
    )
    return write_config_snapshot(config, tmp_path / "burnqed.toml")


def _iterate(config: Path, run_dir: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "burnqed.cli", "--config", str(config), "iterate", "--run-dir", str(run_dir),
         "--iterations", "1", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def _theorems_in_store(layout: RunLayout) -> dict[str, int]:
    rows: dict[str, int] = {}
    for part in sorted(layout.store(0, "search").glob("*.parquet")):
        for name in pq.read_table(part, columns=["theorem"]).column("theorem").to_pylist():
            rows[name] = rows.get(name, 0) + 1
    return rows


def _iterate_until_two_theorems(
    tmp_path: Path, tiny_model_dir: Path
) -> tuple[Path, Path, RunLayout, Path, subprocess.Popen[str]]:
    """Start ``burnqed iterate`` and return once its search has committed two theorems."""
    config = _config(tmp_path, tiny_model_dir)
    run_dir = tmp_path / "run"
    layout = RunLayout(run_dir)
    path = layout.trajectories(0)
    proc = _iterate(config, run_dir)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None and len(_theorems_in_store(layout)) < 2:
        time.sleep(0.02)
    return config, run_dir, layout, path, proc


@pytest.mark.timeout(300)
def test_sigterm_mid_search_keeps_finished_theorems_and_resumes(tmp_path: Path, tiny_model_dir: Path) -> None:
    config, run_dir, layout, path, proc = _iterate_until_two_theorems(tmp_path, tiny_model_dir)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "resume" in err
    entry = BlueprintStore(layout.blueprint).get("iter_0")
    assert (entry.status, entry.attempts) == ("partial", 1)
    # the SIGTERM path finalised the file: every theorem finished before it is there
    kept = {n for n in pq.read_table(path, columns=["theorem"]).column("theorem").to_pylist()}
    assert 2 <= len(kept) < len(TRAIN)
    before = {name: n for name, n in _row_counts(path).items()}

    proc = _iterate(config, run_dir)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    entry = BlueprintStore(layout.blueprint).get("iter_0")
    assert (entry.status, entry.attempts) == ("done", 1)
    after = _row_counts(path)
    assert set(after) == {t.name for t in TRAIN}
    assert all(after[name] == before[name] for name in kept)  # not searched again


def _row_counts(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in pq.read_table(path, columns=["theorem"]).column("theorem").to_pylist():
        counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.timeout(300)
def test_sigkill_mid_search_loses_no_finished_theorem_and_counts_a_crash(tmp_path: Path, tiny_model_dir: Path) -> None:
    config, run_dir, layout, path, proc = _iterate_until_two_theorems(tmp_path, tiny_model_dir)
    proc.kill()
    proc.communicate(timeout=60)
    kept = _theorems_in_store(layout)  # a shard per finished theorem
    assert 2 <= len(kept) < len(TRAIN)
    assert BlueprintStore(layout.blueprint).get("iter_0").status == "running"

    proc = _iterate(config, run_dir)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    entry = BlueprintStore(layout.blueprint).get("iter_0")
    assert (entry.status, entry.attempts, entry.crashes) == ("done", 1, 1)
    after = _row_counts(path)
    assert set(after) == {t.name for t in TRAIN}
    assert all(after[name] == kept[name] for name in kept)


@pytest.mark.timeout(300)
def test_sigterm_mid_fine_tuning_stops_without_finishing_the_training(tmp_path: Path, tiny_model_dir: Path) -> None:
    """Training runs in a worker thread that checks for cancellation every step, so the
    event loop is free to take the signal (a blocking training loop would finish first)."""
    config = _config(tmp_path, tiny_model_dir, first_sft_epochs=500)  # minutes of fine-tuning
    run_dir = tmp_path / "run"
    layout = RunLayout(run_dir)
    proc = _iterate(config, run_dir)
    log = run_dir / "iterate.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if log.is_file() and '"step": "sft", "event": "start"' in log.read_text(encoding="utf-8"):
            break
        time.sleep(0.05)
    time.sleep(2.0)  # well into the training loop
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    stopped_s = time.monotonic() - sent
    assert proc.returncode == 130, err
    # 500 epochs take minutes: stopping well inside that shows the loop was cancelled mid-training
    # (the margin is wide because a loaded 2-core machine stretches the shutdown itself)
    assert stopped_s < 30.0, f"took {stopped_s:.1f} s to stop"
    assert layout.read_marker(0, "sft") is None  # the step did not claim to have finished
    assert BlueprintStore(layout.blueprint).get("iter_0").status == "partial"
