"""The blueprint server: targets, status changes with attempt accounting, scheduled iterations, locks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.blueprint import BlueprintStore, IterationSpec
from burnqed.config import BurnqedConfig
from burnqed.data.theorems import statement_sha
from burnqed.tools.blueprint.server import build_server

pytestmark = pytest.mark.anyio

STATEMENT = "∀ (n : Nat), n + 0 = n"


@pytest.fixture
def store(tools_config: BurnqedConfig) -> BlueprintStore:
    store = BlueprintStore(tools_config.blueprint.path, tools_config.blueprint)
    store.register_target("theorem", "add_zero", statement=STATEMENT, attempts_budget=2)
    store.register_target("theorem_set", "core", file="core")
    return store


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(20):
        return await client.call_tool(tool, args)


async def test_list_and_get_targets(tools_config: BurnqedConfig, store: BlueprintStore) -> None:
    async with Client(build_server(tools_config)) as client:
        listed = (await call(client, "list_targets")).structured_content
        assert [t["label"] for t in listed["targets"]] == ["add_zero", "core"]
        assert listed["counts"] == {"todo": 2} and listed["targets"][0]["statement"] is None
        full = (await call(client, "list_targets", detail="full", status="todo")).structured_content
        assert full["targets"][0]["statement"] == STATEMENT
        target = (await call(client, "get_target", label="add_zero")).structured_content
        assert target["statement_sha"] == statement_sha(STATEMENT) and target["budget"] == 2
        missing = await call(client, "get_target", label="nope")
        assert missing.is_error and "nope" in missing.content[0].text
        bad_status = await call(client, "list_targets", status="finished")
        assert bad_status.is_error


async def test_update_status_counts_attempts_until_exhausted(
    tools_config: BurnqedConfig, store: BlueprintStore
) -> None:
    async with Client(build_server(tools_config)) as client:
        running = (
            await call(client, "update_status", label="add_zero", status="running", note="search 1")
        ).structured_content
        assert running["status"] == "running"
        await call(client, "update_status", label="add_zero", status="failed")
        await call(client, "update_status", label="add_zero", status="running")
        last = (await call(client, "update_status", label="add_zero", status="failed")).structured_content
        assert last["status"] == "exhausted" and last["attempts"] == 2
        refused = await call(client, "update_status", label="add_zero", status="running")
        assert refused.is_error
    assert store.get("add_zero").statement == STATEMENT


async def test_schedule_iteration_and_iterations_are_not_the_agents_to_update(
    tools_config: BurnqedConfig, store: BlueprintStore
) -> None:
    async with Client(build_server(tools_config)) as client:
        entry = (
            await call(client, "schedule_iteration", spec={"train_size": 10, "max_nodes": 20, "note": "probe"})
        ).structured_content
        assert entry["label"] == "iter_0" and entry["status"] == "todo" and entry["plan"]["train_size"] == 10
        second = (await call(client, "schedule_iteration", spec={})).structured_content
        assert second["label"] == "iter_1"
        refused = await call(client, "update_status", label="iter_0", status="failed")
        assert refused.is_error and "daemon" in refused.content[0].text
        unknown_field = await call(client, "schedule_iteration", spec={"statement": "False"})
        assert unknown_field.is_error
    assert [e.label for e in store.pending_iterations()] == ["iter_0", "iter_1"]


async def test_no_tool_changes_a_locked_statement(tools_config: BurnqedConfig, store: BlueprintStore) -> None:
    before = Path(tools_config.blueprint.path).read_text(encoding="utf-8")
    async with Client(build_server(tools_config)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for tool in tools.values():
            assert "statement" not in tool.input_schema.get("properties", {})
        # an iteration spec cannot smuggle a statement either (extra fields are forbidden)
        smuggled = await call(client, "schedule_iteration", spec={"label": "add_zero"})
        assert smuggled.is_error
    assert store.get("add_zero").statement == STATEMENT
    assert STATEMENT in before and store.audit_locks() == []


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({"train_set": "benchmark-test"}, "held out"),
        ({"train_set": "/etc/passwd"}, "not allowed"),
        ({"train_set": "core", "eval_set": "core"}, "daemon"),
        ({"eval_size": 5}, "daemon"),
        ({"train_size": 1e9}, "too large"),
        ({"max_nodes": 10**7}, "too large"),
        ({"num_candidates": 100000}, "too large"),
    ],
)
async def test_an_agent_cannot_train_on_or_evaluate_what_it_chooses(
    tools_config: BurnqedConfig, store: BlueprintStore, spec: dict[str, Any], why: str
) -> None:
    async with Client(build_server(tools_config)) as client:
        refused = await call(client, "schedule_iteration", spec=spec)
        assert refused.is_error and why in refused.content[0].text
        assert "Traceback" not in refused.content[0].text
        allowed = await call(client, "schedule_iteration", spec={"train_set": "core", "train_size": 20})
        assert not allowed.is_error
    assert [e.label for e in store.pending_iterations()] == ["iter_0"]


async def test_held_out_figures_never_reach_the_agent(tools_config: BurnqedConfig, store: BlueprintStore) -> None:
    store.schedule_iteration(IterationSpec(label="iter_0"))
    store.record_results(
        "iter_0", {"solve_rate": 0.61, "solve_rate_no_ebm": 0.6, "held_out": 150, "train_proved": 140, "train_total": 150}
    )
    async with Client(build_server(tools_config)) as client:
        got = (await call(client, "get_target", label="iter_0")).structured_content
        listed = (await call(client, "list_targets", detail="full")).structured_content
    for view in [got, *listed["targets"]]:
        results = view.get("results") or {}
        assert not {"solve_rate", "solve_rate_no_ebm", "held_out"} & set(results)
    assert got["results"] == {"train_proved": 140, "train_total": 150}
    assert store.get("iter_0").results["solve_rate"] == 0.61  # the operator's file keeps them


async def test_the_agent_cannot_steer_the_held_out_target(tools_config: BurnqedConfig, store: BlueprintStore) -> None:
    """Issue 41: the coordinator could update_status the held-out target itself."""
    store.register_target("theorem_set", "held_out_eval", file="benchmark-test")
    async with Client(build_server(tools_config)) as client:
        for label in ("held_out_eval",):
            refused = await call(client, "update_status", label=label, status="running")
            assert refused.is_error and "refused [held_out]" in refused.content[0].text, refused.content[0].text
        assert not (await call(client, "update_status", label="core", status="running")).is_error
    assert store.get("held_out_eval").status == "todo"


async def test_a_wrong_argument_type_is_said_in_the_tools_own_words(
    tools_config: BurnqedConfig, store: BlueprintStore
) -> None:
    """Issue 41: the SDK's text named its internal model (update_statusArguments) and a pydantic URL."""
    async with Client(build_server(tools_config)) as client:
        wrong = await call(client, "update_status", label=["add_zero"], status="running")
    text = wrong.content[0].text
    assert wrong.is_error and text.startswith("invalid input: update_status: label:"), text
    assert "Arguments" not in text and "pydantic" not in text and "http" not in text
