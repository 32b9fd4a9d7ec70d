"""The place a Pantograph repl runs in: its Lean version against the project's, the project as
working directory, the project's LEAN_PATH from ``lake env`` (burnqed.lean.place, prepare_launch)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.errors import LeanConfigError
from burnqed.lean.launch import prepare_launch
from burnqed.lean.place import (
    PANTOGRAPH_RELEASES,
    VersionMismatch,
    find_project,
    lean_release,
    mathlib_toolchain,
    project_toolchain,
    release_for_lean,
    repl_version,
    version_problem,
)
from tests.fixtures.place import fake_lake, fake_pantograph, fake_project

pytestmark = pytest.mark.anyio


def test_the_release_table_is_pantographs_own_tags() -> None:
    """Golden: each 0.3 tag of github.com/lenianiva/Pantograph, its Pantograph/Version.lean and its
    lean-toolchain (read with `git show TAG:lean-toolchain`); v0.3.4 is the commit vendor/ pins."""
    assert [(r.tag, r.version, r.commit[:8], r.lean) for r in PANTOGRAPH_RELEASES] == [
        ("v0.3.4", "0.3.4", "757db11a", "v4.21.0"),
        ("v0.3.3", "0.3.3", "4c7f77b7", "v4.20.1"),
        ("v0.3.1", "0.3.1", "120eb902", "v4.18.0"),
    ]
    pinned = (Path(__file__).parents[2] / "scripts" / "build_pantograph.sh").read_text(encoding="utf-8")
    assert PANTOGRAPH_RELEASES[0].commit in pinned


def test_toolchains_read_as_lean_releases(tmp_path: Path) -> None:
    assert lean_release("leanprover/lean4:v4.21.0\n") == "v4.21.0"
    assert lean_release("leanprover/lean4:4.1.0") == "v4.1.0"
    project = fake_project(tmp_path / "p", "v4.20.1", mathlib="v4.20.1")
    (project / "src" / "deep").mkdir(parents=True)
    assert find_project(project / "src" / "deep") == project.resolve()
    assert project_toolchain(project) == "v4.20.1" and mathlib_toolchain(project) == "v4.20.1"
    assert find_project(Path("/")) is None
    assert release_for_lean("leanprover/lean4:v4.20.1").tag == "v0.3.3" and release_for_lean("v4.99.0") is None


async def test_repl_version_is_what_pantograph_answers(tmp_path: Path) -> None:
    assert await repl_version(fake_pantograph(tmp_path, "0.3.3")) == "0.3.3"
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(LeanConfigError, match="Pantograph"):
        await repl_version(broken)


def test_a_mismatch_is_one_line_naming_both_versions_and_the_fix(tmp_path: Path) -> None:
    repl = Path("/x/repl")
    newer = fake_project(tmp_path / "newer", "v4.20.1")
    line = version_problem(repl, "0.3.4", newer)
    assert line is not None and "\n" not in line
    assert "v4.21.0" in line and "v4.20.1" in line and "scripts/build_pantograph.sh" in line
    none = version_problem(repl, "0.3.4", fake_project(tmp_path / "future", "v4.99.0"))
    assert none is not None and "no Pantograph release is built for v4.99.0" in none
    stale = version_problem(repl, "0.3.4", fake_project(tmp_path / "stale", "v4.21.0", mathlib="v4.19.0"))
    assert stale is not None and "Mathlib build is for v4.19.0" in stale and "lake exe cache get" in stale
    assert version_problem(repl, "0.3.4", fake_project(tmp_path / "ok", "v4.21.0", mathlib="v4.21.0")) is None
    assert version_problem(repl, "9.9.9", newer) is None  # an unknown repl: nothing to compare


async def test_the_pool_refuses_a_repl_on_another_lean_before_any_worker(tmp_path: Path) -> None:
    project = fake_project(tmp_path / "proj", "v4.20.1")
    config = LeanConfig(backend="pantograph", repl_path=fake_pantograph(tmp_path / "bin"), project_dir=project,
                        num_workers=1, memory_limit_mb=2048)  # fmt: skip
    with pytest.raises(VersionMismatch, match="Pantograph 0.3.4 for Lean v4.21.0.*on v4.20.1"):
        async with LeanPool(config):
            pass


async def test_the_repl_runs_in_the_project_with_lakes_lean_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = fake_project(tmp_path / "proj", "v4.21.0", mathlib="v4.21.0")
    bin_dir = tmp_path / "elan-bin"
    fake_lake(bin_dir, "/proj/.lake/packages/mathlib/.lake/build/lib/lean", "/opt/lean-4.21.0")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("LEAN_PATH", raising=False)
    monkeypatch.delenv("LEAN_SYSROOT", raising=False)
    config = LeanConfig(backend="pantograph", repl_path=fake_pantograph(tmp_path / "bin"), project_dir=project,
                        num_workers=1, memory_limit_mb=2048, startup_timeout_s=30.0)  # fmt: skip
    spec = await prepare_launch(config)
    assert spec.cwd == str(project.resolve())
    assert spec.env is not None and spec.env["LEAN_PATH"] == "/proj/.lake/packages/mathlib/.lake/build/lib/lean"
    assert (bin_dir / "lake-ran-in").read_text().strip() == str(project.resolve())
    if shutil.which("lean") is None:
        assert spec.env["LEAN_SYSROOT"] == "/opt/lean-4.21.0"
    async with LeanPool(config) as pool:
        (pid,) = pool.worker_pids()
        assert Path(f"/proc/{pid}/cwd").resolve() == project.resolve()
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"LEAN_PATH=/proj/.lake/packages/mathlib/.lake/build/lib/lean" in environ


async def test_a_given_lean_path_wins_over_lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAN_PATH", "/mine")
    monkeypatch.setenv("LEAN_SYSROOT", "/opt/lean")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no lake anywhere: it must not be needed
    monkeypatch.setenv("HOME", str(tmp_path))
    project = fake_project(tmp_path / "proj")
    config = LeanConfig(backend="pantograph", repl_path=fake_pantograph(tmp_path / "bin"), project_dir=project)
    spec = await prepare_launch(config)
    assert spec.cwd == str(project.resolve()) and (spec.env is None or spec.env.get("LEAN_PATH") == "/mine")


async def test_no_lake_is_a_config_error_that_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEAN_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("HOME", str(tmp_path))
    config = LeanConfig(backend="pantograph", repl_path=fake_pantograph(tmp_path / "bin"),
                        project_dir=fake_project(tmp_path / "proj"))  # fmt: skip
    with pytest.raises(LeanConfigError, match="lake.*elan"):
        await prepare_launch(config)


@pytest.mark.lean
async def test_real_repl_version_matches_the_real_project() -> None:
    """On a machine with Lean: the repl's release is known and agrees with the project it runs in
    (BURNQED_LEAN_PROJECT, else the working directory's), and the worker runs in that project."""
    project = find_project(Path(os.environ.get("BURNQED_LEAN_PROJECT", ".")))
    if project is None:
        pytest.skip("no Lean project (lean-toolchain) here; set BURNQED_LEAN_PROJECT")
    config = LeanConfig(backend="pantograph", imports=["Init"], num_workers=1, project_dir=project,
                        read_timeout_s=60.0, startup_timeout_s=600.0)  # fmt: skip
    spec = await prepare_launch(config)
    repl = Path(spec.program[0])
    assert version_problem(repl, await repl_version(repl), project) is None
    async with LeanPool(config) as pool:
        (pid,) = pool.worker_pids()
        assert Path(f"/proc/{pid}/cwd").resolve() == project.resolve()


async def test_outside_a_project_elans_lean_goes_on_the_repls_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The repl runs `lean --print-prefix` unless LEAN_SYSROOT is set; an MCP client's PATH often
    lacks ~/.elan/bin (issue 38), so it is added when `lean` is found nowhere else."""
    home = tmp_path / "home"
    lean = home / ".elan" / "bin" / "lean"
    lean.parent.mkdir(parents=True)
    lean.write_text("#!/bin/sh\n")
    lean.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("LEAN_SYSROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    config = LeanConfig(backend="pantograph", repl_path=fake_pantograph(tmp_path / "bin"))
    spec = await prepare_launch(config)
    assert spec.cwd is None and spec.env is not None
    assert spec.env["PATH"].split(os.pathsep)[0] == str(lean.parent)
    monkeypatch.setenv("LEAN_SYSROOT", "/opt/lean")
    assert (await prepare_launch(config)).env is None  # a sysroot given: nothing to add
