"""The [cluster] section, the optional Ray extra, and errors that cross a process boundary."""

from __future__ import annotations

import pickle
import sys

import pytest

from burnqed.cluster.config import ClusterConfig
from burnqed.cluster.errors import RayMissing
from burnqed.cluster.ray_support import RAY_EXTRA_HINT, import_ray
from burnqed.cluster.spec import ClusterSpec
from burnqed.config import ConfigError, load_config
from burnqed.lean.errors import InvalidStatement, OutsideFragment, statement_refused
from burnqed.policy.config import PolicyConfig


def test_the_cluster_section_is_composed_into_the_config_and_overridable() -> None:
    config = load_config(None, ["cluster.address=auto", "cluster.lean_actors=8", 'cluster.lean_actor_resources={lean = 1}'])
    assert config.cluster == ClusterConfig(address="auto", lean_actors=8, lean_actor_resources={"lean": 1.0})
    with pytest.raises(ConfigError, match="cluster.workers"):
        load_config(None, ["cluster.workers=3"])


def test_without_ray_a_cluster_run_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayMissing, match=r"pip install 'burnqed\[cluster\]'") as caught:
        import_ray()
    assert str(caught.value) == RAY_EXTRA_HINT and "\n" not in RAY_EXTRA_HINT


def test_the_policy_runs_in_one_actor_only_for_a_local_model() -> None:
    assert ClusterSpec(policy="model").placement() == "actor"
    assert ClusterSpec(policy="none").placement() == "each"
    assert ClusterSpec(policy="model", policy_config=PolicyConfig(backend="openai")).placement() == "each"
    chosen = ClusterSpec(policy="none", cluster=ClusterConfig(policy_placement="actor"))
    assert chosen.placement() == "actor"


@pytest.mark.parametrize("desc", ["unknown identifier 'x'", "ℝ is outside the embedded fragment"])
def test_a_refused_statement_survives_pickling_as_itself(desc: str) -> None:
    error = statement_refused("elab", desc)
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and isinstance(back, InvalidStatement)
    assert (back.error, back.desc, str(back)) == (error.error, error.desc, str(error))
    assert isinstance(back, OutsideFragment) == ("outside" in desc)


def test_the_cluster_bench_reports_p50_and_p99() -> None:
    from burnqed.bench.cluster import percentiles

    assert percentiles([float(v) for v in range(1, 101)]) == {"p50": 50.5, "p99": 99.0}
    assert percentiles([]) == {"p50": 0.0, "p99": 0.0}
