"""The miniF2F world's pipeline end to end on a hand-written file in the benchmark's format.

No field data here: every line below was written for this test, in the JSONL shape
DeepSeek-Prover-V1.5 ships ``datasets/minif2f.jsonl`` in (``name``, ``split``,
``formal_statement``, ``header``). ``burnqed data world`` keeps what the embedded checker
elaborates, carves the tuning split from valid by its hash rule, and the run takes the files
by path (``burnqed iterate --theorems pool.jsonl --held-out test.jsonl``), then ``burnqed report``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.data.minif2f_world import TUNING_RULE, in_tuning_split
from burnqed.data.theorems import load_theorems
from burnqed.iteration import RunLayout
from burnqed.trajectory.reader import theorems_in

HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"

# (name, split, statement after the name); two outside the fragment (ℝ)
LINES = [
    ("syn_valid_1", "valid", "(n : ℕ) (h₀ : n = 4) : n + 3 = 7"),
    ("syn_valid_2", "valid", ": 17 % 5 = 2"),
    ("syn_valid_3", "valid", "(a b : ℕ) (h₀ : a = 2) (h₁ : b = a + 1) : a + b = 5"),
    ("syn_valid_4", "valid", "(x : ℝ) (h₀ : x = 2) : x + 1 = 3"),
    ("syn_valid_5", "valid", "(n : ℕ) (h₀ : n % 4 = 3) : (n + 1) % 4 = 0"),
    ("syn_valid_6", "valid", "(x : ℤ) (h₀ : 2 * x = 10) : x = 5"),
    ("syn_valid_7", "valid", ": 3 * 11 = 33"),
    ("syn_valid_8", "valid", "(k : ℕ) (h₀ : 0 < k) : 1 ≤ k"),
    ("syn_test_1", "test", "(m : ℕ) (h₀ : m = 6) : m * 2 = 12"),
    ("syn_test_2", "test", "(y : ℝ) (h₀ : 3 * y = 6) : y = 2"),
    ("syn_test_3", "test", ": (12 + 9) % 7 = 0"),
    ("syn_test_4", "test", "(a : ℤ) (h₀ : a + 4 = 1) : a = -3"),
]
OUTSIDE = {"syn_valid_4", "syn_test_2"}


def _benchmark_file(path: Path) -> None:
    rows = [
        {"name": name, "split": split, "informal_prefix": f"/-- synthetic {name} -/\n",
         "formal_statement": f"theorem {name} {rest} := by\n", "goal": "", "header": HEADER}
        for name, split, rest in LINES
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _config(path: Path, tiny_model_dir: Path, home: Path) -> None:
    path.write_text(
        f"""
[lean]
backend = "embedded"
num_workers = 2
read_timeout_s = 20.0
startup_timeout_s = 60.0
shutdown_grace_s = 0.0

[policy]
model_dir = "{tiny_model_dir}"
device = "cpu"
dtype = "float32"
max_new_tokens = 10
max_prompt_tokens = 128
seed = 0

[policy.sft]
epochs = 1
batch_size = 8
device = "cpu"
warmup_steps = 0

[ebm]
epochs = 1
hidden_dims = [16]
batch_size = 4
num_negatives = 1
val_fraction = 0.0
device = "cpu"
warmup_steps = 0

[search]
num_candidates = 2
max_nodes = 4
max_depth = 4
time_limit_s = 60.0
concurrency = 1

[iteration]
max_nodes = 4
num_candidates = 2
first_sft_epochs = 1
sft_epochs = 1
ebm_min_positives = 1
baselines = ["rules"]

[data]
world_tune_share = 0.4
world_tune_seed = 0

[paths]
home = "{home}"
""",
        encoding="utf-8",
    )


def test_the_world_is_built_from_a_benchmark_file_and_iterated(
    tmp_path: Path, tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "minif2f.jsonl"
    _benchmark_file(source)
    config = tmp_path / "burnqed.toml"
    _config(config, tiny_model_dir, tmp_path / "home")
    world = tmp_path / "world"

    assert main(["data", "world", str(source), "--out", str(world), "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert "pool.jsonl" in captured.out and "test.jsonl 3" in captured.out
    # each statement the checker refuses is named with its reason on stderr
    for name in OUTSIDE:
        assert f"/{name}: outside_fragment" in captured.err

    record = json.loads((world / "world.json").read_text(encoding="utf-8"))
    assert record["tuning_rule"] == TUNING_RULE and record["tune_share"] == 0.4 and record["backend"] == "embedded"
    assert record["read_total"] == {"valid": 8, "test": 4}
    assert {v["name"] for v in record["left_out"]} == OUTSIDE
    assert all(v["verdict"] == "outside_fragment" and "ℝ" in v["detail"] for v in record["left_out"])
    # the tuning split is the hash rule over the in-fragment valid statements; the pool is the rest
    valid = [t for t in load_theorems(source, split="valid") if t.name not in OUTSIDE]
    tune = {t.name for t in valid if in_tuning_split(t, 0.4, 0)}
    assert tune and set(record["tune"]) == tune
    assert set(record["pool"]) == {t.name for t in valid} - tune
    assert record["test"] == ["syn_test_1", "syn_test_3", "syn_test_4"]
    # the files keep header and theorem form, with no proof (nothing is labelled)
    pool = load_theorems(world / "pool.jsonl")
    assert [t.name for t in pool] == record["pool"]
    assert all(t.header and t.header.startswith("import Mathlib") and t.proof is None for t in pool)
    assert [t.name for t in load_theorems(world / "test.jsonl")] == record["test"]
    # another seed moves the tuning split (a function of seed and statement alone)
    other = {t.name for t in valid if in_tuning_split(t, 0.4, 1)}
    assert other != tune or len(valid) < 3

    # a world already there is not overwritten without --force
    assert main(["data", "world", str(source), "--out", str(world), "--config", str(config)]) == 2
    capsys.readouterr()

    # the run takes the files by path: iteration 0 with the base model, iteration 1 on what it found
    run = tmp_path / "run"
    code = main(["iterate", "--config", str(config), "--run-dir", str(run), "--iterations", "2", "--quiet",
                 "--theorems", str(world / "pool.jsonl"), "--held-out", str(world / "test.jsonl"), "--json"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    layout = RunLayout(run)
    targets = json.loads((run / "targets" / "targets.json").read_text(encoding="utf-8"))
    assert targets["rule"] == "file" and targets["held_out"] == record["test"]
    assert set(targets["train"]) == set(record["pool"])
    searched = theorems_in(layout.trajectories(0)) | theorems_in(layout.trajectories(1))
    assert searched <= set(record["pool"]) and not searched & set(record["test"])
    assert layout.read_marker(0, "sft")["trained"] is False
    for i in (0, 1):
        report = json.loads(layout.eval_result(i, False).read_text(encoding="utf-8"))
        assert {o["name"] for o in report["outcomes"]} == set(record["test"])
        assert report["outside_fragment"] == 0  # the world holds only statements the checker elaborates
    rules = json.loads((run / "eval_results" / "baseline_rules.json").read_text(encoding="utf-8"))
    assert {o["name"] for o in rules["outcomes"]} == set(record["test"])
    capsys.readouterr()
    assert main(["report", str(run), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "rules" in out.lower()


def test_a_world_needs_statements_inside_the_fragment_in_both_splits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "minif2f.jsonl"
    _benchmark_file(source)
    only_real = [line for line in source.read_text(encoding="utf-8").splitlines()
                 if '"split": "valid"' in line or "syn_test_2" in line]  # fmt: skip
    source.write_text("\n".join(only_real) + "\n", encoding="utf-8")
    assert main(["data", "world", str(source), "--out", str(tmp_path / "w"), "--set", "lean.num_workers=1"]) == 1
    assert "0 test statement(s) elaborate" in capsys.readouterr().err
    assert not (tmp_path / "w" / "world.json").exists()
