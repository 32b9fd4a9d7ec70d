"""``burnqed doctor`` on stand-ins: a fake Pantograph repl that answers a version, fake project
trees, a fake ``lake``, model directories, the stand-in OpenAI server, and Ray addresses."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest

from burnqed.cli import main
from burnqed.config import load_config
from burnqed.doctor import DoctorReport, RowStatus, run_doctor
from tests.fixtures.place import fake_lake, fake_pantograph, fake_project
from tests.policy.test_openai_api import StandIn, stand_in  # noqa: F401 - the stand-in server fixture

pytestmark = pytest.mark.anyio


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine like this one: no Lean anywhere (no repl, no lake, no lean), cwd outside any project."""
    for var in ("PANTOGRAPH_REPL", "LEAN_PATH", "LEAN_SYSROOT", "BURNQED_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", f"{empty}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


async def doctor(overrides: dict[str, Any] | None = None, cluster: bool = False) -> DoctorReport:
    config = load_config(None, overrides or {})
    return await run_doctor(config.lean, config.policy, cluster=config.cluster if cluster else None)


def row(report: DoctorReport, check: str) -> Any:
    (found,) = [r for r in report.rows if r.check == check]
    return found


def test_on_a_machine_without_lean_it_prints_the_table_and_the_next_step(
    bare: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0  # the embedded checker runs: nothing blocks the configured (default) run
    for check in ("backend", "project", "mathlib", "repl", "lean version", "LEAN_PATH", "model", "torch", "server", "ray"):
        assert any(line.startswith(check) for line in out.splitlines()), check
    assert "embedded checker" in out and "not Lean" in out
    assert out.strip().splitlines()[-1].startswith("next step: run in a Lean project")


async def test_a_version_mismatch_is_one_line_and_a_blocker(bare: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = fake_project(bare / "proj", "v4.20.1", mathlib="v4.20.1")
    repl = fake_pantograph(bare / "bin", "0.3.4")
    os.chdir(project)
    report = await doctor({"lean.repl_path": str(repl)})
    assert row(report, "backend").found.startswith("Lean through Pantograph")  # the place picks Pantograph
    version = row(report, "lean version")
    assert version.status is RowStatus.BLOCKER and "\n" not in version.found
    assert "Pantograph 0.3.4 for Lean v4.21.0" in version.found and "v4.20.1" in version.found
    assert version.fix.startswith("scripts/build_pantograph.sh") and report.blocked
    assert report.next_step == version.fix
    assert await anyio.to_thread.run_sync(main, ["doctor", "--set", f"lean.repl_path={json.dumps(str(repl))}"]) == 1
    assert "lean version  blocker  Lean version mismatch" in capsys.readouterr().out


async def test_a_project_on_the_repls_lean_is_ready(bare: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = fake_project(bare / "proj", "v4.21.0", mathlib="v4.21.0")
    monkeypatch.setenv("PANTOGRAPH_REPL", str(fake_pantograph(bare / "bin")))
    fake_lake(bare / "home" / ".elan" / "bin", "/lib/lean")
    report = await doctor({"lean.project_dir": str(project)})
    for check in ("backend", "project", "mathlib", "repl", "lean version", "LEAN_PATH"):
        assert row(report, check).status is RowStatus.OK, row(report, check)
    assert "from" in row(report, "LEAN_PATH").found and ".elan" in row(report, "LEAN_PATH").found
    assert not report.blocked


async def test_a_stale_mathlib_a_missing_lake_and_a_missing_repl(bare: Path) -> None:
    project = fake_project(bare / "proj", "v4.21.0", mathlib="v4.19.0")
    repl = fake_pantograph(bare / "bin")
    report = await doctor({"lean.project_dir": str(project), "lean.repl_path": str(repl)})
    assert row(report, "lean version").status is RowStatus.BLOCKER
    assert "Mathlib build is for v4.19.0" in row(report, "lean version").found
    assert row(report, "LEAN_PATH").status is RowStatus.BLOCKER and "elan" in row(report, "LEAN_PATH").fix
    given = await doctor({"lean.project_dir": str(project), "lean.repl_path": str(repl), "lean.lean_path": ["/x"]})
    assert row(given, "LEAN_PATH").status is RowStatus.OK
    no_mathlib = await doctor({"lean.project_dir": str(fake_project(bare / "plain")), "lean.repl_path": str(repl)})
    assert row(no_mathlib, "mathlib").status is RowStatus.WARN and "cache get" in row(no_mathlib, "mathlib").fix
    missing = await doctor({"lean.backend": "pantograph", "lean.project_dir": str(project)})
    assert row(missing, "repl").status is RowStatus.BLOCKER
    assert row(missing, "repl").fix.startswith(f"scripts/build_pantograph.sh {project.resolve()}")
    broken = bare / "bin" / "not-pantograph"
    broken.write_text("#!/bin/sh\nexit 2\n")
    broken.chmod(0o755)
    bad = await doctor({"lean.project_dir": str(project), "lean.repl_path": str(broken)})
    assert row(bad, "repl").status is RowStatus.BLOCKER and "Pantograph" in row(bad, "repl").found


async def test_an_explicit_embedded_backend_skips_the_lean_rows(bare: Path) -> None:
    report = await doctor({"lean.backend": "embedded"})
    assert [row(report, c).status for c in ("project", "repl", "lean version", "LEAN_PATH")] == [RowStatus.SKIP] * 4
    assert "not Lean" in row(report, "backend").found


def _model(directory: Path, **config: Any) -> Path:
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


async def test_model_directories(bare: Path) -> None:
    good = _model(bare / "m1", model_type="llama", architectures=["LlamaForCausalLM"])
    (good / "tokenizer.json").write_text("{}")
    ok = row(await doctor({"policy.model_dir": str(good)}), "model")
    assert ok.status is RowStatus.OK and "llama" in ok.found and "custom code not needed" in ok.found
    custom = _model(bare / "m2", model_type="llama", auto_map={"AutoModel": "x.Y"})
    (custom / "tokenizer.model").write_text("")
    assert row(await doctor({"policy.model_dir": str(custom)}), "model").status is RowStatus.WARN
    no_tok = _model(bare / "m3", model_type="llama")
    assert "tokenizer" in row(await doctor({"policy.model_dir": str(no_tok)}), "model").fix
    unknown = _model(bare / "m4", model_type="no_such_architecture")
    (unknown / "tokenizer.json").write_text("{}")
    assert row(await doctor({"policy.model_dir": str(unknown)}), "model").status is RowStatus.BLOCKER
    absent = row(await doctor({"policy.model_dir": str(bare / "nowhere")}), "model")
    assert absent.status is RowStatus.BLOCKER and absent.fix.startswith("hf download")


async def test_torch_and_its_devices(bare: Path) -> None:
    import torch

    model = _model(bare / "m", model_type="llama")
    (model / "tokenizer.json").write_text("{}")
    torch_row = row(await doctor({"policy.model_dir": str(model), "policy.device": "cuda"}), "torch")
    assert f"torch {torch.__version__}" in torch_row.found
    if torch.cuda.is_available():
        assert torch_row.status is RowStatus.OK and torch.cuda.get_device_name(0) in torch_row.found
    else:
        assert torch_row.status is RowStatus.BLOCKER and "CUDA" in torch_row.fix


async def test_the_policy_server_is_reachable_and_serves_the_model(bare: Path, stand_in: StandIn) -> None:  # noqa: F811
    stand_in.script(models=[{"id": "prover", "max_model_len": 4096}])
    served = {"policy.backend": "openai", "policy.base_url": stand_in.api}
    assert row(await doctor(served), "server").status is RowStatus.OK
    assert "'prover'" in row(await doctor({**served, "policy.model": "prover"}), "server").found
    wrong = row(await doctor({**served, "policy.model": "other"}), "server")
    assert wrong.status is RowStatus.BLOCKER and "not served" in wrong.found
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    down = row(await doctor({**served, "policy.base_url": f"http://127.0.0.1:{port}/v1"}), "server")
    assert down.status is RowStatus.BLOCKER and "vllm serve" in down.fix


async def test_ray_only_with_cluster(bare: Path) -> None:
    assert row(await doctor(), "ray").status is RowStatus.SKIP
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    unreachable = row(await doctor({"cluster.address": f"ray://127.0.0.1:{port}"}, cluster=True), "ray")
    assert unreachable.status is RowStatus.BLOCKER
    local = row(await doctor(cluster=True), "ray")
    assert local.status in (RowStatus.OK, RowStatus.BLOCKER) and ("ray " in local.found or "not installed" in local.found)
