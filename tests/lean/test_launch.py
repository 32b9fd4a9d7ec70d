"""Backend → argv + environment, and the limits trampoline."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from burnqed.lean import LeanConfig, LeanConfigError
from burnqed.lean.launch import build_launch
from burnqed.lean.limits import TRAMPOLINE_PATH, limited_argv


def test_embedded_backend_runs_the_embedded_module_with_imports_and_options() -> None:
    spec = build_launch(LeanConfig(backend="embedded", imports=["Init"], lean_options={"maxHeartbeats": "0"}))
    assert spec.program == [sys.executable, "-m", "burnqed.embedded", "Init", "--maxHeartbeats=0"]
    assert spec.argv[:4] == [sys.executable, "-I", "-S", TRAMPOLINE_PATH]
    # the default limit is on resident memory, watched by the worker: no RLIMIT_AS (issue 26)
    assert "--as-mb" not in spec.argv and spec.env is None
    capped = build_launch(LeanConfig(backend="embedded", address_space_limit_mb=4096))
    assert capped.argv[capped.argv.index("--as-mb") + 1] == "4096"


def test_pantograph_backend_uses_repl_path_and_lean_path(tmp_path: Path) -> None:
    repl = tmp_path / "repl"
    repl.write_text("#!/bin/sh\n")
    repl.chmod(repl.stat().st_mode | stat.S_IXUSR)
    config = LeanConfig(backend="pantograph", repl_path=repl, imports=["Mathlib"], lean_path=[tmp_path / "lib"])
    spec = build_launch(config)
    assert spec.program[:2] == [str(repl), "Mathlib"]
    assert any(a.startswith("--maxRecDepth=") for a in spec.program)
    assert spec.env is not None and spec.env["LEAN_PATH"].split(os.pathsep)[0] == str(tmp_path / "lib")


def test_pantograph_backend_reads_env_var(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    repl = tmp_path / "my-repl"
    repl.write_text("#!/bin/sh\n")
    repl.chmod(0o755)
    monkeypatch.setenv("PANTOGRAPH_REPL", str(repl))
    assert build_launch(LeanConfig(backend="pantograph")).program[0] == str(repl)


def test_missing_pantograph_is_a_config_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PANTOGRAPH_REPL", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LeanConfigError, match="PANTOGRAPH_REPL"):
        build_launch(LeanConfig(backend="pantograph"))
    with pytest.raises(LeanConfigError, match="not an executable"):
        build_launch(LeanConfig(backend="pantograph", repl_path=tmp_path / "nope"))


def test_command_backend_needs_a_command() -> None:
    with pytest.raises(LeanConfigError, match="lean.command"):
        build_launch(LeanConfig(backend="command"))
    spec = build_launch(LeanConfig(backend="command", command=["prog", "a"]))
    assert spec.program == ["prog", "a"] and "--as-mb" not in spec.argv


def test_trampoline_applies_limits_then_execs() -> None:
    argv = limited_argv(
        [sys.executable, "-S", "-c", "import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0])"],
        memory_limit_mb=512,
        cpu_limit_s=None,
    )
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True)
    assert int(out.stdout) == 512 * 1024 * 1024


def test_trampoline_reports_unexecutable_program() -> None:
    argv = limited_argv(["/nonexistent/prog"], memory_limit_mb=None, cpu_limit_s=None)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert out.returncode == 127 and "cannot execute" in out.stderr
