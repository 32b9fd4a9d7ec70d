"""The lean_pool server through an in-memory MCP client: every tool, good and bad input."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.config import BurnqedConfig, load_config
from burnqed.tools.common.calllog import ToolCallLog
from burnqed.tools.lean.server import build_server
from burnqed.tools.common.serving import call_log_path

pytestmark = pytest.mark.anyio

STATEMENT = "∀ (n : Nat), n + 0 = n"


@pytest.fixture
async def client(tools_config: BurnqedConfig) -> AsyncIterator[Client]:
    async with Client(build_server(tools_config)) as c:
        yield c


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(20):
        return await client.call_tool(tool, args)


async def test_tools_are_listed_with_schemas_and_read_only_annotations(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"start_proof", "run_tactic", "close_proof", "verify_proof", "pool_status"}
    assert tools["verify_proof"].annotations.read_only_hint is True
    assert tools["pool_status"].annotations.read_only_hint is True
    assert tools["run_tactic"].annotations.read_only_hint is False
    assert tools["run_tactic"].output_schema is not None
    assert "state_id" in tools["run_tactic"].input_schema["properties"]


async def test_a_proof_step_by_step_with_branching(client: Client) -> None:
    start = await call(client, "start_proof", statement=STATEMENT)
    assert not start.is_error
    s = start.structured_content
    assert s["goals_text"] == "⊢ ∀ (n : Nat), n + 0 = n" and s["goals"][0]["target"] == STATEMENT
    handle, root = s["handle"], s["state_id"]
    step = (await call(client, "run_tactic", handle=handle, state_id=root, tactic="intro n")).structured_content
    assert step["status"] == "success" and step["goals"][0]["hypotheses"] == [
        {"name": "n", "type": "Nat", "value": None}
    ]
    assert step["goals_text"] == "n : Nat\n⊢ n + 0 = n" and not step["proof_complete"]
    failed = (
        await call(client, "run_tactic", handle=handle, state_id=step["next_state_id"], tactic="fail here")
    ).structured_content
    assert failed["status"] == "failed" and failed["messages"] and failed["next_state_id"] is None
    # states are immutable: branch from the same state again
    done = await call(client, "run_tactic", handle=handle, state_id=step["next_state_id"], tactic="rfl")
    assert done.structured_content["proof_complete"] is True
    assert "proof complete" in done.content[0].text
    closed = await call(client, "close_proof", handle=handle)
    assert closed.structured_content == {"handle": handle, "closed": True}


async def test_start_proof_by_name(client: Client) -> None:
    result = await call(client, "start_proof", name="Nat.add_zero")
    assert not result.is_error and result.structured_content["goals"][0]["target"] == STATEMENT


async def test_verify_proof_accepts_a_proof_and_rejects_sorry_free_failures(client: Client) -> None:
    ok = await call(client, "verify_proof", statement=STATEMENT, tactics=["intro n", "rfl"])
    assert ok.structured_content["ok"] is True and ok.structured_content["steps"] == 2
    bad = await call(client, "verify_proof", statement=STATEMENT, tactics=["intro n"])
    assert bad.structured_content["ok"] is False and bad.structured_content["reason"]


async def test_pool_status_counts_handles(client: Client) -> None:
    await call(client, "start_proof", statement=STATEMENT)
    status = (await call(client, "pool_status")).structured_content
    assert status["live_handles"] == 1 and status["pool"]["workers"] == 2
    assert len(status["worker_pids"]) == 2


@pytest.mark.parametrize(
    ("tool", "args", "fragment"),
    [
        ("run_tactic", {"handle": "h-000000000000", "state_id": 0, "tactic": "rfl"}, "unknown proof handle"),
        ("close_proof", {"handle": "nope"}, "unknown proof handle"),
        ("start_proof", {"statement": "(n + "}, "Lean rejected the statement"),
        ("start_proof", {}, "exactly one of statement or name"),
        ("start_proof", {"statement": "#eval 1 = 1"}, "denied by the tactic policy"),
        ("verify_proof", {"statement": STATEMENT, "tactics": ["sorry"]}, "denied by the tactic policy"),
        ("verify_proof", {"statement": STATEMENT, "tactics": []}, "invalid input: "),
        ("run_tactic", {"handle": "x", "state_id": -1, "tactic": "rfl"}, "invalid input: "),
    ],
)
async def test_bad_input_is_an_error_result_the_model_can_read(
    client: Client, tool: str, args: dict[str, Any], fragment: str
) -> None:
    result = await call(client, tool, **args)
    assert result.is_error
    assert fragment in result.content[0].text


async def test_denied_tactic_and_foreign_state_on_a_live_handle(client: Client) -> None:
    handle = (await call(client, "start_proof", statement=STATEMENT)).structured_content["handle"]
    denied = await call(client, "run_tactic", handle=handle, state_id=0, tactic="run_tac pure ()")
    assert denied.is_error and "run_tac" in denied.content[0].text
    foreign = await call(client, "run_tactic", handle=handle, state_id=99, tactic="intro n")
    assert foreign.is_error and "does not belong" in foreign.content[0].text
    # the handle still works after refusals
    ok = await call(client, "run_tactic", handle=handle, state_id=0, tactic="intro n")
    assert ok.structured_content["status"] == "success"


async def test_a_crashed_worker_does_not_lose_the_proof_and_the_pool_heals(client: Client) -> None:
    handle = (await call(client, "start_proof", statement=STATEMENT)).structured_content["handle"]
    step = (await call(client, "run_tactic", handle=handle, state_id=0, tactic="intro n")).structured_content
    lost = (await call(client, "run_tactic", handle=handle, state_id=step["next_state_id"], tactic="crash"))
    assert lost.structured_content["status"] == "lost" and lost.structured_content["handle_alive"] is True
    # the proof is not pinned to the dead worker: its states are replayed on another one
    again = (await call(client, "run_tactic", handle=handle, state_id=step["next_state_id"], tactic="rfl"))
    assert again.structured_content["status"] == "success" and again.structured_content["proof_complete"]
    fresh = await call(client, "start_proof", statement=STATEMENT)
    assert not fresh.is_error


async def test_the_cap_on_live_handles_evicts_the_least_recently_used_idle_handle(
    tools_overrides: dict[str, Any],
) -> None:
    config = load_config(None, {**tools_overrides, "tools.max_live_handles": 2})
    async with Client(build_server(config)) as client:
        first = (await call(client, "start_proof", statement=STATEMENT)).structured_content["handle"]
        second = (await call(client, "start_proof", statement=STATEMENT)).structured_content["handle"]
        await call(client, "run_tactic", handle=first, state_id=0, tactic="intro n")  # first is used last
        third = await call(client, "start_proof", statement=STATEMENT)
        assert not third.is_error  # the pool was full: the least recently used idle handle made room
        evicted = await call(client, "run_tactic", handle=second, state_id=0, tactic="intro n")
        assert evicted.is_error and "evicted" in evicted.content[0].text
        assert not (await call(client, "run_tactic", handle=first, state_id=0, tactic="intro n")).is_error
        status = (await call(client, "pool_status")).structured_content
        assert status["live_handles"] == 2


async def test_an_abandoned_handle_expires_and_its_worker_returns_to_the_pool(tools_overrides: dict[str, Any]) -> None:
    config = load_config(None, {**tools_overrides, "tools.handle_idle_timeout_s": 0.3})
    async with Client(build_server(config)) as client:
        handle = (await call(client, "start_proof", statement=STATEMENT)).structured_content["handle"]
        busy = (await call(client, "pool_status")).structured_content
        assert busy["live_handles"] == 1 and busy["pool"]["busy"] == 1
        # the client goes quiet; the sweeper must close the handle
        with anyio.fail_after(10):
            while (status := (await call(client, "pool_status")).structured_content)["live_handles"]:
                await anyio.sleep(0.05)
        assert status["pool"]["busy"] == 0 and status["expired_handles"] == 1
        expired = await call(client, "run_tactic", handle=handle, state_id=0, tactic="intro n")
        assert expired.is_error and "expired" in expired.content[0].text


async def test_every_call_is_in_the_call_log(tools_config: BurnqedConfig) -> None:
    async with Client(build_server(tools_config)) as client:
        await call(client, "pool_status")
        await call(client, "close_proof", handle="nope")
    records = list(ToolCallLog(call_log_path(tools_config)).read())
    assert [(r.server, r.tool, r.ok) for r in records] == [
        ("lean", "pool_status", True),
        ("lean", "close_proof", False),
    ]
    # a failure is logged as its kind, digest and size: never its text (which may echo an argument)
    assert records[1].error == "error" and records[1].error_chars and records[1].refusal is None


async def test_the_embedded_checker_behind_the_server(tools_overrides: dict[str, Any]) -> None:
    overrides = {k: v for k, v in tools_overrides.items() if k != "lean.command"}
    config = load_config(None, {**overrides, "lean.backend": "embedded", "lean.startup_timeout_s": 60.0})
    async with Client(build_server(config)) as client:
        start = (await call(client, "start_proof", statement="∀ (a b : Nat), a + b = b + a")).structured_content
        assert start["backend"] == "embedded"
        step = (
            await call(client, "run_tactic", handle=start["handle"], state_id=start["state_id"], tactic="intro a b")
        ).structured_content
        assert step["status"] == "success" and step["goals_text"] == "a b : Nat\n⊢ a + b = b + a"
        done = (
            await call(client, "run_tactic", handle=start["handle"], state_id=step["next_state_id"], tactic="omega")
        ).structured_content
        assert done["proof_complete"] is True
        verdict = await call(
            client, "verify_proof", statement="∀ (a b : Nat), a + b = b + a", tactics=["intro a b", "omega"]
        )
        assert verdict.structured_content["ok"] is True
        wrong = await call(client, "start_proof", statement="∀ (a : Nat), a +")
        assert wrong.is_error and "embedded checker: rejected the statement" in wrong.content[0].text


async def test_open_handles_do_not_starve_the_pool(tools_overrides: dict[str, Any]) -> None:
    """Two workers, four open proofs: a proof does not pin a worker between calls, so a
    fifth proof and verify_proof still get one, and every proof continues where it was."""
    config = load_config(None, {**tools_overrides, "lean.num_workers": 2, "lean.acquire_timeout_s": 5.0})
    async with Client(build_server(config)) as client:
        handles, states = [], []
        for _ in range(4):
            started = (await call(client, "start_proof", statement=STATEMENT)).structured_content
            step = (await call(client, "run_tactic", handle=started["handle"], state_id=0, tactic="intro n"))
            handles.append(started["handle"])
            states.append(step.structured_content["next_state_id"])
        status = (await call(client, "pool_status")).structured_content
        assert status["live_handles"] == 4 and status["pool"]["busy"] <= 1
        with anyio.fail_after(5):
            verified = await call(client, "verify_proof", statement=STATEMENT, tactics=["intro n", "rfl"])
        assert verified.structured_content["ok"] is True
        fifth = await call(client, "start_proof", statement=STATEMENT)
        assert not fifth.is_error
        for handle, state in zip(handles, states, strict=True):
            done = (await call(client, "run_tactic", handle=handle, state_id=state, tactic="rfl")).structured_content
            assert done["status"] == "success" and done["proof_complete"]


MINIF2F_HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n"


async def test_start_proof_takes_the_headers_the_benchmark_files_use(client: Client) -> None:
    """Issue 26: the `header` argument follows the importer's header rules (one rule set), not the tactic deny-list."""
    start = await call(client, "start_proof", statement="∀ (x : Nat), 0 < x → x ≠ 0", header=MINIF2F_HEADER)
    assert not start.is_error, start.content[0].text
    assert start.structured_content["goals_text"] == "⊢ ∀ (x : Nat), 0 < x → x ≠ 0"
    verdict = await call(
        client, "verify_proof", statement="∀ (x : Nat), 0 < x → x ≠ 0", tactics=["intro x h", "omega"],
        header=MINIF2F_HEADER,
    )
    assert not verdict.is_error, verdict.content[0].text
    for header, why in (
        (MINIF2F_HEADER + "axiom cheat : False\n", "axiom cheat"),
        ("import Mathlib\nset_option debug.skipKernelTC true\n", "debug.skipKernelTC"),
        ("import Mathlib\nabbrev s : Nat := sorry\n", "sorry"),
    ):
        refused = await call(client, "start_proof", statement="1 = 1", header=header)
        assert refused.is_error and why in refused.content[0].text, refused.content[0].text


async def test_header_imports_must_be_module_names(client: Client) -> None:
    """Issue 41: a path, a guillemet path or a shell text in `import` is refused before any worker group starts."""
    for bad in ("import ../../etc/passwd", "import «/etc/passwd»", "import $(touch /tmp/x)", "import Mathlib/Tactic"):
        refused = await call(client, "start_proof", statement="1 = 1", header=bad + "\n")
        assert refused.is_error and "is not a module name" in refused.content[0].text, (bad, refused.content[0].text)
        refused = await call(client, "verify_proof", statement="1 = 1", tactics=["rfl"], header=bad + "\n")
        assert refused.is_error and "is not a module name" in refused.content[0].text, bad
