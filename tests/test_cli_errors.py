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


def test_a_corrupt_shard_on_resume_is_named_and_kept(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    theorems = tmp_path / "t.jsonl"
    theorems.write_text(f'{{"name": "a", "statement": "{STATEMENT}"}}\n', encoding="utf-8")
    out = tmp_path / "out.parquet"
    assert main(["search", "--theorems", str(theorems), "--output", str(out), "--policy", "none"]) == 0
    shard = tmp_path / "out.parquet.parts" / "part-00000.parquet"
    shard.parent.mkdir(exist_ok=True)
    shard.write_bytes(b"not parquet")
    before = out.read_bytes()
    capsys.readouterr()
    rc, err = _run(capsys, "search", "--theorems", str(theorems), "--output", str(out), "--policy", "none", "--resume")
    _one_line(rc, err)
    assert str(shard) in err and "move it away" in err
    assert shard.read_bytes() == b"not parquet" and out.read_bytes() == before


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
