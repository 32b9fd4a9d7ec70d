"""Issue 28: what ``search`` and ``eval`` write is guarded. Two searches on one output (two
real processes) cannot lose rows: the second is refused in one line. A resume matches
theorems by statement hash, writes the proof files of the theorems an earlier run proved,
and retries infrastructure outcomes; ``eval`` refuses to overwrite, checkpoints per
statement, resumes without ``--cluster``, and writes its report atomically (a full or
read-only filesystem made by the test keeps the old report and the finished statements)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from burnqed.cli import main
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.search.store import MANIFEST_NAME, StatementStore, store_dir
from burnqed.search.results import SearchResult, SearchStats
from burnqed.writelock import holder, lock_file_for
from tests.search.test_commands import LEAN, _theorem_file

ROOT = Path(__file__).resolve().parents[2]


def _cli(*argv: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "burnqed.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _rows(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in pq.read_table(path, columns=["theorem"]).column("theorem").to_pylist():
        counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.timeout(300)
def test_a_second_search_on_one_output_is_refused_and_no_row_is_lost(tmp_path: Path) -> None:
    theorems = _theorem_file(tmp_path, n=12)
    out = tmp_path / "out.parquet"
    argv = ["search", "--theorems", str(theorems), "--output", str(out), "--policy", "none", *LEAN]
    first = _cli(*argv, "--resume")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and first.poll() is None:
            found = holder(lock_file_for(out))
            if found is not None and found.pid == first.pid:
                break
            time.sleep(0.01)
        assert first.poll() is None, first.communicate()
        first.send_signal(signal.SIGSTOP)  # holds the output, mid-run
        second = _cli(*argv, "--resume")
        _, err = second.communicate(timeout=120)
        assert second.returncode == 2, err
        assert err.count("\n") == 1 and f"in use by burnqed search (pid {first.pid})" in err
    finally:
        first.send_signal(signal.SIGCONT)
    stdout, err = first.communicate(timeout=180)
    assert first.returncode == 0, err
    assert "searched 12 theorems" in stdout
    rows = _rows(out)
    assert set(rows) == {f"t{i}" for i in range(12)}
    solo = tmp_path / "solo.parquet"
    assert main(["search", "--theorems", str(theorems), "--output", str(solo), "--policy", "none", *LEAN]) == 0
    assert rows == _rows(solo)  # nothing lost, nothing duplicated
    assert not lock_file_for(out).exists()


def test_resume_matches_theorems_by_statement_not_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.parquet"
    first = tmp_path / "first.jsonl"
    save_theorems(first, [Theorem(name="t0", statement="∀ (n : Nat), n + 0 = n"), Theorem(name="t1", statement="False")])
    assert main(["search", "--theorems", str(first), "--output", str(out), "--policy", "none", *LEAN]) == 0
    capsys.readouterr()
    changed = tmp_path / "changed.jsonl"
    save_theorems(changed, [Theorem(name="t0", statement="∀ (n : Nat), n + 0 = n"),
                            Theorem(name="t1", statement="∀ (n : Nat), 0 + n = n")])
    before = out.read_bytes()
    assert main(["search", "--theorems", str(changed), "--output", str(out), "--resume", "--policy", "none", *LEAN]) == 2
    err = capsys.readouterr().err
    assert "t1" in err and "another statement" in err and err.count("\n") == 1
    assert out.read_bytes() == before


def test_resume_writes_the_proof_files_of_what_the_earlier_run_proved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.parquet"
    theorems = _theorem_file(tmp_path, n=6)  # t0, t2, t4 provable
    assert main(["search", "--theorems", str(theorems), "--output", str(out), "--policy", "none", "--limit", "2",
                 *LEAN]) == 0
    proofs = tmp_path / "out-proofs"
    for path in proofs.iterdir():
        path.unlink()  # as after a SIGKILL: rows written, proof files not
    capsys.readouterr()
    assert main(["search", "--theorems", str(theorems), "--output", str(out), "--resume", "--policy", "none",
                 *LEAN]) == 0
    assert "(2 already done)" in capsys.readouterr().out
    assert sorted(p.name for p in proofs.iterdir()) == ["t0.lean", "t2.lean", "t4.lean"]


def test_limit_must_not_be_negative(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["search", "--theorems", str(_theorem_file(tmp_path)), "--output", str(tmp_path / "o.parquet"),
              "--limit", "-1"])
    assert exit_.value.code == 2 and "negative" in capsys.readouterr().err
    assert not (tmp_path / "o.parquet").exists()


def test_an_output_that_is_a_directory_is_one_line_even_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dir.parquet").mkdir()
    rc = main(["search", "--theorems", str(_theorem_file(tmp_path)), "--output", str(tmp_path / "dir.parquet"),
               "--force", "--policy", "none", *LEAN])
    err = capsys.readouterr().err
    assert rc == 2 and "directory" in err and err.count("\n") == 1


def _eval(tmp_path: Path, theorems: Path, *extra: str) -> int:
    return main(["eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"), "--policy", "none",
                 *LEAN, *extra])


def test_eval_refuses_to_overwrite_its_report_and_trajectories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theorems = _theorem_file(tmp_path, n=4)
    traj = tmp_path / "tr.parquet"
    assert _eval(tmp_path, theorems, "--trajectories", str(traj)) == 0
    rows, report = _rows(traj), (tmp_path / "r.json").read_bytes()
    capsys.readouterr()
    one = tmp_path / "one.jsonl"
    save_theorems(one, [Theorem(name="x", statement="False")])
    assert _eval(tmp_path, one, "--trajectories", str(traj)) == 2
    err = capsys.readouterr().err
    assert "exists" in err and "--force" in err and err.count("\n") == 1
    assert _rows(traj) == rows and (tmp_path / "r.json").read_bytes() == report
    other = tmp_path / "other"
    other.mkdir()
    assert main(["eval", "--theorems", str(one), "--output", str(other / "r.json"), "--trajectories", str(traj),
                 "--policy", "none", *LEAN]) == 2  # the trajectories alone are reason enough
    assert _rows(traj) == rows
    assert _eval(tmp_path, one, "--trajectories", str(traj), "--force") == 0
    assert set(_rows(traj)) == {"x"}


def _result(theorem: Theorem, reason: str, nodes: int) -> SearchResult:
    return SearchResult(theorem=theorem, proved=False, stats=SearchStats(nodes_expanded=nodes), backend="command",
                        reason=reason)  # type: ignore[arg-type]


def test_eval_resumes_locally_and_retries_infrastructure_outcomes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theorems = [Theorem(name="a", statement="False"), Theorem(name="b", statement="∀ (n : Nat), n + 0 = n"),
                Theorem(name="c", statement="∀ (n : Nat), n + 0 = n")]
    path = tmp_path / "set.jsonl"
    save_theorems(path, theorems)
    # what a killed evaluation left: a finished (a, with a node count no search here reaches) and a lost one (b)
    store = StatementStore(store_dir(tmp_path / "r.json"))
    store.commit(_result(theorems[0], "node_budget", 4242))
    store.commit(_result(theorems[1], "lost", 0))
    assert _eval(tmp_path, path) == 2  # a store is there: --resume or --force
    capsys.readouterr()
    assert _eval(tmp_path, path, "--resume") == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    outcomes = {o["name"]: o for o in report["outcomes"]}
    assert outcomes["a"]["nodes"] == 4242  # kept, not searched again
    assert outcomes["b"]["proved"] and outcomes["c"]["proved"]  # the lost one was searched again
    assert report["total"] == 3 and not store.dir.exists()


def test_a_killed_eval_keeps_its_finished_statements(tmp_path: Path) -> None:
    theorems = tmp_path / "set.jsonl"
    save_theorems(theorems, [Theorem(name=f"s{i}", statement="∀ (n : Nat), n + 0 = n") for i in range(40)])
    slow = [*LEAN[:-2], "--set", "lean.num_workers=2", "--set", 'search.automation_tactics=["sleep 300", "rfl"]',
            "--concurrency", "1"]
    proc = _cli("eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"), "--policy", "none", *slow)
    checkpoint = store_dir(tmp_path / "r.json") / MANIFEST_NAME
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if checkpoint.is_file() and checkpoint.read_text(encoding="utf-8").count("\n") >= 2:
            break
        time.sleep(0.02)
    proc.kill()
    proc.communicate(timeout=60)
    kept = StatementStore(checkpoint.parent, resume=True).results(
        [Theorem(name=f"s{i}", statement="∀ (n : Nat), n + 0 = n") for i in range(40)]
    )
    assert len(kept) >= 2
    assert main(["eval", "--theorems", str(theorems), "--output", str(tmp_path / "r.json"), "--policy", "none",
                 *slow, "--resume"]) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["total"] == 40 and report["solved"] == 40


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs the test mounts (skipped where it cannot: no root, no mount permission)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_eval_on_a_full_disk_keeps_the_old_report_whole(
    small_fs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theorems = _theorem_file(tmp_path, n=4)
    report = small_fs / "r.json"
    argv = ["eval", "--theorems", str(theorems), "--output", str(report), "--policy", "none", *LEAN]
    assert main(argv) == 0
    old = report.read_bytes()
    json.loads(old)
    filler = small_fs / "filler"
    with filler.open("wb", buffering=0) as fh:  # fill the disk to its last block
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    capsys.readouterr()
    rc = main([*argv, "--force"])
    err = capsys.readouterr().err
    assert rc != 0 and "Traceback" not in err and err.count("\n") == 1 and "No space" in err
    assert report.read_bytes() == old  # whole or not at all
    assert not [p for p in small_fs.iterdir() if p.name.endswith(".tmp")]


def test_eval_into_a_read_only_filesystem_stops_before_searching(
    small_fs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    theorems = _theorem_file(tmp_path, n=4)
    rc = main(["eval", "--theorems", str(theorems), "--output", str(small_fs / "r.json"), "--policy", "none", *LEAN])
    captured = capsys.readouterr()
    assert rc != 0 and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "solved" not in captured.out  # refused before the evaluation ran
