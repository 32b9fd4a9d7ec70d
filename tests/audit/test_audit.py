"""The audit catches planted statement changes, sorry proofs, false claims and missing backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from burnqed.audit import run_audit
from burnqed.cli import main
from burnqed.config import BurnqedConfig
from burnqed.coordination.daemon import prepare_run_config
from burnqed.coordination.demo import register_benchmark_targets
from burnqed.data.sets import load_builtin
from burnqed.data.theorems import Theorem, statement_sha
from burnqed.lean import LeanConfig
from burnqed.trajectory.schema import SCHEMA

pytestmark = pytest.mark.anyio


def _run(tmp_path: Path) -> tuple[BurnqedConfig, Path, list[Theorem]]:
    run_dir = tmp_path / "run"
    config = prepare_run_config(BurnqedConfig(lean=LeanConfig(backend="embedded", num_workers=1)), run_dir)
    register_benchmark_targets(config)
    core = [t for t in load_builtin("core") if t.proof]
    return config, run_dir, core


def _eval(run_dir: Path, outcomes: list[dict[str, object]], backend: str = "embedded") -> Path:
    path = run_dir / "eval_results" / "iter_0.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    report = {"label": "with_ebm", "backend": backend, "total": len(outcomes), "solved": len(outcomes),
              "solve_rate": 1.0, "outcomes": outcomes}
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def _outcome(thm: Theorem, proof: list[str] | None = None, sha: str | None = None) -> dict[str, object]:
    return {"name": thm.name, "statement_sha": sha or thm.sha, "proved": True, "proof": proof or thm.proof,
            "nodes": 3, "wall_s": 0.1, "reason": "proved"}


async def test_a_clean_run_passes_with_replay(tmp_path: Path) -> None:
    config, run_dir, core = _run(tmp_path)
    _eval(run_dir, [_outcome(t) for t in core[:4]])
    with anyio.fail_after(120):
        report = await run_audit(config.audit(), run_dir, replay=True)
    assert report.ok, report.violations
    assert report.checked["replayed"] == 4


async def test_planted_statement_change_is_caught(tmp_path: Path) -> None:
    config, run_dir, core = _run(tmp_path)
    target = next(t for t in core if "→" in t.statement)
    text = config.blueprint.path.read_text(encoding="utf-8")
    assert target.statement in text
    config.blueprint.path.write_text(text.replace(target.statement, target.statement.replace("→", "∧"), 1),
                                     encoding="utf-8")
    report = await run_audit(config.audit(), run_dir)
    kinds = {(v.kind, v.theorem) for v in report.violations}
    assert ("statement_lock", target.name) in kinds


async def test_planted_sorry_is_caught(tmp_path: Path) -> None:
    config, run_dir, core = _run(tmp_path)
    _eval(run_dir, [_outcome(core[0], proof=["sorry"])])
    report = await run_audit(config.audit(), run_dir)
    assert [v.kind for v in report.violations] == ["sorry_in_proof"]


async def test_false_claim_fails_replay(tmp_path: Path) -> None:
    config, run_dir, core = _run(tmp_path)
    target = next(t for t in core if t.statement.startswith("∀"))
    _eval(run_dir, [_outcome(target, proof=["exfalso"])])
    with anyio.fail_after(120):
        report = await run_audit(config.audit(), run_dir, replay=True)
    assert [(v.kind, v.theorem) for v in report.violations] == [("replay_failed", target.name)]


async def test_statement_drift_and_missing_backend_in_results(tmp_path: Path) -> None:
    config, run_dir, core = _run(tmp_path)
    _eval(run_dir, [_outcome(core[1], sha=statement_sha(core[1].statement + " ∧ True"))], backend="")
    row = {"theorem": core[2].name, "statement_sha": statement_sha("False"), "node_id": 0, "parent_id": None,
           "state_id": 0, "state": "⊢ False", "tactic": None, "depth": 0, "remaining_depth": None, "label": 0,
           "log_prob": None, "energy": None, "proof_complete": False, "iteration": 0, "backend": "embedded",
           "timestamp": datetime.now(UTC)}
    (run_dir / "trajectories").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([row], schema=SCHEMA), run_dir / "trajectories" / "iter_0.parquet")
    report = await run_audit(config.audit(), run_dir)
    kinds = sorted((v.kind, v.theorem) for v in report.violations)
    assert kinds == sorted([("backend_missing", None), ("statement_drift", core[1].name),
                            ("statement_drift", core[2].name)])


def test_audit_command_exits_non_zero_on_a_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config, run_dir, core = _run(tmp_path)
    overrides = ["--set", f"blueprint.path={json.dumps(str(config.blueprint.path))}"]
    assert main(["audit", "--run-dir", str(run_dir), *overrides]) == 0
    assert "no violations" in capsys.readouterr().out
    _eval(run_dir, [_outcome(core[0], proof=["admit"])])
    assert main(["audit", "--run-dir", str(run_dir), "--json", *overrides]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [v["kind"] for v in report["violations"]] == ["sorry_in_proof"]
