"""The agent loop with the real anthropic SDK against a local server playing Messages API answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from burnqed.config import BurnqedConfig
from burnqed.coordination.anthropic_brain import AnthropicBrain
from burnqed.coordination.brain import (
    BrainFatalError,
    BrainTransientError,
    SessionContext,
)
from burnqed.coordination.config import CoordinatorConfig
from burnqed.coordination.daemon import prepare_run_config
from burnqed.coordination.log import SessionLog, read_jsonl
from burnqed.coordination.toolbox import Toolbox
from tests.fixtures.fake_anthropic import FakeMessagesServer, text_reply, tool_use_reply

pytestmark = pytest.mark.anyio


def _config(tmp_path: Path, url: str, **coordinator: object) -> BurnqedConfig:
    config = prepare_run_config(BurnqedConfig(), tmp_path / "run")
    coord = CoordinatorConfig(brain="anthropic", base_url=url, **coordinator)  # type: ignore[arg-type]
    return config.model_copy(update={"coordinator": coord})


@asynccontextmanager
async def _toolbox(config: BurnqedConfig, log: SessionLog) -> AsyncIterator[Toolbox]:
    """The real blueprint MCP server, in memory, behind the allow-listed toolbox."""
    from mcp import Client

    from burnqed.blueprint import BlueprintStore
    from burnqed.tools.blueprint.server import build_server

    store = BlueprintStore(config.blueprint.path, config.blueprint)
    store.register_target("theorem", "add_zero", statement="∀ (n : Nat), n + 0 = n")
    async with Client(build_server(config)) as client, Toolbox(config.coordinator, log, clients={"blueprint": client}) as tb:
        yield tb


async def test_tool_use_round_trips_reach_the_real_blueprint_server(
    tmp_path: Path, fake_messages_server: FakeMessagesServer
) -> None:
    config = _config(tmp_path, fake_messages_server.url)
    fake_messages_server.script(
        tool_use_reply("list_targets", {}, "toolu_1", text="Reading the blueprint."),
        tool_use_reply("schedule_iteration", {"spec": {"label": "iter_0", "note": "first"}}, "toolu_2"),
        text_reply("Scheduled iter_0."),
    )
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            outcome = await AnthropicBrain(config.coordinator, api_key="sk-test").run(tb, SessionContext(session=0), log)
    assert outcome.stop_reason == "end_turn"
    assert outcome.turns == 3
    assert outcome.summary == "Scheduled iter_0."
    requests = fake_messages_server.requests
    assert len(requests) == 3
    assert requests[0]["headers"]["authorization"] == "Bearer sk-test"
    first = requests[0]["body"]
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert first["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert {t["name"] for t in first["tools"]} <= set(config.coordinator.allowed_tools)
    result = requests[1]["body"]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_1"
    assert "add_zero" in json.dumps(result["content"])
    assert "iter_0" in config.blueprint.path.read_text(encoding="utf-8")
    events = [e["event"] for e in read_jsonl(tmp_path / "turns.jsonl")]
    assert events.count("tool_call") == 2 and events.count("turn") == 3


async def test_tool_errors_and_disallowed_tools_come_back_as_error_results(
    tmp_path: Path, fake_messages_server: FakeMessagesServer
) -> None:
    config = _config(tmp_path, fake_messages_server.url)
    fake_messages_server.script(
        tool_use_reply("get_target", {"label": "no_such_label"}, "toolu_1"),
        tool_use_reply("run_tactic", {"handle": "h", "state_id": 0, "tactic": "rfl"}, "toolu_2"),
        text_reply("done"),
    )
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60), pytest.warns(UserWarning, match="run_tactic"):
        async with _toolbox(config, log) as tb:
            await AnthropicBrain(config.coordinator, api_key="k").run(tb, SessionContext(session=0), log)
    unknown = fake_messages_server.requests[1]["body"]["messages"][-1]["content"][0]
    assert unknown["is_error"] is True and "no_such_label" in json.dumps(unknown["content"])
    denied = fake_messages_server.requests[2]["body"]["messages"][-1]["content"][0]
    assert denied["is_error"] is True


async def test_turn_limit_stops_the_session(tmp_path: Path, fake_messages_server: FakeMessagesServer) -> None:
    config = _config(tmp_path, fake_messages_server.url, max_turns=2)
    fake_messages_server.script(*(tool_use_reply("list_targets", {"status": s}, f"toolu_{i}")
                                  for i, s in enumerate(["todo", "done", "failed"])))
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            outcome = await AnthropicBrain(config.coordinator, api_key="k").run(tb, SessionContext(session=0), log)
    assert outcome.stop_reason == "turn_limit"
    assert outcome.turns == 2
    assert len(fake_messages_server.requests) == 2


async def test_tool_budget_refuses_further_calls(tmp_path: Path, fake_messages_server: FakeMessagesServer) -> None:
    config = _config(tmp_path, fake_messages_server.url, max_tool_calls=1)
    fake_messages_server.script(
        tool_use_reply("list_targets", {}, "toolu_1"),
        tool_use_reply("list_targets", {"status": "todo"}, "toolu_2"),
        text_reply("never reached"),
    )
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            outcome = await AnthropicBrain(config.coordinator, api_key="k").run(tb, SessionContext(session=0), log)
            assert tb.total_calls == 1
    assert outcome.stop_reason == "tool_budget"


async def test_near_duplicate_calls_are_warned(tmp_path: Path, fake_messages_server: FakeMessagesServer) -> None:
    config = _config(tmp_path, fake_messages_server.url)
    fake_messages_server.script(
        tool_use_reply("get_target", {"label": "add_zero"}, "toolu_1"),
        tool_use_reply("get_target", {"label": "add_zero "}, "toolu_2"),
        text_reply("ok"),
    )
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            await AnthropicBrain(config.coordinator, api_key="k").run(tb, SessionContext(session=0), log)
    second = fake_messages_server.requests[2]["body"]["messages"][-1]["content"][0]
    assert "repeats a recent get_target call" in json.dumps(second["content"])


async def test_authentication_error_is_fatal(tmp_path: Path, fake_messages_server: FakeMessagesServer) -> None:
    config = _config(tmp_path, fake_messages_server.url)
    fake_messages_server.fail(401, "authentication_error", "invalid x-api-key")
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            with pytest.raises(BrainFatalError, match="AuthenticationError"):
                await AnthropicBrain(config.coordinator, api_key="bad").run(tb, SessionContext(session=0), log)


async def test_overload_is_transient(tmp_path: Path, fake_messages_server: FakeMessagesServer) -> None:
    config = _config(tmp_path, fake_messages_server.url)
    fake_messages_server.fail(529, "overloaded_error", "Overloaded")
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(60):
        async with _toolbox(config, log) as tb:
            with pytest.raises(BrainTransientError):
                await AnthropicBrain(config.coordinator, api_key="k").run(tb, SessionContext(session=0), log)


def test_missing_api_key_is_fatal_before_any_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BURNQED_TEST_NO_KEY", raising=False)
    with pytest.raises(BrainFatalError, match="BURNQED_TEST_NO_KEY"):
        AnthropicBrain(CoordinatorConfig(brain="anthropic", api_key_env="BURNQED_TEST_NO_KEY"))
