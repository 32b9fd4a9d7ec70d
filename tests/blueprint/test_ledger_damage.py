"""Issue 28: a damaged lock ledger never silently removes a statement's protection. Each
damage is made on a copy of a real run's files: a missing ledger, a truncated one, a bad
line, and the attack of the issue (a target's line deleted, a torn line appended, its
statement and hash edited in BLUEPRINT.md). ``blueprint validate`` and ``audit --replay``
report each; an intact copy is ok. A binary BLUEPRINT.md is one line, not a traceback."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.blueprint.locks import ledger_path
from burnqed.cli import main
from burnqed.data.theorems import statement_sha


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run dir whose blueprint locked two targets."""
    run = tmp_path / "original"
    store = BlueprintStore(run / "BLUEPRINT.md")
    store.register_target("theorem", "add_zero", statement="∀ (n : Nat), n + 0 = n")
    store.register_target("theorem", "zero_add", statement="∀ (n : Nat), 0 + n = n")
    return run


def _missing(run: Path) -> None:
    ledger_path(run / "BLUEPRINT.md").unlink()


def _truncated(run: Path) -> None:
    ledger = ledger_path(run / "BLUEPRINT.md")
    data = ledger.read_bytes()
    ledger.write_bytes(data[: len(data) // 2 + 7])


def _bad_line(run: Path) -> None:
    ledger = ledger_path(run / "BLUEPRINT.md")
    ledger.write_text(ledger.read_text(encoding="utf-8") + "not a lock\n", encoding="utf-8")


def _the_attack(run: Path) -> None:
    ledger = ledger_path(run / "BLUEPRINT.md")
    lines = [line for line in ledger.read_text(encoding="utf-8").splitlines() if '"zero_add"' not in line]
    ledger.write_text("\n".join(lines) + '\n{"label": "zero_a', encoding="utf-8")  # and a torn line
    blueprint = run / "BLUEPRINT.md"
    old, new = "∀ (n : Nat), 0 + n = n", "∀ (n : Nat), 0 + n = n + 0"
    text = blueprint.read_text(encoding="utf-8").replace(old, new).replace(statement_sha(old), statement_sha(new))
    blueprint.write_text(text, encoding="utf-8")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "missing": _missing,
    "truncated": _truncated,
    "bad line": _bad_line,
    "deleted line, torn line, edited statement and hash": _the_attack,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_ledger_is_an_error(run: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    DAMAGE[damage](copy)
    assert main(["blueprint", "validate", str(copy / "BLUEPRINT.md")]) == 1
    out = capsys.readouterr().out
    assert "lock:" in out and "ok (" not in out
    assert main(["audit", "--run-dir", str(copy), "--replay", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    kinds = {v["message"].split(":")[0] for v in report["violations"] if v["kind"] == "statement_lock"}
    assert kinds & {"ledger_missing", "ledger_damaged", "not_in_ledger"}, report["violations"]


def test_an_intact_ledger_is_ok(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["blueprint", "validate", str(run / "BLUEPRINT.md")]) == 0
    assert "ok (2 entries)" in capsys.readouterr().out


def test_a_binary_blueprint_is_one_line(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run / "BLUEPRINT.md").write_bytes(b"\xff\xfe\x00garbage\x80")
    assert main(["blueprint", "validate", str(run / "BLUEPRINT.md")]) == 1
    out = capsys.readouterr()
    assert "not UTF-8" in out.out + out.err and "Traceback" not in out.err
    rc = main(["iterate", "--run-dir", str(run), "--pending", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 1 and "not UTF-8" in err and err.count("\n") == 1
