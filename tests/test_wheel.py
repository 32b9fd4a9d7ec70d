"""The wheel, installed in a clean virtual environment and run from another directory:
it ships the prompts and the data, and no top-level packages but burnqed (issue 14)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv: str | Path, cwd: Path, timeout: float = 300) -> str:
    # without PYTHONPATH: a checkout on it (PYTHONPATH=$PWD pytest) would shadow the installed wheel
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, ROOT, cwd=tmp_path)
    [wheel] = dist.glob("burnqed-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"burnqed", wheel.name.split("-py3")[0] + ".dist-info"}
    assert {"burnqed/prompts/coordinator.md", "burnqed/prompts/common.md", "burnqed/data/core.jsonl"} <= set(names)

    venv = tmp_path / "venv"
    # no pip of its own (seeding one is most of this test's time): this environment's pip installs
    # into it (`pip --python`), entry-point script included
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    # dependencies come from this environment's site-packages (a plain path: its .pth
    # files, the editable install of the checkout among them, are not run)
    purelib = Path(sysconfig.get_paths()["purelib"])
    [site] = (venv / "lib").glob("python3*/site-packages")
    (site / "deps.pth").write_text(f"{purelib}\n", encoding="utf-8")
    _run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q", "--no-deps", "--no-index",
         wheel, cwd=tmp_path)  # fmt: skip

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run(venv / "bin" / "python", "-c",
                 "import burnqed, importlib.util as u; from burnqed.coordination.brain import load_prompt; "
                 "print(burnqed.__file__); print(len(load_prompt())); print(u.find_spec('servers'), "
                 "u.find_spec('coordinator'))", cwd=elsewhere).splitlines()
    assert where[0].startswith(str(venv)) and int(where[1]) > 500 and where[2] == "None None"
    listed = _run(venv / "bin" / "burnqed", "data", "list", cwd=elsewhere)
    assert "core" in listed and "benchmark-test" in listed
