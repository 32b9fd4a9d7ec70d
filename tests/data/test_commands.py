"""``burnqed data list|show|generate|automation-share`` end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.data.automation import automation_share
from burnqed.data.theorems import Theorem, load_theorems
from burnqed.embedded.repl.verify import CheckerLike


def test_data_list_names_every_builtin_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert "core" in out and "benchmark-test" in out and "benchmark-train" in out


def test_data_show_prints_statements_and_proofs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "show", "core", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "True" in out and "proof:" in out and "(2 of" in out


def test_data_show_of_a_missing_file_fails_with_a_message(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["data", "show", str(tmp_path / "missing.jsonl")]) == 1
    assert "not found" in capsys.readouterr().err


def test_data_generate_writes_a_checked_training_set(
    tmp_path: Path, data_checker: CheckerLike, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "train.jsonl"
    assert main(["data", "generate", "--split", "train", "--size", "6", "--seed", "21", "--output", str(out)]) == 0
    theorems = load_theorems(out)
    assert len(theorems) == 6 and all(t.proof for t in theorems)
    assert "wrote 6 theorems" in capsys.readouterr().out


def test_data_automation_share_reports_each_tactic_and_the_union(
    tmp_path: Path, data_checker: CheckerLike, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(Theorem(name=n, statement=s, tags=[f"family:{f}"]).model_dump(), ensure_ascii=False)
            for n, s, f in [
                ("a", "2 + 2 = 4", "num"),
                ("b", "∃ (n : Nat), n * n = 49", "ex"),
                ("c", "3 * 4 ≤ 13 ∧ 2 < 3", "lin"),
            ]
        ),
        encoding="utf-8",
    )
    assert main(["data", "automation-share", str(path), "--tactics", "norm_num,omega"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["size"] == 3
    assert report["closed"]["norm_num"] >= 1 and report["closed"]["omega"] >= 1
    assert report["union"] == 2 and report["by_family"]["ex"] == 0.0


def test_automation_share_of_an_empty_set_is_zero(data_checker: CheckerLike) -> None:
    result = automation_share([], ["omega"], checker=data_checker)
    assert result.union_share == 0.0 and result.closed == {"omega": 0}
