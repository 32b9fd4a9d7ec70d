"""``bench cluster --simulated-latency-ms``: the sweep runs on Ray with the latency really applied.

No speed-up is asserted (speed is for the benchmark itself); the test checks that every run
searched its copies with the local search's result, that each tactic waited out the latency
(an actor's tactics run one after another, so its run lasts at least tactics × latency), and
that the CPU and memory of each part were read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from burnqed.cli import main
from burnqed.config import load_config

pytestmark = pytest.mark.anyio

LATENCY_MS = 30


@pytest.fixture
def ray_up() -> Iterator[Any]:
    """A local Ray with two CPUs (the sweep's actors reserve none)."""
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, namespace="burnqed-tests")
    try:
        yield ray
    finally:
        ray.shutdown()


async def test_the_sweep_applies_the_latency_and_reports_each_parts_cpu(ray_up: Any) -> None:
    from burnqed.bench.cluster_scaling import sweep

    with anyio.fail_after(300):
        result = await sweep(
            load_config(None, []), latency_ms=LATENCY_MS, counts=(1, 2), statements_per_actor=2, repeats=1
        )
    assert result["same_results_as_local"] and result["latency_ms"] == LATENCY_MS
    runs = result["sweeps"][0]["actors"]
    assert set(runs) == {"1", "2"} and [row["actors"] for row in result["table"]] == [1, 2]
    for count, run in runs.items():
        assert run["statements"] == 2 * int(count) and run["tactics"] == run["statements"] * result["unit"]["tactics"]
        per_actor = run["tactics"] / int(count)
        assert run["wall_s"] >= per_actor * LATENCY_MS / 1000
        cores = run["cpu_cores"]
        assert all(cores[part] is not None and cores[part] >= 0 for part in ("driver", "policy_actor", "ray_system"))
        assert cores["lean_actors"] > 0 and cores["checkers"] > 0  # (a short run's driver may spend < 1 tick)
        # /proc/stat and the processes' own times are read at slightly different instants, in
        # 10 ms ticks: on a short run the machine's figure may trail ours by a few ticks
        assert cores["ours"] > 0 and cores["machine_busy"] >= 0.8 * cores["ours"]
        assert run["rss_mb"]["checkers"] > 0 and run["rss_mb"]["lean_actors"] > 0
    assert set(result["projected_actors_per_full_core"]) == {"driver", "policy_actor", "ray_system"}


def test_the_latency_flag_belongs_to_bench_cluster_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "embedded", "--simulated-latency-ms", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "applies to `bench cluster` only" in err
    with pytest.raises(SystemExit) as exited:
        main(["bench", "cluster", "--simulated-latency-ms", "0"])
    assert exited.value.code == 2 and "must be 1 to 60000 ms" in capsys.readouterr().err
