"""``burnqed lean check`` and ``burnqed bench lean`` on the fake / trivial children."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from burnqed.bench.lean import bench
from burnqed.cli import main
from burnqed.config import BurnqedConfig
from tests.fixtures.lean import fake_repl_command


def _theorems(tmp_path: Path) -> Path:
    path = tmp_path / "set.jsonl"
    rows = [
        {"name": "add_zero", "statement": "∀ (n : Nat), n + 0 = n", "proof": ["intro n", "omega"]},
        {"name": "wrong", "statement": "True", "proof": ["fail"]},
        {"name": "no_proof", "statement": "True"},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def _command_flags() -> list[str]:
    return ["--backend", "command", "--workers", "2", "--set", f"lean.command={json.dumps(fake_repl_command())}"]


def test_lean_check_reports_each_reference_proof(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["lean", "check", "--theorems", str(_theorems(tmp_path)), "--json", *_command_flags()])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and (report["passed"], report["total"]) == (1, 2)
    by_name = {r["name"]: r for r in report["results"]}
    assert by_name["add_zero"]["ok"] and "step 0" in by_name["wrong"]["reason"]


def test_lean_check_table_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lean", "check", "--theorems", str(_theorems(tmp_path)), *_command_flags()]) == 1
    out = capsys.readouterr().out
    assert "1/2 reference proofs verified" in out and "add_zero" in out
    assert main(["lean", "check", "--theorems", str(tmp_path / "missing.jsonl"), *_command_flags()]) == 2


def test_bench_lean_quick_reports_throughput_and_overhead() -> None:
    result = anyio.run(bench, BurnqedConfig(), True)
    assert [row["workers"] for row in result["throughput"]] == [1, 2, 4]
    assert all(row["requests_per_s"] > 0 for row in result["throughput"])
    for key in ("child_round_trip_us", "pool_run_tactic_us", "pool_overhead_us"):
        assert set(result[key]) == {"p50_us", "p99_us"}
    json.dumps(result)


VERIFY_OK = "theorem add_zero : ∀ (n : Nat), n + 0 = n := by\n  intro n\n  omega\n"


@pytest.mark.parametrize(
    ("text", "code", "why"),
    [
        (VERIFY_OK, 0, "ok (checked by kernel)"),
        (VERIFY_OK.replace("omega", "sorry"), 1, "uses sorry"),
        (VERIFY_OK.replace("n + 0 = n", "n + 0 = n + 0"), 1, "statement changed"),
        ("axiom cheat : ∀ (n : Nat), n + 0 = n\n\n" + VERIFY_OK, 1, "not allowed"),
        (VERIFY_OK + "\naxiom cheat : False\n", 1, "one theorem only"),
        (VERIFY_OK.replace("omega", "skip"), 1, "goal(s) left"),
        # issue 37: `/--/` opens a doc comment that `-- -/` closes; Lean reads the axiom as code
        ("/--/ a note\n-- -/ axiom cheat : ∀ (n : Nat), n + 0 = n\n" + VERIFY_OK.replace("omega", "exact cheat n"),
         1, "refused"),
        (VERIFY_OK.replace("  omega", "  /--/\n  -- -/ sorry"), 1, "refused"),
        (VERIFY_OK.replace("  omega", "  /--/\n  -- -/ native_decide"), 1, "refused"),
        (VERIFY_OK.replace("omega", "omega /- a /-/ -/ b -/"), 0, "ok (checked by kernel)"),
        (VERIFY_OK.replace("omega", "omega /- never closed"), 1, "unterminated comment"),
    ],
)
def test_verify_file_checks_a_file_against_its_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, code: int, why: str
) -> None:
    file = tmp_path / "Proof.lean"
    file.write_text(text, encoding="utf-8")
    assert main(["verify-file", str(file), "--theorems", str(_theorems(tmp_path))]) == code
    assert why in capsys.readouterr().out


def test_verify_file_without_a_lock_checks_the_file_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "Proof.lean"
    file.write_text(VERIFY_OK.replace("n + 0 = n", "n + 1 = n"), encoding="utf-8")
    assert main(["verify-file", str(file), "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["ok"] is False and "omega" in answer["reason"]
    assert main(["verify-file", str(tmp_path / "missing.lean")]) == 2
    assert "cannot read" in capsys.readouterr().err
    file.write_text(VERIFY_OK.replace("add_zero", "unknown_name"), encoding="utf-8")
    assert main(["verify-file", str(file), "--theorems", str(_theorems(tmp_path))]) == 2
    assert "no theorem 'unknown_name'" in capsys.readouterr().err
