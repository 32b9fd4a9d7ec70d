"""Issue 28, the chaos run (short and bounded; ``burnqed bench chaos`` is the long one): a run
directory driven by the daemon while SIGKILLs, a SIGTERM, a competing ``iterate`` and
competing ``search`` runs hit it; afterwards its iteration equals an undisturbed run's
(reports per theorem, trajectory rows per theorem, blueprint entry, session record), the
audit says ok, and every competitor was refused in one line or ran as the run's one writer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from burnqed.bench.chaos import run_chaos
from burnqed.config import load_config


@pytest.mark.timeout(1500)
def test_a_run_hit_by_kills_and_competitors_equals_an_undisturbed_one(tmp_path: Path, tiny_model_dir: Path) -> None:
    home = load_config(None, [f"paths.home='{tmp_path / 'home'}'"]).paths.tiny_model_dir
    shutil.copytree(tiny_model_dir, home)  # the model the runs would otherwise build
    # seed 1560's first five hits are every kind once, each kill at least 6 s after the daemon
    # (re)started, so it lands in the session's work: a competing iterate, SIGKILL, a search beside
    # the run, a search into the run's trajectories, SIGTERM (three daemon starts in all)
    result = run_chaos(tmp_path, sessions=1, window=120.0, seed=1560, max_actions=5,
                       overrides=["iteration.train_size=3", "iteration.eval_size=2"])
    assert result["finished"], result
    assert all(result["actions"].values()), result["actions"]  # every kind of hit, at least once
    assert result["equal"], result["differences"]
    assert result["audit_ok"]
    assert result["iterations"] == ["iter_0"]
    for competitor in result["competitors"]:
        assert competitor["rc"] == 0 or competitor["lines"] == 1, competitor
        if competitor["what"] == "search_into_run":
            assert competitor["rc"] == 2 and "belongs to the iterations" in competitor["line"]
