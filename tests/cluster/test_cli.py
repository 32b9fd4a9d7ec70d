"""``burnqed search --cluster`` and ``eval --cluster``: a driver killed mid-run resumes from the manifest;
no Ray, one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from burnqed.cli import main
from burnqed.search.store import MANIFEST_NAME, store_dir as shards_dir

# statements searched; the driver is killed once this many are committed
STATEMENTS, KILL_AFTER = 20, 4
WAIT_S = 120.0  # bound on waiting for the first commits


def _args(out: Path, *more: str) -> list[str]:
    return [
        "search", "--set", "benchmark-test", "--limit", str(STATEMENTS), "--policy", "none", "--cluster",
        "--output", str(out), "--max-nodes", "12", "--set", "cluster.lean_actors=2",
        "--set", "cluster.workers_per_actor=1", "--set", "cluster.local_cpus=4", *more,
    ]


def test_a_driver_killed_mid_search_resumes_from_the_manifest(tmp_path: Path, local_ray_absent: Any) -> None:
    out = tmp_path / "run.parquet"
    manifest = shards_dir(out) / MANIFEST_NAME
    env = {**os.environ, "RAY_DEDUP_LOGS": "0", "RAY_AUTH_MODE": "disabled"}
    # its own session: killing the group takes the driver and the Ray it started, as a dead machine would
    driver = subprocess.Popen(
        [sys.executable, "-m", "burnqed.cli", *_args(out)], cwd=tmp_path, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            if manifest.is_file() and len(manifest.read_text(encoding="utf-8").splitlines()) >= KILL_AFTER:
                break
            time.sleep(0.05)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    committed = len(manifest.read_text(encoding="utf-8").splitlines())
    assert KILL_AFTER <= committed < STATEMENTS and not out.exists()
    assert main(_args(out, "--resume")) == 0
    frame = pq.read_table(out).to_pandas()
    assert frame["theorem"].nunique() == STATEMENTS
    assert not frame.duplicated(["theorem", "node_id"]).any()
    assert not shards_dir(out).exists()


def test_without_ray_the_cluster_flag_fails_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(_args(tmp_path / "run.parquet")) == 2
    err = capsys.readouterr().err.strip()
    assert err == "burnqed: cluster mode needs Ray: pip install 'burnqed[cluster]'"
    assert list(tmp_path.iterdir()) == []  # nothing written


def _eval_args(out: Path, *more: str) -> list[str]:
    return [
        "eval", "--set", "benchmark-test", "--limit", str(STATEMENTS), "--policy", "none", "--output", str(out),
        "--max-nodes", "12", *more,
    ]


CLUSTER = ["--cluster", "--set", "cluster.lean_actors=2", "--set", "cluster.workers_per_actor=1",
           "--set", "cluster.local_cpus=4"]  # fmt: skip


def test_an_eval_killed_mid_run_resumes_from_its_manifest(tmp_path: Path, local_ray_absent: Any) -> None:
    out = tmp_path / "r.json"
    manifest = shards_dir(out) / MANIFEST_NAME
    env = {**os.environ, "RAY_DEDUP_LOGS": "0", "RAY_AUTH_MODE": "disabled"}
    driver = subprocess.Popen(
        [sys.executable, "-m", "burnqed.cli", *_eval_args(out, *CLUSTER)], cwd=tmp_path, env=env,
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            if manifest.is_file() and len(manifest.read_text(encoding="utf-8").splitlines()) >= KILL_AFTER:
                break
            time.sleep(0.05)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    lines = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
    assert KILL_AFTER <= len(lines) < STATEMENTS and not out.exists()
    assert main(_eval_args(out, *CLUSTER, "--resume")) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["total"] == STATEMENTS and not shards_dir(out).exists()
    outcomes = {o["name"]: o for o in report["outcomes"]}
    # the committed statements were reported from the manifest, not searched again (same wall time)
    for line in lines:
        assert outcomes[line["theorem"]]["wall_s"] == round(line["result"]["stats"]["wall_s"], 4)
    local = tmp_path / "local.json"
    assert main(_eval_args(local)) == 0
    expected = {o["name"]: (o["proved"], o["proof"]) for o in json.loads(local.read_text(encoding="utf-8"))["outcomes"]}
    assert {name: (o["proved"], o["proof"]) for name, o in outcomes.items()} == expected


def test_eval_resume_without_the_cluster_resumes_from_the_same_store(tmp_path: Path) -> None:
    # a local evaluation keeps the same store (R.json.shards/); with nothing kept, --resume runs it all
    assert main(_eval_args(tmp_path / "r.json", "--resume")) == 0
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["total"] == STATEMENTS
    assert not shards_dir(tmp_path / "r.json").exists()
