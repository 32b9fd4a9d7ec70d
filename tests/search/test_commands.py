"""The command line: prove, search (interrupt + resume), eval, compare, trajectories summary.

Runs on the pool's "command" backend with the scripted fake REPL (real child processes)
and ``--policy none`` (no model), so every command runs end to end in seconds.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from burnqed.cli import main
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.search.store import store_dir
from tests.fixtures.lean import fake_repl_command

LEAN = [
    "--set",
    'lean.backend="command"',
    "--set",
    f"lean.command={json.dumps(fake_repl_command())}",
    "--set",
    "lean.num_workers=2",
]


def _theorem_file(tmp_path: Path, n: int = 6) -> Path:
    theorems = [
        Theorem(name=f"t{i}", statement="∀ (n : Nat), n + 0 = n" if i % 2 == 0 else "False") for i in range(n)
    ]
    path = tmp_path / "set.jsonl"
    save_theorems(path, theorems)
    return path


def test_prove_prints_the_proof(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "∀ (n : Nat), n + 0 = n", "--policy", "none", *LEAN]) == 0
    out = capsys.readouterr().out
    assert out.startswith("proved [command backend") and "rfl" in out


def test_prove_prints_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "False", "--policy", "none", *LEAN]) == 1
    assert "not proved (exhausted)" in capsys.readouterr().out


def test_search_then_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.parquet"
    code = main(["search", "--theorems", str(_theorem_file(tmp_path)), "--output", str(out), "--policy", "none", *LEAN])
    assert code == 0
    assert "done: searched 6 theorems" in capsys.readouterr().out
    assert main(["search", "--theorems", str(_theorem_file(tmp_path)), "--output", str(out), *LEAN]) == 2
    capsys.readouterr()
    assert main(["trajectories", "summary", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["theorems"] == 6 and summary["proved"] == 3


def test_eval_writes_a_report_and_compare_reads_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = _theorem_file(tmp_path, 4)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["eval", "--theorems", str(file), "--output", str(a), "--policy", "none", *LEAN]) == 0
    assert main(
        ["eval", "--theorems", str(file), "--output", str(b), "--policy", "none", "--label", "nothing",
         "--set", "search.automation_tactics=[]", "--max-nodes", "1", *LEAN]
    ) == 0
    report = json.loads(a.read_text(encoding="utf-8"))
    assert report["label"] == "automation" and report["backend"] == "command" and report["policy"] == "none"
    assert report["solved"] == 2 and report["total"] == 4 and report["solve_rate"] == 0.5
    assert [o["name"] for o in report["outcomes"]] == ["t0", "t1", "t2", "t3"]
    assert report["search"]["max_nodes"] == 100
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--resamples", "500"]) == 0
    diff = json.loads(capsys.readouterr().out)
    assert diff["baseline"] == "automation" and diff["candidate"] == "nothing"
    assert diff["n"] == 4 and diff["rate_a"] == 0.5 and diff["ci_lo"] <= diff["diff_points"] <= diff["ci_hi"]
    assert diff["b"] == len(diff["only_a"]) and 0 < diff["p_value"] <= 1
    assert main(["compare", str(a), str(b)]) == 0
    assert "McNemar p" in capsys.readouterr().out


def test_sigterm_keeps_what_was_found_and_resume_finishes_without_duplicates(tmp_path: Path) -> None:
    file = _theorem_file(tmp_path, 12)
    out = tmp_path / "run.parquet"
    slow = ["--set", 'search.automation_tactics=["sleep 150", "rfl"]', "--set", "search.row_group_rows=1"]
    argv = [sys.executable, "-m", "burnqed.cli", "search", "--theorems", str(file), "--output", str(out),
            "--policy", "none", "--concurrency", "1", *LEAN, *slow]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(store_dir(out).glob("*.parquet")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no theorem finished within 60 s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert stdout.startswith("interrupted")
    first = set(pq.read_table(out).column("theorem").to_pylist())
    assert 1 <= len(first) < 12 and not store_dir(out).exists()

    code = main(["search", "--theorems", str(file), "--output", str(out), "--policy", "none", "--resume", *LEAN])
    assert code == 0
    table = pq.read_table(out)
    names = table.column("theorem").to_pylist()
    assert set(names) == {f"t{i}" for i in range(12)}
    keys = list(zip(names, table.column("node_id").to_pylist(), strict=True))
    assert len(keys) == len(set(keys))


def test_a_backend_that_cannot_start_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = ["--set", 'lean.backend="command"', "--set", f'lean.command=["{tmp_path / "missing"}"]']
    assert main(["prove", "True", "--policy", "none", *broken]) == 1
    assert "Lean failed" in capsys.readouterr().err


@pytest.mark.parametrize("trajectories", [False, True])
def test_resume_of_a_finished_evaluation_keeps_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], trajectories: bool
) -> None:
    file = _theorem_file(tmp_path, 4)
    report = tmp_path / "r.json"
    extra = ["--trajectories", str(tmp_path / "t.parquet")] if trajectories else []
    args = ["eval", "--theorems", str(file), "--output", str(report), "--policy", "none", *extra, *LEAN]
    assert main(args) == 0
    before = report.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0  # issue 41: was "solved 0/0", the outcomes replaced by none
    assert "nothing to resume" in capsys.readouterr().out
    assert report.read_text(encoding="utf-8") == before
    # a statement the finished report lacks is refused, the report left alone
    bigger = _theorem_file(tmp_path, 5)
    assert main(["eval", "--theorems", str(bigger), "--output", str(report), "--policy", "none", "--resume",
                 *extra, *LEAN]) == 2
    assert "1 of the statements given are not in it" in capsys.readouterr().err
    assert report.read_text(encoding="utf-8") == before


def test_a_full_disk_during_eval_names_the_path_and_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: the disk-full line named no path and no --resume."""
    import errno

    import burnqed.files

    def full(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(burnqed.files, "write_text_atomic", full)
    report = tmp_path / "r.json"
    code = main(["eval", "--theorems", str(_theorem_file(tmp_path, 2)), "--output", str(report), "--policy", "none",
                 *LEAN])
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress bar's line
    assert code == 1 and err.startswith("burnqed eval: No space left on device"), err
    assert str(report) in err and "--resume" in err and str(store_dir(report)) in err
    monkeypatch.undo()
    assert main(["eval", "--theorems", str(_theorem_file(tmp_path, 2)), "--output", str(report), "--policy", "none",
                 "--resume", *LEAN]) == 0  # space freed: the kept statements are not searched again
    assert json.loads(report.read_text(encoding="utf-8"))["total"] == 2
