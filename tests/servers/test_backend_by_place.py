"""``burnqed serve lean`` picks its backend by place: Pantograph inside a Lean project with a repl
found, else the embedded checker, and says which at start-up (never letting it pass for Lean)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from burnqed.lean import LeanConfig
from burnqed.lean.launch import backend_by_place
from tests.fixtures.place import fake_pantograph, fake_project

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PANTOGRAPH_REPL", "LEAN_PATH", "BURNQED_CONFIG")}
    env["PYTHONPATH"] = str(ROOT)
    env["PATH"] = f"{tmp_path / 'empty'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return {**env, **extra}


def test_the_default_follows_the_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PANTOGRAPH_REPL", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.chdir(tmp_path)
    config, note = backend_by_place(LeanConfig())
    assert config.backend == "embedded" and note.startswith("embedded checker: ") and "not Lean" in note
    project = fake_project(tmp_path / "proj")
    monkeypatch.chdir(project)
    config, note = backend_by_place(LeanConfig())
    assert config.backend == "embedded" and f"scripts/build_pantograph.sh {project.resolve()}" in note
    monkeypatch.setenv("PANTOGRAPH_REPL", str(fake_pantograph(tmp_path / "bin")))
    config, note = backend_by_place(LeanConfig())
    assert config.backend == "pantograph" and config.project_dir == project.resolve() and "Pantograph" in note
    kept, _ = backend_by_place(LeanConfig(backend="embedded"))  # an explicit backend is never overridden
    assert kept.backend == "embedded"


def test_serve_says_which_checker_at_start_up(tmp_path: Path) -> None:
    outside = tmp_path / "anywhere"
    outside.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "burnqed.cli", "serve", "lean", "--set", f"paths.logs_dir={str(tmp_path / 'logs')!r}"],
        input=b"", capture_output=True, cwd=outside, env=_env(tmp_path), timeout=120,
    )  # fmt: skip
    assert "burnqed-lean: embedded checker: " in done.stderr.decode(), done.stderr.decode()


async def test_serve_lean_in_a_project_runs_pantograph_there(tmp_path: Path) -> None:
    project = fake_project(tmp_path / "proj")
    repl = fake_pantograph(tmp_path / "bin")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "burnqed.cli", "serve", "lean", "--set", "lean.num_workers=1",
              "--set", f"paths.logs_dir={str(tmp_path / 'logs')!r}"],
        cwd=str(project),
        env=_env(tmp_path, PANTOGRAPH_REPL=str(repl), LEAN_PATH="/lib/lean", LEAN_SYSROOT="/opt/lean"),
    )  # fmt: skip
    with anyio.fail_after(60):
        async with Client(params) as client:
            status = (await client.call_tool("pool_status", {})).structured_content
            assert status["pool"]["backend"] == "pantograph"
            (pid,) = status["worker_pids"]
            assert Path(f"/proc/{pid}/cwd").resolve() == project.resolve()
