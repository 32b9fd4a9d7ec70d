"""The expert-iteration runner end to end on a tiny set (scripted REPL + the tiny model), and its resumes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from burnqed.blueprint import BlueprintStore
from burnqed.config import BurnqedConfig
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.blueprint import IterationSpec
from burnqed.iteration import STEPS, IterationRunner, RunLayout, StepInterrupted
from burnqed.iteration.errors import IterationError
from burnqed.lean import LeanPool
from tests.fixtures.lean import fake_config

TRAIN = [
    Theorem(name="add_comm", statement="∀ (a b : Nat), a + b = b + a", proof=["intro a b", "omega"]),
    Theorem(name="and_intro", statement="∀ (p q : Prop), p → q → p ∧ q",
            proof=["intro p q hp hq", "constructor", "exact hp", "exact hq"]),
    Theorem(name="refl", statement="∀ (n : Nat), n = n", proof=["intro n", "rfl"]),
    # the scripted REPL never closes a goal that mentions False: dead ends for the energy head
    Theorem(name="stuck", statement="∀ (n : Nat), n = n → False ∨ n = n"),
    Theorem(name="stuck2", statement="∀ (p : Prop), p → False"),
]
HELD_OUT = [
    Theorem(name="mul_comm", statement="∀ (a b : Nat), a * b = b * a", proof=["intro a b", "ring"]),
    Theorem(name="stuck3", statement="∀ (m : Nat), False ∧ m = m"),
]


@pytest.fixture
def config(tmp_path: Path, tiny_model_dir: Path) -> BurnqedConfig:
    save_theorems(tmp_path / "train.jsonl", TRAIN)
    save_theorems(tmp_path / "held_out.jsonl", HELD_OUT)
    return BurnqedConfig.model_validate(
        {
            "lean": fake_config().model_dump(),
            "policy": {
                "model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "float32",
                "max_new_tokens": 10, "max_prompt_tokens": 128, "seed": 0,
                "sft": {"epochs": 1, "batch_size": 8, "device": "cpu", "warmup_steps": 0},
            },
            "ebm": {"epochs": 1, "hidden_dims": [16], "batch_size": 4, "num_negatives": 1, "val_fraction": 0.0,
                    "device": "cpu", "warmup_steps": 0},
            "search": {"num_candidates": 2, "max_nodes": 3, "max_depth": 4, "time_limit_s": 30.0,
                       "automation_tactics": ["rfl"], "concurrency": 2},
            "iteration": {"train_set": str(tmp_path / "train.jsonl"), "train_size": 10,
                          "eval_set": str(tmp_path / "held_out.jsonl"), "eval_size": 0,
                          "max_nodes": None, "num_candidates": None, "time_limit_s": None,
                          "first_sft_epochs": 1, "sft_epochs": 1,
                          "ebm_min_positives": 1},
            "blueprint": {"iteration_attempts_budget": 20},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / "run")},
        }
    )


class Recorder:
    """A step hook that records the steps it sees and crashes at one of them."""

    def __init__(self, crash_at: str | None = None) -> None:
        self.crash_at = crash_at
        self.seen: list[str] = []

    def __call__(self, index: int, step: str) -> None:
        self.seen.append(f"{index}:{step}")
        if step == self.crash_at:
            raise StepInterrupted(f"simulated crash at {step}")


async def _run(config: BurnqedConfig, iterations: int, hook: Recorder | None = None) -> Any:
    with anyio.fail_after(240):
        async with LeanPool(config.lean) as pool:
            runner = IterationRunner(config, config.paths.run_dir, pool, hook=hook)
            return await runner.run(iterations)


@pytest.mark.anyio
async def test_two_iterations_write_every_output_and_the_blueprint(config: BurnqedConfig) -> None:
    reports = await _run(config, 2)
    layout = RunLayout(config.paths.run_dir)
    assert [r.index for r in reports] == [0, 1]
    for i in (0, 1):
        assert (layout.llm(i) / "config.json").is_file()
        assert layout.trajectories(i).is_file()
        for with_ebm in (True, False):
            report = json.loads(layout.eval_result(i, with_ebm).read_text(encoding="utf-8"))
            assert report["total"] == len(HELD_OUT) and 0 <= report["solve_rate"] <= 1
    first, second = reports
    assert first.steps.train_ebm.trained is False  # nothing to learn from before iteration 0
    assert first.steps.sft.sources == {"reference": 8}
    assert first.steps.search.theorems == len(TRAIN)
    # iteration 1 learns from iteration 0's proofs and trains an energy head on them
    assert second.steps.sft.sources["trajectories"] > 0
    assert second.steps.train_ebm.trained is True, second.steps.train_ebm
    assert (layout.ebm(1) / "head.safetensors").is_file()
    assert json.loads(layout.eval_result(1, True).read_text(encoding="utf-8"))["ebm"] is not None
    store = BlueprintStore(layout.blueprint)
    entries = store.list_entries(kind="iteration")
    assert [(e.label, e.status, e.attempts) for e in entries] == [("iter_0", "done", 1), ("iter_1", "done", 1)]
    assert entries[1].results["solve_rate_no_ebm"] == second.solve_rate_no_ebm
    assert store.validate() == []
    # a second call finds everything done and runs nothing
    again = await _run(config, 2, hook := Recorder())
    assert hook.seen == [] and [r.executed for r in again] == [[], []]


@pytest.mark.anyio
async def test_a_crash_in_each_step_resumes_without_redoing_finished_steps(config: BurnqedConfig) -> None:
    config.iteration.max_nodes = 2
    layout = RunLayout(config.paths.run_dir)
    crash_points = [s for step in STEPS for s in (step, f"{step}:finished")]
    previous: str | None = None
    for crash_at in crash_points:
        hook = Recorder(crash_at)
        with pytest.raises(StepInterrupted):
            await _run(config, 1, hook)
        assert hook.seen[-1] == f"0:{crash_at}"
        # no finished step ran again: the run started where the last one stopped
        if previous is not None:
            assert hook.seen[0].startswith(f"0:{previous.split(':')[0]}")
        done = [s for s in STEPS if layout.read_marker(0, s) is not None]
        step = crash_at.split(":")[0]
        assert done == list(STEPS[: STEPS.index(step)])
        assert BlueprintStore(layout.blueprint).get("iter_0").status == "failed"
        previous = crash_at
    hook = Recorder()
    [report] = await _run(config, 1, hook)
    assert hook.seen == ["0:evaluate", "0:evaluate:finished"]
    assert report.executed == ["evaluate"] and report.skipped == list(STEPS[:-1])
    entry = BlueprintStore(layout.blueprint).get("iter_0")
    assert entry.status == "done" and entry.attempts == len(crash_points) + 1
    assert "failed" in entry.notes and "simulated crash" in entry.notes


@pytest.mark.anyio
async def test_pending_entries_run_with_their_plan(config: BurnqedConfig) -> None:
    from burnqed.blueprint import IterationSpec

    layout = RunLayout(config.paths.run_dir)
    store = BlueprintStore(layout.blueprint)
    store.schedule_iteration(IterationSpec(train_size=2, eval_size=1, max_nodes=2, use_ebm=False))
    with anyio.fail_after(240):
        async with LeanPool(config.lean) as pool:
            [report] = await IterationRunner(config, layout.root, pool).run_pending()
    assert report.label == "iter_0"
    assert report.steps.search.theorems == 2  # the plan's train_size, not the config's
    assert report.steps.evaluate_no_ebm.total == 1
    assert store.get("iter_0").status == "done" and store.pending_iterations() == []


@pytest.mark.anyio
async def test_an_exhausted_iteration_is_not_run(config: BurnqedConfig) -> None:
    from burnqed.blueprint import IterationSpec
    from burnqed.iteration import IterationError

    layout = RunLayout(config.paths.run_dir)
    store = BlueprintStore(layout.blueprint)
    store.schedule_iteration(IterationSpec(attempts_budget=1))
    store.update_status("iter_0", "failed")
    with anyio.fail_after(60):
        async with LeanPool(config.lean) as pool:
            with pytest.raises(IterationError, match="exhausted"):
                await IterationRunner(config, layout.root, pool).run(1)
    assert not layout.marker(0, "sft").exists()


@pytest.mark.anyio
async def test_an_entry_left_running_by_a_kill_resumes_as_a_crash_not_an_attempt(config: BurnqedConfig) -> None:
    store = BlueprintStore(RunLayout(config.paths.run_dir).blueprint, config.blueprint)
    store.schedule_iteration(IterationSpec(label="iter_0"))
    store.update_status("iter_0", "running")  # what SIGKILL leaves behind
    with pytest.raises(StepInterrupted):
        await _run(config, 1, Recorder(crash_at=STEPS[0]))
    entry = store.get("iter_0")
    assert (entry.attempts, entry.crashes) == (1, 1)
    # past the crash limit the entry fails and nothing runs until the operator resumes it
    store.put(entry.with_meta(status="running", crashes=str(config.blueprint.max_crash_restarts)))
    with pytest.raises(IterationError, match="coordinator resume"):
        await _run(config, 1, hook := Recorder())
    assert hook.seen == [] and store.get("iter_0").status == "failed"
    assert store.get("iter_0").attempts == 1


def test_every_step_has_a_summary_model_and_old_markers_still_read(tmp_path: Path) -> None:
    from burnqed.iteration.summaries import STEP_MODELS, SearchSummary, read_summaries

    assert tuple(STEP_MODELS) == STEPS
    layout = RunLayout(tmp_path / "run")
    layout.write_marker(0, "search", {"train_set": "core[8]", "theorems": 8, "proved": 6, "proved_rate": 0.75,
                                      "rows": 40, "trajectories": "t.parquet", "step_seconds": 2.5,
                                      "a_field_of_an_older_version": 1})
    layout.write_marker(0, "sft", {"pairs": "not a number"})  # unreadable: the step is not done
    steps = read_summaries(layout, 0)
    assert isinstance(steps.search, SearchSummary) and steps.search.proved_rate == 0.75
    assert steps.sft is None and steps.finished() == ["search"]


@pytest.mark.anyio
async def test_ebm_eval_last_evaluates_the_head_only_in_the_last_iteration(config: BurnqedConfig) -> None:
    config = config.model_copy(
        update={"iteration": config.iteration.model_copy(update={"ebm_eval": "last", "iterations": 3})}
    )
    reports = await _run(config, 3)
    layout = RunLayout(config.paths.run_dir)
    middle, last = reports[1], reports[2]
    assert middle.steps.train_ebm.trained is True
    # a head exists in iteration 1, but its with-head evaluation is left to the last iteration
    assert middle.steps.evaluate.ebm_skipped is True and middle.steps.evaluate.energy_head is None
    assert not layout.eval_result(1, True).exists() and layout.eval_result(1, False).is_file()
    assert middle.solve_rate == middle.solve_rate_no_ebm
    assert last.steps.evaluate.ebm_skipped is False
    assert json.loads(layout.eval_result(2, True).read_text(encoding="utf-8"))["ebm"] is not None
