"""`burnqed coordinator … --theorems FILE`: the user's statements as the BLUEPRINT's targets, searched,
iterated on from the base model, their proofs recorded through the gate; the held-out ones never shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.config import load_config
from burnqed.coordination.daemon import Daemon
from burnqed.data.theorems import load_theorems, statement_sha
from burnqed.iteration import RunLayout
from burnqed.trajectory.reader import proofs_in, theorems_in

BENCHMARK = Path(__file__).resolve().parents[2] / "burnqed" / "data" / "benchmark-test.jsonl"


@pytest.mark.anyio
async def test_coordinator_works_on_the_users_statements(tmp_path: Path, tiny_model_dir: Path) -> None:
    statements = tmp_path / "mine.lean"
    theorems = load_theorems(BENCHMARK)[:7]
    statements.write_text("\n".join(f"theorem {t.name} : {t.statement} := by\n  sorry\n" for t in theorems),
                          encoding="utf-8")
    run_dir = tmp_path / "run"
    config = load_config(None, [
        f"paths.home='{tmp_path / 'home'}'", "lean.num_workers=2",
        f"iteration.theorems='{statements}'", "iteration.held_out_share=0.3",
        "iteration.max_nodes=4", "iteration.num_candidates=2", "iteration.first_sft_epochs=1", "iteration.sft_epochs=1",
        "coordinator.max_sessions=1", "coordinator.probe_limit=3", "coordinator.probe_max_nodes=4",
        "coordinator.job_poll_interval_s=0.2", "coordinator.pause_between_sessions_s=0",
    ])
    shutil.copytree(tiny_model_dir, config.paths.tiny_model_dir)
    daemon = Daemon(config, run_dir)
    record = json.loads((run_dir / "targets" / "targets.json").read_text(encoding="utf-8"))
    train, held_out = set(record["train"]), set(record["held_out"])
    assert train and held_out and not train & held_out
    # registered before any session: every training statement a locked theorem target, no held-out one
    store = BlueprintStore(daemon.config.blueprint.path, daemon.config.blueprint)
    entries = {e.label: e for e in store.read().entries}
    by_name = {t.name: t for t in theorems}
    for name in train:
        assert entries[name].kind == "theorem" and entries[name].statement_sha is not None
        assert store.ledger.read()[name] == statement_sha(entries[name].statement or "")
        assert "sorry" not in (entries[name].statement or "") and by_name[name].statement in (entries[name].statement or "")
    assert not held_out & set(entries)
    assert daemon.config.coordinator.probe_set == "targets"

    with anyio.fail_after(600):
        assert await daemon.run(handle_signals=False) == 0
    layout = RunLayout(run_dir)
    sft0 = layout.read_marker(0, "sft")
    assert sft0 is not None and sft0["trained"] is False  # iteration 0 searched with the base model
    searched = theorems_in(layout.trajectories(0))
    assert searched == train
    proved = {n for n, e in ((e.label, e) for e in store.read().entries) if e.kind == "theorem" and e.status == "done"}
    # the probe's and the iteration's proofs, each replayed by the gate, are the targets' proofs
    assert proved and proved <= train
    assert set(proofs_in(layout.trajectories(0))) <= proved  # every proof iteration 0 found is recorded
    assert all(e.proof_sha for e in store.read().entries if e.label in proved)
