"""``iteration.cluster``: the search and evaluate steps on Ray Lean actors write what the local steps write.

One iteration runs locally (fine-tune, search, evaluate); a second run directory gets the
same fine-tuned checkpoint and step markers and runs the search and evaluate steps on a
local Ray (2 Lean actors, the embedded backend, the tiny model in the policy actor; the Ray
is the directory's shared one, which the steps join and leave running). The
first cluster attempt dies after two committed statements; the rerun resumes without
searching them again or writing any row twice, and the trajectories and held-out report
match the local run's.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pyarrow.parquet as pq
import pytest

from burnqed.cluster.campaign import Campaign
from burnqed.config import BurnqedConfig
from burnqed.data.sets import load_builtin
from burnqed.data.theorems import save_theorems
from burnqed.iteration import IterationRunner, RunLayout
from burnqed.lean import LeanPool

pytestmark = pytest.mark.anyio

TRAIN = load_builtin("benchmark-test")[:24:4]  # 6 statements over the levels
HELD_OUT = load_builtin("benchmark-test")[2:26:4]


class DriverDied(Exception):
    """Stands in for the driver dying mid-search."""


def _config(tmp_path: Path, tiny_model_dir: Path, run: str, *, cluster: bool) -> BurnqedConfig:
    save_theorems(tmp_path / "train.jsonl", TRAIN)
    save_theorems(tmp_path / "held_out.jsonl", HELD_OUT)
    return BurnqedConfig.model_validate(
        {
            "lean": {"backend": "embedded", "num_workers": 3},
            "policy": {
                "model_dir": str(tiny_model_dir), "device": "cpu", "dtype": "float32",
                "max_new_tokens": 10, "max_prompt_tokens": 128, "seed": 0,
                "sft": {"epochs": 1, "batch_size": 8, "device": "cpu", "warmup_steps": 0},
            },
            "search": {"num_candidates": 2, "max_nodes": 4, "max_depth": 6, "time_limit_s": 60.0, "concurrency": 2},
            "iteration": {
                "train_set": str(tmp_path / "train.jsonl"), "train_size": len(TRAIN),
                "eval_set": str(tmp_path / "held_out.jsonl"), "eval_size": 0,
                "max_nodes": None, "num_candidates": None, "first_sft_epochs": 1, "torch_threads": 1,
                "cluster": cluster,
            },
            "cluster": {"lean_actors": 2, "workers_per_actor": 1, "searches_per_actor": 1,
                        "policy_actor_cpus": 1, "local_cpus": 4},
            "paths": {"home": str(tmp_path / "home"), "run_dir": str(tmp_path / run)},
        }
    )  # fmt: skip


async def _run(config: BurnqedConfig) -> Any:
    async with LeanPool(config.lean) as pool:
        return (await IterationRunner(config, config.paths.run_dir, pool).run(1))[0]


def _rows(path: Path) -> dict[str, int]:
    frame = pq.read_table(path).to_pandas()
    assert not frame.duplicated(["theorem", "node_id"]).any(), "a statement's rows were written twice"
    return frame.groupby("theorem").size().to_dict()


def _proved(path: Path) -> set[str]:
    frame = pq.read_table(path, columns=["theorem", "label"]).to_pandas()
    return set(frame.loc[frame["label"] == 1, "theorem"])


def _outcomes(path: Path) -> dict[str, tuple[bool, list[str] | None]]:
    report = json.loads(path.read_text(encoding="utf-8"))
    return {o["name"]: (o["proved"], o["proof"]) for o in report["outcomes"]}


async def test_search_and_evaluate_on_ray_match_the_local_steps_and_resume(
    tmp_path: Path, tiny_model_dir: Path, local_ray: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = _config(tmp_path, tiny_model_dir, "local", cluster=False)
    with anyio.fail_after(240):
        await _run(local)
    here = RunLayout(local.paths.run_dir)
    # the cluster run starts after fine-tuning: the same checkpoint, the sft / train_ebm markers
    remote_config = _config(tmp_path, tiny_model_dir, "cluster", cluster=True)
    there = RunLayout(remote_config.paths.run_dir)
    shutil.copytree(here.llm(0), there.llm(0))
    for step in ("sft", "train_ebm"):
        there.marker(0, step).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(here.marker(0, step), there.marker(0, step))

    original = Campaign.run
    committed: list[str] = []

    async def dies_after_two(self: Campaign, theorems: Any, **kwargs: Any) -> Any:
        def on_result(result: Any) -> None:
            committed.append(result.theorem.name)
            if len(committed) == 2:
                raise DriverDied

        return await original(self, theorems, **{**kwargs, "on_result": on_result})

    monkeypatch.setattr(Campaign, "run", dies_after_two)
    with anyio.fail_after(240), pytest.RaisesGroup(DriverDied, allow_unwrapped=True, flatten_subgroups=True):
        await _run(remote_config)
    assert set(_rows(there.trajectories(0))) == set(committed)  # what was committed was merged
    calls: list[tuple[int, int]] = []  # (searched, skipped) per campaign

    async def counted(self: Campaign, theorems: Any, **kwargs: Any) -> Any:
        result = await original(self, theorems, **kwargs)
        calls.append((len(result.results), result.skipped))
        return result

    monkeypatch.setattr(Campaign, "run", counted)
    with anyio.fail_after(240):
        report = await _run(remote_config)

    # the search campaign skipped every committed statement (two, or three when a second actor's
    # result landed while the driver died); the evaluation searched every held-out one
    assert 2 <= len(committed) < len(TRAIN)
    assert calls == [(len(TRAIN) - len(committed), len(committed)), (len(HELD_OUT), 0)]
    assert report.executed == ["search", "evaluate_no_ebm", "evaluate"]
    assert report.skipped == ["sft", "train_ebm"]
    assert not there.store(0, "search").exists()
    assert _rows(there.trajectories(0)) == _rows(here.trajectories(0))
    assert _proved(there.trajectories(0)) == _proved(here.trajectories(0))
    assert 0 < len(_proved(here.trajectories(0))) < len(TRAIN)  # a comparison with something to compare
    for with_ebm in (False, True):
        ours, theirs = there.eval_result(0, with_ebm), here.eval_result(0, with_ebm)
        assert _outcomes(ours) == _outcomes(theirs)
        assert any(proved for proved, _ in _outcomes(ours).values())
        mine, local_report = (json.loads(p.read_text(encoding="utf-8")) for p in (ours, theirs))
        for key in ("label", "backend", "total", "solved", "theorem_set", "ebm", "search"):
            assert mine[key] == local_report[key], key
    assert local_ray.is_initialized()  # the steps joined the running Ray and left it to its owner


def test_iterate_cluster_without_ray_fails_in_one_line_before_any_iteration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from burnqed.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    run = tmp_path / "run"
    args = ["iterate", "--cluster", "--run-dir", str(run), "--iterations", "1", "--quiet",
            "--set", "lean.backend=embedded", "--set", f"paths.home={json.dumps(str(tmp_path / 'home'))}"]  # fmt: skip
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == "burnqed: cluster mode needs Ray: pip install 'burnqed[cluster]'"
    assert not RunLayout(run).blueprint.exists() and not RunLayout(run).marker(0, "sft").parent.exists()
