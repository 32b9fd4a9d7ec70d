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
