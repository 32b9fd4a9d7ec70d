"""Bad input at the command line: one line saying what is wrong, a non-zero exit, no
traceback and nothing written (issue 13, hole 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.err


def test_empty_statement(capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _run(capsys, "prove", "")
    assert rc == 2 and "Traceback" not in err and err.count("\n") == 1 and "statement" in err


def test_missing_compare_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, err = _run(capsys, "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert rc == 2 and "a.json" in err and "Traceback" not in err


def test_verify_file_with_a_name_takes_one_file_and_each_file_gets_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good, bad = tmp_path / "good.lean", tmp_path / "bad.lean"
    good.write_text("theorem t : 1 + 1 = 2 := by\n  norm_num\n", encoding="utf-8")
    bad.write_text("theorem u : 1 + 1 = 2 := by\n  sorry\n", encoding="utf-8")
    rc, err = _run(capsys, "verify-file", str(good), str(bad), "--name", "t")
    assert rc == 2 and err.count("\n") == 1 and "--name" in err
    assert main(["verify-file", str(good), str(bad), "--backend", "embedded"]) == 1  # the worst verdict
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{good}: ok (checked by kernel)" and out[1].startswith(f"{bad}: refused")


def test_blueprint_validate_on_a_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, err = _run(capsys, "blueprint", "validate", str(tmp_path / "nope" / "BLUEPRINT.md"))
    assert rc == 2 and "no blueprint" in err
    assert not (tmp_path / "nope").exists()


def test_audit_on_a_missing_run_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, err = _run(capsys, "audit", "--run-dir", str(tmp_path / "norun"))
    assert rc == 2 and "no run directory" in err
    assert not (tmp_path / "norun").exists()


def test_a_missing_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, err = _run(capsys, "--config", str(tmp_path / "x.toml"), "data", "list")
    assert rc == 2 and "config file not found" in err


STATEMENT = "∀ (n : Nat), n = n"


def _one_line(rc: int, err: str) -> None:
    assert rc == 2 and "Traceback" not in err and err.count("\n") == 1, err


def test_a_bad_model_or_energy_head_is_one_line_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(f'{{"name": "a", "statement": "{STATEMENT}"}}\n', encoding="utf-8")
    (tmp_path / "notamodel").mkdir()
    rc, err = _run(capsys, "prove", STATEMENT, "--model", str(tmp_path / "missing"))
    _one_line(rc, err)
    assert "does not exist" in err
    rc, err = _run(capsys, "prove", STATEMENT, "--model", str(tmp_path / "notamodel"))
    _one_line(rc, err)
    assert "no config.json" in err
    rc, err = _run(capsys, "prove", STATEMENT, "--policy", "none", "--ebm", str(tmp_path / "nohead"))
    _one_line(rc, err)
    assert "not an energy-head checkpoint" in err
    out = tmp_path / "out.parquet"
    rc, err = _run(capsys, "search", "--theorems", str(theorems), "--output", str(out), "--model", str(tmp_path / "m"))
    _one_line(rc, err)
    rc, err = _run(capsys, "eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"),
                   "--policy", "none", "--ebm", str(tmp_path / "nohead"))
    _one_line(rc, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notamodel", "t.jsonl"]


def test_a_corrupt_output_on_resume_is_named_and_kept(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(f'{{"name": "a", "statement": "{STATEMENT}"}}\n', encoding="utf-8")
    out = tmp_path / "out.parquet"
    assert main(["search", "--theorems", str(theorems), "--output", str(out), "--policy", "none"]) == 0
    out.write_bytes(b"not parquet")
    capsys.readouterr()
    rc, err = _run(capsys, "search", "--theorems", str(theorems), "--output", str(out), "--policy", "none", "--resume")
    _one_line(rc, err)
    assert str(out) in err and "move it away" in err
    assert out.read_bytes() == b"not parquet"


def test_a_statement_with_a_nul_byte_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    theorems = tmp_path / "nul.jsonl"
    theorems.write_text('{"name": "c", "statement": "∀ (n : Nat), n = n\\u0000"}\n', encoding="utf-8")
    out = tmp_path / "nul.parquet"
    rc, err = _run(capsys, "search", "--theorems", str(theorems), "--output", str(out), "--policy", "none")
    _one_line(rc, err)
    assert "U+0000" in err and not out.exists()
    rc, err = _run(capsys, "prove", "True\x01", "--policy", "none")
    _one_line(rc, err)
    assert "U+0001" in err


def _theorem_file(tmp_path: Path) -> Path:
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(f'{{"name": "a", "statement": "{STATEMENT}"}}\n', encoding="utf-8")
    return theorems


def test_a_missing_energy_head_is_refused_before_the_default_model_is_built(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    rc, err = _run(capsys, "prove", STATEMENT, "--ebm", str(tmp_path / "nohead"), "--set", f"paths.home={home}")
    _one_line(rc, err)
    assert "not an energy-head checkpoint" in err and not home.exists()


def test_an_unreadable_head_json_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    head = tmp_path / "head"
    head.mkdir()
    (head / "head.json").write_text("{bad", encoding="utf-8")
    (head / "head.safetensors").write_bytes(b"not safetensors")
    rc, err = _run(capsys, "prove", STATEMENT, "--policy", "none", "--ebm", str(head))
    _one_line(rc, err)
    assert "head.json" in err and "train-ebm" in err


def test_a_head_that_fails_to_load_writes_no_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from burnqed.ebm.checkpoint import HeadCheckpointMeta, save_head
    from burnqed.ebm.encoder import HashingEncoder
    from burnqed.ebm.head import EnergyHead, EnergyHeadConfig

    # a whole checkpoint, but for another encoder: only loading it can tell
    head = EnergyHead.from_config(EnergyHeadConfig(dim=HashingEncoder().dim))
    save_head(head, tmp_path / "head", HeadCheckpointMeta(head=head.config, encoder_fingerprint="some-model@abc"))
    theorems = _theorem_file(tmp_path)
    rc, err = _run(capsys, "search", "--theorems", str(theorems), "--output", str(tmp_path / "out.parquet"),
                   "--policy", "none", "--ebm", str(tmp_path / "head"))
    _one_line(rc, err)
    assert "some-model@abc" in err and "retrain" in err
    rc, err = _run(capsys, "eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"),
                   "--trajectories", str(tmp_path / "tr.parquet"), "--policy", "none", "--ebm", str(tmp_path / "head"))
    _one_line(rc, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["head", "t.jsonl"]


def test_force_with_an_unloadable_model_keeps_the_old_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # every file a model directory needs is there, but unreadable: only loading it can tell
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "llama"}', encoding="utf-8")
    (model / "model.safetensors").write_bytes(b"not safetensors")
    (model / "tokenizer.json").write_text("{}", encoding="utf-8")
    (model / "tokenizer_config.json").write_text("{}", encoding="utf-8")
    out = tmp_path / "out.parquet"
    out.write_bytes(b"an earlier run")
    rc, err = _run(capsys, "search", "--theorems", str(_theorem_file(tmp_path)), "--output", str(out),
                   "--force", "--model", str(model))
    _one_line(rc, err)
    assert "cannot load the model" in err
    assert out.read_bytes() == b"an earlier run" and not (tmp_path / "out.parquet.shards").exists()


def test_an_invalid_or_unreadable_config_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[search]\nmax_nodes = "x"\n', encoding="utf-8")
    rc, err = _run(capsys, "--config", str(config), "data", "list")
    _one_line(rc, err)
    assert "search.max_nodes" in err
    config.write_text("[nope]\na = 1\n", encoding="utf-8")
    rc, err = _run(capsys, "--config", str(config), "data", "list")
    _one_line(rc, err)
    assert "unknown key nope" in err
    rc, err = _run(capsys, "--config", str(tmp_path), "data", "list")
    _one_line(rc, err)
    assert "cannot read config file" in err


@pytest.mark.parametrize(
    "argv", [["iterate", "--iterations", "1"], ["coordinator", "status"], ["demo"], ["audit"]], ids=" ".join
)
def test_a_run_dir_naming_a_file_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    run_dir = tmp_path / "run"
    run_dir.write_text("not a directory", encoding="utf-8")
    rc, err = _run(capsys, *argv, "--run-dir", str(run_dir))
    _one_line(rc, err)
    assert f"{run_dir} is a file" in err
    assert run_dir.read_text(encoding="utf-8") == "not a directory" and list(tmp_path.iterdir()) == [run_dir]


def test_a_lean_backend_that_cannot_launch_is_one_line_for_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: `eval` with lean.backend = "pantograph" and no repl printed an ExceptionGroup traceback."""
    monkeypatch.delenv("PANTOGRAPH_REPL", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `repl` anywhere
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(f'{{"name": "a", "statement": "{STATEMENT}"}}\n', encoding="utf-8")
    backend = "lean.backend='pantograph'"
    for argv in (
        ("eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"), "--policy", "none"),
        ("prove", STATEMENT, "--policy", "none"),
        ("search", "--theorems", str(theorems), "--output", str(tmp_path / "o.parquet"), "--policy", "none"),
    ):
        for args in (("--set", backend, *argv), (*argv, "--set", backend)):  # before and after the command
            rc, err = _run(capsys, *args)
            assert rc != 0 and "Traceback" not in err and err.count("\n") == 1, (args, err)
            assert "repl" in err and "Group" not in err, (args, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]
