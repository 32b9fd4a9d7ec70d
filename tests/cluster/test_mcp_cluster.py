"""``launch_search(cluster=True)`` through a real MCP session: the job runs on Ray Lean actors and
reports what a local job reports; no Ray, or no reachable cluster, is an error result (no traceback)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pyarrow.parquet as pq
import pytest
from mcp import Client

from burnqed.search.store import store_dir as shards_dir
from burnqed.config import load_config
from burnqed.tools.search.server import build_server

pytestmark = pytest.mark.anyio

STATEMENTS = ["∀ (n : Nat), n + 0 = n", "∀ (a b : Nat), a + b = b + a", "False", "∀ (p : Prop), p → p"]
# an operator's server: cluster jobs are off unless tools.allow_cluster_jobs (never the coordinator's)
CLUSTER = {"lean.backend": "embedded", "cluster.lean_actors": 2, "cluster.workers_per_actor": 1, "cluster.local_cpus": 4,
           "tools.allow_cluster_jobs": True}


async def _call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(60):
        return await client.call_tool(tool, args)


async def _finished(client: Client, job_id: str) -> dict[str, Any]:
    with anyio.fail_after(120):
        while (view := (await _call(client, "job_status", job_id=job_id, wait_s=2)).structured_content)[
            "status"
        ] == "running":
            pass
    return view


def _proofs(full: dict[str, Any]) -> dict[str, tuple[bool, Any]]:
    return {o["name"]: (o["proved"], o["proof"]) for o in full["outcomes"]}


async def test_a_cluster_job_reports_what_a_local_job_reports(
    tools_overrides: dict[str, Any], local_ray_absent: Any
) -> None:
    config = load_config(None, {**tools_overrides, **CLUSTER})
    results: dict[bool, dict[str, Any]] = {}
    async with Client(build_server(config)) as client:
        for cluster in (False, True):
            launched = await _call(
                client, "launch_search", statements=STATEMENTS, policy="none", budget={"max_nodes": 6}, cluster=cluster
            )
            assert not launched.is_error, launched.content[0].text
            view = await _finished(client, launched.structured_content["job_id"])
            assert view["status"] == "succeeded", view
            full = await _call(client, "job_result", job_id=view["job_id"], detail="full")
            results[cluster] = {"view": view, "full": full.structured_content["result"]}
        assert local_ray_absent.is_initialized()  # the server keeps its Ray for later jobs
    assert not local_ray_absent.is_initialized()  # … and shuts it down with itself
    local, remote = results[False], results[True]
    assert _proofs(remote["full"]) == _proofs(local["full"]) and remote["full"]["solved"] >= 2
    outcome = remote["view"]["outcome"]
    assert outcome["cluster"]["lean_actors"] == 2 and outcome["backend"] == "embedded"
    trajectories = Path(outcome["trajectories"])
    assert not shards_dir(trajectories).exists()
    frame = pq.read_table(trajectories).to_pandas()
    assert not frame.duplicated(["theorem", "node_id"]).any()
    assert len(frame) == len(pq.read_table(local["view"]["outcome"]["trajectories"]))


def _a_ray_runs_on_this_machine() -> bool:
    """What ``address = "auto"`` would join: a cluster's address file, or any GCS process here."""
    from ray._private import services

    services.find_gcs_addresses.cache_clear()
    return bool(services.find_gcs_addresses()) or services.find_bootstrap_address(None) is not None


async def test_no_reachable_cluster_and_no_ray_are_error_results(
    tools_overrides: dict[str, Any], local_ray_absent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    if _a_ray_runs_on_this_machine():
        pytest.skip("another process runs Ray here: address 'auto' would join it")
    # "auto" joins a running cluster: there is none
    config = load_config(None, {**tools_overrides, **CLUSTER, "cluster.address": "auto"})
    async with Client(build_server(config)) as client:
        unreachable = await _call(client, "launch_search", statements=STATEMENTS, policy="none", cluster=True)
        monkeypatch.setitem(sys.modules, "ray", None)
        missing = await _call(client, "launch_search", statements=STATEMENTS, policy="none", cluster=True)
        listed = (await _call(client, "list_jobs")).structured_content["jobs"]
    assert unreachable.is_error and "cannot start or join Ray at 'auto'" in unreachable.content[0].text
    assert missing.is_error and missing.content[0].text.endswith("pip install 'burnqed[cluster]'")
    assert "Traceback" not in unreachable.content[0].text + missing.content[0].text
    assert listed == []  # no job was launched
