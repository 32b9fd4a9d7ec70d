"""`burnqed iterate --theorems FILE` on the embedded backend: the user's own statements, no proofs at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.data.statements import read_lean_theorems
from burnqed.data.theorems import load_theorems
from burnqed.iteration import RunLayout
from burnqed.iteration.data import load_pairs_file, trajectory_pairs
from burnqed.iteration.targets import HASH_RULE, held_out_by_hash
from burnqed.trajectory.reader import theorems_in

BENCHMARK = Path(__file__).resolve().parents[2] / "burnqed" / "data" / "benchmark-test.jsonl"
# Lean cannot elaborate this one: it is reported and skipped, never the end of the run
BAD = "theorem no_such_constant : Foo.bar 3 = 3 := by\n  sorry\n"


def _statement_file(path: Path, count: int) -> list[str]:
    """The benchmark's first statements as a .lean file with every proof removed (`:= by sorry`)."""
    theorems = load_theorems(BENCHMARK)[:count]
    blocks = [f"theorem {t.name} : {t.statement} := by\n  sorry\n" for t in theorems]
    path.write_text("-- my statements\n\n" + "\n".join(blocks) + "\n" + BAD, encoding="utf-8")
    return [t.name for t in theorems]


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
held_out_share = 0.3

[paths]
home = "{home}"
""",
        encoding="utf-8",
    )


def test_iterate_from_statements_without_proofs(tmp_path: Path, tiny_model_dir: Path, capsys) -> None:
    statements = tmp_path / "mine.lean"
    names = _statement_file(statements, 12)
    config = tmp_path / "burnqed.toml"
    _config(config, tiny_model_dir, tmp_path / "home")
    run = tmp_path / "run"
    out = tmp_path / "proved.lean"
    code = main(["iterate", "--config", str(config), "--run-dir", str(run), "--iterations", "2",
                 "--theorems", str(statements), "--write-proofs", str(out), "--quiet", "--json"])
    assert code == 0, capsys.readouterr().err
    layout = RunLayout(run)

    # the held-out split: the hash rule, recorded, applied to every statement read
    record = json.loads((run / "targets" / "targets.json").read_text(encoding="utf-8"))
    assert record["rule"] == "hash" and record["hash_rule"] == HASH_RULE and record["held_out_share"] == 0.3
    read = {t.name: t for t in read_lean_theorems(statements.read_text(encoding="utf-8"))}
    assert set(read) == {*names, "no_such_constant"}
    assert set(record["held_out"]) == {n for n, t in read.items() if held_out_by_hash(t, 0.3)}
    assert set(record["train"]) == set(read) - set(record["held_out"]) and record["held_out"]

    # iteration 0: the base model as it is, no fine-tune, proofs found by search alone
    sft0 = layout.read_marker(0, "sft")
    assert sft0["trained"] is False and sft0["pairs"] == 0
    assert Path(sft0["checkpoint"]).resolve() == tiny_model_dir.resolve()
    assert not (layout.llm(0) / "config.json").exists()
    search0 = layout.read_marker(0, "search")
    assert search0["proved"] > 0
    # the statement Lean cannot elaborate was searched, failed, and the run went on
    assert "no_such_constant" in record["train"]
    assert search0["invalid_statements"] == ["no_such_constant"]

    # iteration 1 trains on exactly the proofs iteration 0 found
    found = trajectory_pairs([layout.trajectories(0)])
    assert found and load_pairs_file(layout.pairs(1)) == found
    sft1 = layout.read_marker(1, "sft")
    assert sft1["trained"] is True and sft1["sources"] == {"trajectories": len(found)}
    assert (layout.llm(1) / "config.json").is_file()

    # the held-out statements were never searched for training, and each iteration evaluated them
    searched = theorems_in(layout.trajectories(0)) | theorems_in(layout.trajectories(1))
    assert not searched & set(record["held_out"])
    for i in (0, 1):
        report = json.loads(layout.eval_result(i, False).read_text(encoding="utf-8"))
        assert {o["name"] for o in report["outcomes"]} == set(record["held_out"])
    capsys.readouterr()
    assert main(["report", str(run), "--resamples", "200"]) == 0
    assert "iteration" in capsys.readouterr().out.lower()

    # the written-back file: the header and names of the user's file, each proof passing verify-file
    text = out.read_text(encoding="utf-8")
    assert text.startswith("-- my statements")
    proved = read_lean_theorems(text)
    assert proved and all(t.proof for t in proved)
    assert {t.name for t in proved} <= set(record["train"])
    for theorem in proved:
        single = tmp_path / f"{theorem.name}.lean"
        single.write_text(theorem.lean_file(theorem.proof or []), encoding="utf-8")
        capsys.readouterr()
        assert main(["verify-file", str(single), "--config", str(config), "--theorems",
                     str(run / "targets" / "train.jsonl")]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["verify-file", str(out), "--config", str(config), "--theorems",
                 str(run / "targets" / "train.jsonl")]) == 0
    assert capsys.readouterr().out.count(": ok") == len(proved)
    # one changed statement refuses the whole file
    first = proved[0]
    tampered = tmp_path / "tampered.lean"
    tampered.write_text(text.replace(first.statement.split(" : ", 1)[1].split(" := ")[0] + " := by",
                                     "1 = 2 := by", 1), encoding="utf-8")
    assert tampered.read_text(encoding="utf-8") != text
    assert main(["verify-file", str(tampered), "--config", str(config), "--theorems",
                 str(run / "targets" / "train.jsonl")]) == 1


@pytest.mark.parametrize("suffix", [".jsonl"])
def test_plain_statement_jsonl_is_read(tmp_path: Path, suffix: str) -> None:
    from burnqed.data.statements import read_statement_file

    path = tmp_path / f"mine{suffix}"
    path.write_text('"∀ (n : Nat), n + 0 = n"\n{"statement": "1 + 1 = 2"}\n'
                    '{"name": "m", "formal_statement": "theorem m : 2 = 2 := by sorry", "header": "import Mathlib"}\n',
                    encoding="utf-8")
    theorems, skipped = read_statement_file(path)
    assert [t.name for t in theorems] == ["line1", "line2", "m"] and not skipped


def test_an_explicit_held_out_file_is_the_split_and_leaves_the_training_set(tmp_path: Path) -> None:
    from burnqed.config import BurnqedConfig
    from burnqed.iteration.targets import prepare_targets

    mine = tmp_path / "mine.lean"
    mine.write_text("theorem a : 1 = 1 := by sorry\n\ntheorem b : 2 = 2 := by sorry\n\ntheorem c : 3 = 3 := by sorry\n",
                    encoding="utf-8")
    held = tmp_path / "test.jsonl"
    held.write_text('{"name": "b2", "statement": "theorem b2 : 2 = 2 := by"}\n{"name": "z", "statement": "4 = 4"}\n',
                    encoding="utf-8")
    config = BurnqedConfig.model_validate({"iteration": {"theorems": str(mine), "held_out": str(held)}})
    prepared = prepare_targets(config, tmp_path / "run")
    record = json.loads((tmp_path / "run" / "targets" / "targets.json").read_text(encoding="utf-8"))
    assert record["rule"] == "file" and record["hash_rule"] is None and record["held_out_file"] == str(held)
    assert record["held_out"] == ["b2", "z"]
    # b is b2's statement under another name? no: the lock hash covers the name's theorem form, so b stays
    assert set(record["train"]) <= {"a", "b", "c"} and "a" in record["train"]
    assert prepared.iteration.train_set == str(tmp_path / "run" / "targets" / "train.jsonl")
    assert prepared.iteration.eval_set == str(tmp_path / "run" / "targets" / "held_out.jsonl")
    assert prepared.iteration.eval_size == 0 and prepared.iteration.search_first
    assert load_theorems(prepared.iteration.eval_set)[0].name == "b2"
