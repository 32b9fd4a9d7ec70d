"""The best checkpoint of a run, and `burnqed prove` taking it by default."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from burnqed.cli import main
from burnqed.files import write_json_atomic
from burnqed.iteration.best import best_checkpoint
from burnqed.iteration.layout import RunLayout
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import report_from_results


def _evaluated(layout: RunLayout, index: int, model: Path, rate: float, *, ebm: bool = False) -> None:
    """Iteration ``index`` with ``model`` as its checkpoint and a held-out report at ``rate``."""
    if not layout.llm(index).exists():
        layout.llm(index).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(model, layout.llm(index))
    report = report_from_results([], label="with_ebm" if ebm else "no_ebm", backend="embedded",
                                 search=SearchConfig(), policy=str(model), ebm="head" if ebm else None)  # fmt: skip
    report = report.model_copy(update={"total": 10, "solved": round(rate * 10), "solve_rate": rate})
    if ebm:
        layout.ebm(index).mkdir(parents=True, exist_ok=True)
    write_json_atomic(layout.eval_result(index, ebm), report.model_dump(mode="json"), indent=2)


def test_the_best_is_the_highest_held_out_rate_with_its_head_only_when_evaluated_with_it(
    tmp_path: Path, tiny_model_dir: Path
) -> None:
    layout = RunLayout(tmp_path / "run")
    assert best_checkpoint(layout.root) is None
    _evaluated(layout, 0, tiny_model_dir, 0.4)
    _evaluated(layout, 1, tiny_model_dir, 0.7)
    _evaluated(layout, 1, tiny_model_dir, 0.6, ebm=True)
    _evaluated(layout, 2, tiny_model_dir, 0.5)
    best = best_checkpoint(layout.root)
    assert best is not None and best.iteration == 1 and best.ebm_dir is None and best.solve_rate == 0.7
    _evaluated(layout, 2, tiny_model_dir, 0.8, ebm=True)
    best = best_checkpoint(layout.root)
    assert best is not None and best.iteration == 2 and best.ebm_dir == layout.ebm(2)
    # a checkpoint without its weights' config is not a candidate, however well it was rated
    (layout.llm(2) / "config.json").unlink()
    best = best_checkpoint(layout.root)
    assert best is not None and best.iteration == 1


def test_prove_uses_the_runs_best_checkpoint_unless_told_otherwise(
    tmp_path: Path, tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = RunLayout(tmp_path / "run")
    _evaluated(layout, 0, tiny_model_dir, 0.3)
    _evaluated(layout, 1, tiny_model_dir, 0.6)
    common = ["∀ (n : Nat), n + 0 = n", "--max-nodes", "2", "--set", "policy.max_new_tokens=8",
              "--set", f"paths.home={tmp_path / 'home'}", "--set", f"paths.run_dir={tmp_path / 'none'}"]  # fmt: skip
    main(["prove", *common, "--run-dir", str(layout.root)])
    out = capsys.readouterr().out
    assert out.startswith(f"using the best checkpoint of {layout.root}: iteration 1 (60.0% held-out")
    main(["prove", *common, "--run-dir", str(layout.root), "--base"])
    assert "using" not in capsys.readouterr().out
    # paths.run_dir is where prove looks when no --run-dir is given
    main(["prove", *common[:-1], f"paths.run_dir={layout.root}"])
    assert "iteration 1" in capsys.readouterr().out
    # a named run without an evaluated checkpoint: one line, exit 2, nothing searched
    assert main(["prove", *common, "--run-dir", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no evaluated checkpoint" in err


def test_an_unreadable_report_or_checkpoint_is_named_as_damaged_not_taken_for_missing(
    tmp_path: Path, tiny_model_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: an unreadable checkpoint was reported as missing (the best iteration's garbled
    report was passed over: prove used a worse iteration, or said there was none)."""
    import burnqed.search.evaluation
    from burnqed.iteration.errors import CheckpointUnreadable

    layout = RunLayout(tmp_path / "run")
    _evaluated(layout, 0, tiny_model_dir, 0.3)
    _evaluated(layout, 1, tiny_model_dir, 0.6)
    report = layout.eval_result(1, False)
    report.write_text(report.read_text()[:40])  # garbled
    common = ["∀ (n : Nat), n + 0 = n", "--max-nodes", "2", "--set", f"paths.home={tmp_path / 'home'}"]
    assert main(["prove", *common, "--run-dir", str(layout.root)]) == 2
    out = capsys.readouterr()
    assert "using" not in out.out and out.err.count("\n") == 1
    assert f"{report} (iteration 1's held-out report) is unreadable or damaged" in out.err and "--model" in out.err
    _evaluated(layout, 1, tiny_model_dir, 0.6)

    def denied(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    with monkeypatch.context() as m:  # root reads through chmod 000: the refusal a user meets, raised as it is
        m.setattr(burnqed.search.evaluation, "load_report", denied)
        with pytest.raises(CheckpointUnreadable, match="PermissionError"):
            best_checkpoint(layout.root)
    (layout.llm(1) / "config.json").write_text("{garbled")
    with pytest.raises(CheckpointUnreadable, match=r"iter_1/config.json is unreadable or damaged \(JSONDecodeError"):
        best_checkpoint(layout.root)
