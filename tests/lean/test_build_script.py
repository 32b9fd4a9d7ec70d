"""scripts/build_pantograph.sh PROJECT builds the release for that project's Lean, and says when none exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from burnqed.cli import main
from tests.fixtures.place import fake_project

ROOT = Path(__file__).resolve().parents[2]


def test_the_release_for_a_project_is_the_one_built_for_its_lean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lean", "pantograph-release", str(fake_project(tmp_path / "a", "v4.20.1"))]) == 0
    assert capsys.readouterr().out.split() == ["v0.3.3", "4c7f77b7ca0d3d82c921061cbc68ce1352355321", "v4.20.1"]
    assert main(["lean", "pantograph-release", str(fake_project(tmp_path / "b", "v4.99.0"))]) == 2
    assert "no Pantograph release is built for v4.99.0" in capsys.readouterr().err


def test_the_script_stops_when_no_release_matches_the_project(tmp_path: Path) -> None:
    shim = tmp_path / "bin" / "burnqed"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m burnqed.cli "$@"\n')
    shim.chmod(0o755)
    project = fake_project(tmp_path / "proj", "v4.99.0")
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "build_pantograph.sh"), str(project)],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert "no Pantograph release is built for v4.99.0" in done.stderr and "nothing to build" in done.stderr
    assert not (ROOT / "vendor" / "Pantograph-v0.3.4").exists()
