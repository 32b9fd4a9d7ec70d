"""``burnqed lean check`` and ``burnqed bench lean`` on the fake / trivial children."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from burnqed.cli import main
from burnqed.config import BurnqedConfig
from burnqed.bench.lean import bench
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
