"""Issue 13, hole 8: ``burnqed coordinator resume`` reopens failed or exhausted iterations
with more attempts (crashes are counted apart and forgotten on resume)."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.blueprint import BlueprintStore, IterationSpec
from burnqed.cli import main


def test_resume_reopens_stuck_iterations_with_extra_attempts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    store = BlueprintStore(run_dir / "BLUEPRINT.md")
    store.schedule_iteration(IterationSpec(label="iter_0", attempts_budget=1))
    store.update_status("iter_0", "failed")  # one attempt of one: exhausted
    store.schedule_iteration(IterationSpec(label="iter_1", attempts_budget=3))
    assert store.get("iter_0").status == "exhausted"
    code = main(["coordinator", "resume", "--run-dir", str(run_dir), "--extra-attempts", "2", "--note", "OOM fixed"])
    out = capsys.readouterr().out
    assert code == 0 and "iter_0: exhausted → todo, attempts 1 / 3" in out and "iter_1" not in out
    entry = store.get("iter_0")
    assert (entry.status, entry.budget) == ("todo", 3) and "OOM fixed" in entry.notes
    assert [e.label for e in store.pending_iterations()] == ["iter_0", "iter_1"]
    # nothing stuck now; an unknown label and a missing run dir are one-line errors
    assert main(["coordinator", "resume", "--run-dir", str(run_dir)]) == 0
    assert "nothing to resume" in capsys.readouterr().out
    assert main(["coordinator", "resume", "--run-dir", str(run_dir), "--label", "iter_9"]) == 2
    assert "no entry iter_9" in capsys.readouterr().err
    assert main(["coordinator", "resume", "--run-dir", str(tmp_path / "nowhere")]) == 2
    assert not (tmp_path / "nowhere").exists()
