"""Issue 28: a resume uses only what was made for the same work. A step marker made for
another plan stops the iteration (a truncated BLUEPRINT.md re-created with a new plan does
not inherit the old results); a missing previous policy stops iteration N instead of
silently fine-tuning the base model; an entry the crash budget failed waits for the
operator; a theorem whose worker died writes no trajectory rows (no training negative) and
a resumed search tries it again."""

from __future__ import annotations

from pathlib import Path

import anyio
import pyarrow.parquet as pq
import pytest

from burnqed.blueprint import BlueprintStore, IterationSpec
from burnqed.config import BurnqedConfig
from burnqed.data.theorems import Theorem
from burnqed.iteration import RunLayout
from burnqed.iteration.errors import IterationDataError, IterationError
from burnqed.search import RuleGenerator, SearchConfig, search_theorems
from burnqed.search.store import StatementStore, store_dir
from tests.iteration.test_runner import Recorder, _run, config  # noqa: F401 - the fixture
from tests.search.toy_pool import ToyPool


@pytest.mark.anyio
async def test_a_marker_made_for_another_plan_stops_the_iteration(config: BurnqedConfig) -> None:  # noqa: F811
    layout = RunLayout(config.paths.run_dir)
    with pytest.raises(Exception, match="simulated crash"):
        await _run(config, 1, Recorder(crash_at="train_ebm"))
    assert layout.read_marker(0, "sft")["plan_fingerprint"]  # type: ignore[index]
    layout.blueprint.write_text("", encoding="utf-8")  # truncated by hand
    other = config.model_copy(update={"iteration": config.iteration.model_copy(update={"max_nodes": 2})})
    with pytest.raises(IterationError, match="made for another plan"):
        await _run(other, 1, hook := Recorder())
    assert hook.seen == []  # no step ran on the old results
    assert layout.read_marker(0, "train_ebm") is None


@pytest.mark.anyio
async def test_the_same_plan_resumes_from_its_markers(config: BurnqedConfig) -> None:  # noqa: F811
    layout = RunLayout(config.paths.run_dir)
    with pytest.raises(Exception, match="simulated crash"):
        await _run(config, 1, Recorder(crash_at="train_ebm"))
    [report] = await _run(config, 1, Recorder())
    assert report.skipped == ["sft"] and "train_ebm" in report.executed
    assert BlueprintStore(layout.blueprint).get("iter_0").status == "done"


@pytest.mark.anyio
async def test_a_missing_previous_policy_stops_the_iteration(config: BurnqedConfig) -> None:  # noqa: F811
    layout = RunLayout(config.paths.run_dir)
    store = BlueprintStore(layout.blueprint, config.blueprint)
    store.schedule_iteration(IterationSpec(label="iter_0"))
    store.record_results("iter_0", {})
    store.put(store.get("iter_0").with_meta(status="done"))  # iteration 0 done, its checkpoint lost
    with pytest.raises(IterationDataError, match=r"previous policy .*iter_0 is missing"):
        await _run(config, 2, hook := Recorder())
    assert hook.seen == ["1:sft"]
    assert not layout.llm(1).exists() and layout.read_marker(1, "sft") is None
    assert store.get("iter_1").status == "failed"


@pytest.mark.anyio
async def test_an_entry_the_crash_budget_failed_is_not_rerun_by_iterate(config: BurnqedConfig) -> None:  # noqa: F811
    store = BlueprintStore(RunLayout(config.paths.run_dir).blueprint, config.blueprint)
    store.schedule_iteration(IterationSpec(label="iter_0"))
    store.update_status("iter_0", "running")
    crashes = config.blueprint.max_crash_restarts
    store.put(store.get("iter_0").with_meta(crashes=str(crashes)))
    with pytest.raises(IterationError, match="coordinator resume"):
        await _run(config, 1, Recorder())  # the crash past the budget fails it
    assert store.get("iter_0").status == "failed"
    with pytest.raises(IterationError, match="coordinator resume"):
        await _run(config, 1, hook := Recorder())  # and a second iterate does not run it either
    assert hook.seen == [] and store.get("iter_0").status == "failed"


@pytest.mark.anyio
async def test_a_lost_theorem_writes_no_rows_and_a_resume_retries_it(tmp_path: Path) -> None:
    theorems = [Theorem(name="ok", statement="True"), Theorem(name="dies", statement="A ∧ B")]
    cfg = SearchConfig(automation_tactics=["trivial", "constructor"], time_limit_s=10.0, concurrency=1,
                       max_nodes=5, lost_retries=0)
    out = tmp_path / "out.parquet"
    with anyio.fail_after(60):
        store = StatementStore(store_dir(out), output=out)
        results = await search_theorems(ToyPool(die_on="constructor", die_times=5), RuleGenerator(), None,
                                        theorems, cfg, store=store)
        store.finalize()
    assert [r.reason for r in results] == ["proved", "lost"] and results[1].infrastructure
    names = set(pq.read_table(out, columns=["theorem"]).column("theorem").to_pylist())
    assert names == {"ok"}  # no root row labelled 0 for the lost one
    with anyio.fail_after(60):
        store = StatementStore(store_dir(out), output=out, resume=True)
        again = await search_theorems(ToyPool(), RuleGenerator(), None, theorems, cfg, store=store)
        store.finalize()
    assert [r.theorem.name for r in again] == ["dies"]  # only the lost one is searched again
    names = pq.read_table(out, columns=["theorem"]).column("theorem").to_pylist()
    assert set(names) == {"ok", "dies"}


def test_a_corrupt_earlier_trajectory_is_one_line(
    tmp_path: Path, tiny_model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from burnqed.cli import main
    from tests.iteration.test_iterate_signals import _config

    config_file = _config(tmp_path, tiny_model_dir)
    run_dir = tmp_path / "run"
    layout = RunLayout(run_dir)
    store = BlueprintStore(layout.blueprint)
    store.schedule_iteration(IterationSpec(label="iter_0"))
    store.put(store.get("iter_0").with_meta(status="done"))
    shutil.copytree(tiny_model_dir, layout.llm(0))  # iteration 0's policy is there …
    layout.trajectories(0).parent.mkdir(parents=True)
    layout.trajectories(0).write_bytes(b"PAR1 this is not parquet")  # … its trajectories are damaged
    rc = main(["--config", str(config_file), "iterate", "--run-dir", str(run_dir), "--iterations", "2", "--quiet"])
    err = capsys.readouterr().err
    assert rc != 0 and "Traceback" not in err and err.count("\n") == 1, err
    assert "iter_0.parquet" in err and "--force" not in err
