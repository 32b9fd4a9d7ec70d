"""The trust boundary, round two (issue 27), through real MCP client sessions: an agent cannot
hang the daemon through a label or a budget, no setting leaks the held-out set, held-out
statements are recognised by their elaborated form, schemas and server agree, errors hide
the server's paths, and ``burnqed audit`` flags every refused attempt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client

from burnqed.audit import run_audit
from burnqed.blueprint import BlueprintStore
from burnqed.config import BurnqedConfig, load_config
from burnqed.tools.common.calllog import ToolCallLog
from burnqed.tools.servers import build_named_server
from burnqed.tools.common.serving import call_log_path
from tests.servers.test_stats_server import write_iteration

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(60):
        return await client.call_tool(tool, args)


def text(result: Any) -> str:
    return str(result.content[0].text)


def embedded(overrides: dict[str, Any], **more: Any) -> BurnqedConfig:
    base = {k: v for k, v in overrides.items() if k != "lean.command"}
    return load_config(None, {**base, "lean.backend": "embedded", "lean.startup_timeout_s": 60.0, **more})


async def refusals(config: BurnqedConfig) -> dict[str, int]:
    """The audit's boundary_refused violations of this run, counted per rule."""
    report = await run_audit(config.audit(), Path(config.paths.run_dir))
    found: dict[str, int] = {}
    for v in report.violations:
        if v.kind == "boundary_refused":
            rule = v.message.split("refused [", 1)[1].split("]", 1)[0]
            found[rule] = found.get(rule, 0) + 1
    return found


# ---------------------------------------------------------------- high: labels, budgets, the loop


@pytest.mark.parametrize(
    ("spec", "rule"),
    [
        ({"label": "iter_99999999999999999999"}, "label"),
        ({"label": "iter_00"}, "label"),
        ({"label": "iter_01"}, "label"),
        ({"label": "iter_7"}, "label"),  # skips ahead of the next free index
        ({"attempts_budget": 1000000}, "budget"),
        ({"attempts_budget": 4}, "budget"),  # past blueprint.iteration_attempts_budget (3)
        ({"max_nodes": 10**7}, "budget"),
    ],
)
async def test_iteration_labels_are_canonical_and_budgets_capped_and_audit_flags_the_try(
    tools_config: BurnqedConfig, spec: dict[str, Any], rule: str
) -> None:
    async with Client(build_named_server("blueprint", tools_config)) as client:
        refused = await call(client, "schedule_iteration", spec=spec)
        assert refused.is_error and f"refused [{rule}]" in text(refused), text(refused)
        ok = await call(client, "schedule_iteration", spec={"label": "iter_0", "attempts_budget": 3})
        assert not ok.is_error, text(ok)
    store = BlueprintStore(tools_config.blueprint.path, tools_config.blueprint)
    assert [e.label for e in store.pending_iterations()] == ["iter_0"]
    assert (await refusals(tools_config)).get(rule) == 1


def test_earlier_trajectories_of_a_huge_index_come_from_the_listing(tmp_path: Path) -> None:
    # the old code looped over range(index) on the event loop: 10**18 never returns
    code = (
        "import sys; from pathlib import Path\n"
        "from burnqed.config import load_config\n"
        "from burnqed.iteration.layout import RunLayout\n"
        "from burnqed.iteration.steps import IterationContext\n"
        "root = Path(sys.argv[1]); layout = RunLayout(root)\n"
        "layout.trajectories_dir.mkdir(parents=True)\n"
        "for i in (0, 3): layout.trajectories(i).write_bytes(b'x')\n"
        "ctx = IterationContext(config=load_config(None, {}), layout=layout, index=10**18, pool=None,"
        " train=[], held_out=[])\n"
        "print([p.name for p in ctx.earlier_trajectories()])\n"
        "ctx = IterationContext(config=load_config(None, {}), layout=layout, index=3, pool=None, train=[], held_out=[])\n"
        "print([p.name for p in ctx.earlier_trajectories()])\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["['iter_0.parquet', 'iter_3.parquet']", "['iter_0.parquet']"]


def test_an_operator_entry_with_a_huge_label_is_not_an_iteration(tools_config: BurnqedConfig) -> None:
    from burnqed.blueprint import IterationSpec, iteration_index
    from burnqed.blueprint.errors import BlueprintError

    assert iteration_index("iter_99999999999999999999") is None and iteration_index("iter_01") is None
    assert iteration_index("iter_999999") == 999999
    store = BlueprintStore(tools_config.blueprint.path, tools_config.blueprint)
    with pytest.raises(BlueprintError, match="canonical"):
        store.schedule_iteration(IterationSpec(label="iter_00"))


# ---------------------------------------------------------------- high: show_held_out never reaches the agent


async def test_show_held_out_in_the_config_never_reaches_the_coordinators_toolbox(
    tools_overrides: dict[str, Any], tmp_path: Path
) -> None:
    from burnqed.coordination.config import CoordinatorConfig
    from burnqed.coordination.daemon import prepare_run_config, write_config_snapshot
    from burnqed.coordination.log import SessionLog
    from burnqed.coordination.toolbox import Toolbox

    run_dir = tmp_path / "run"
    write_iteration(run_dir, 0, [True, False], [True, True, False, False])
    config = load_config(None, {**tools_overrides, "tools.show_held_out": True, "tools.allow_cluster_jobs": True})
    agent = prepare_run_config(config, run_dir)
    assert agent.tools.show_held_out is False and agent.tools.allow_cluster_jobs is False
    snapshot = write_config_snapshot(agent, tmp_path / "snapshot.toml")
    # even an edited snapshot: the toolbox starts its servers with the setting forced off
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace("show_held_out = false",
                                                                      "show_held_out = true"), encoding="utf-8")
    assert "show_held_out = true" in snapshot.read_text(encoding="utf-8")
    coordinator = CoordinatorConfig(servers=["search", "stats"])
    log = SessionLog(tmp_path / "turns.jsonl", 0)
    with anyio.fail_after(120):
        # cwd: the repository, so that `python -m burnqed.cli` imports this checkout (the SDK's
        # stdio client passes only a minimal environment, without PYTHONPATH)
        async with Toolbox(coordinator, log, config_path=snapshot, cwd=REPO) as toolbox:
            curve = await toolbox.call("solve_curve")
            assert not curve.is_error and curve.structured is not None
            assert all(p["held_out_visible"] is False and p["with_ebm"] is None for p in curve.structured["points"])
            full = await toolbox.call("eval_result", {"iteration": 0, "detail": "full"})
            assert full.structured is not None and full.structured["scores"]["with_ebm"] is None
            held = await toolbox.call("launch_search", {"theorem_set": "benchmark-test", "policy": "none"})
            assert held.is_error and "refused [held_out]" in held.text
            cluster = await toolbox.call("launch_search", {"theorem_set": "core", "policy": "none", "cluster": True})
            assert cluster.is_error and "refused [cluster]" in cluster.text


# ---------------------------------------------------------------- medium: held-out jobs, statements, sets


async def test_a_held_out_job_is_not_readable_by_a_default_server(tools_overrides: dict[str, Any]) -> None:
    operator = load_config(None, {**tools_overrides, "tools.show_held_out": True})
    async with Client(build_named_server("search", operator)) as client:
        launched = await call(client, "launch_search", theorem_set="benchmark-test", limit=2, policy="none",
                              budget={"max_nodes": 2})
        assert not launched.is_error, text(launched)
        job_id = launched.structured_content["job_id"]
        status = await call(client, "job_status", job_id=job_id, wait_s=5)
        while status.structured_content["status"] == "running":
            status = await call(client, "job_status", job_id=job_id, wait_s=5)
        assert not (await call(client, "job_result", job_id=job_id, detail="full")).is_error
    default = load_config(None, tools_overrides)
    async with Client(build_named_server("search", default)) as client:
        for tool, args in (("job_result", {"detail": "full"}), ("job_result", {}), ("job_status", {})):
            refused = await call(client, tool, job_id=job_id, **args)
            assert refused.is_error and "refused [held_out]" in text(refused), (tool, text(refused))
        listed = (await call(client, "list_jobs")).structured_content
        assert job_id not in {j["job_id"] for j in listed["jobs"]}
    async with Client(build_named_server("stats", default)) as client:
        refused = await call(client, "trajectory_summary", job_id=job_id)
        assert refused.is_error and "refused [held_out]" in text(refused)
    from burnqed.data.sets import load_builtin

    first = load_builtin("benchmark-test")[0]
    BlueprintStore(default.blueprint.path, default.blueprint).register_target(
        "theorem", first.name, statement=first.statement
    )
    async with Client(build_named_server("blueprint", default)) as client:
        refused = await call(client, "record_proof", label=first.name, job_id=job_id)
        assert refused.is_error and "refused [held_out]" in text(refused)
    # job_result (2x), job_status, trajectory_summary, record_proof
    assert (await refusals(default)).get("held_out") == 4


async def test_held_out_statements_are_recognised_by_their_elaborated_form(tools_overrides: dict[str, Any]) -> None:
    # one server for every spelling (each refusal is judged alone: nothing is remembered between calls)
    spellings = ["19*12+3 = 231", "(19 * 12 + 3 = 231)", "∃ (k : ℕ), k + 5 = 13", "∃ k : ℕ, k + 5 = 13",
                 "19 * 12 + 3\t=\r\n231"]  # fmt: skip
    async with Client(build_named_server("search", embedded(tools_overrides))) as client:
        for statement in spellings:
            refused = await call(client, "launch_search", statements=[statement], policy="none")
            assert refused.is_error and "refused [held_out]" in text(refused), (statement, text(refused))
            fresh = await call(client, "launch_search", statements=["∃ (k : ℕ), k + 5 = 14"], policy="none")
            assert not fresh.is_error, (statement, text(fresh))


async def test_the_held_out_sets_follow_the_configured_evaluation_set(tools_overrides: dict[str, Any]) -> None:
    config = load_config(None, {**tools_overrides, "iteration.eval_set": "core"})
    async with Client(build_named_server("search", config)) as client:
        for args in ({"theorem_set": "core"}, {"statements": ["∀ (p : Prop), p → p"]}):
            refused = await call(client, "launch_search", policy="none", **args)
            assert refused.is_error and "refused [held_out]" in text(refused), text(refused)
        # the operator's list stays held out too
        assert (await call(client, "launch_search", theorem_set="benchmark-test", policy="none")).is_error
    async with Client(build_named_server("blueprint", config)) as client:
        refused = await call(client, "schedule_iteration", spec={"train_set": "core"})
        assert refused.is_error and "refused [held_out]" in text(refused)


# ---------------------------------------------------------------- medium: deep handles, cluster


async def test_a_handle_is_bounded_in_depth_and_states(tools_overrides: dict[str, Any]) -> None:
    config = embedded(tools_overrides, **{"tools.max_handle_depth": 3, "tools.max_handle_states": 5})
    async with Client(build_named_server("lean", config)) as client:
        start = (await call(client, "start_proof", statement="True")).structured_content
        state = start["state_id"]
        for _ in range(3):
            step = await call(client, "run_tactic", handle=start["handle"], state_id=state,
                              tactic="have hI : True := trivial")
            assert not step.is_error and step.structured_content["status"] == "success", text(step)
            state = step.structured_content["next_state_id"]
        deep = await call(client, "run_tactic", handle=start["handle"], state_id=state, tactic="trivial")
        assert deep.is_error and "refused [handle_depth]" in text(deep)
        # branching from the root still works until the handle holds max_handle_states states
        wide = await call(client, "run_tactic", handle=start["handle"], state_id=0, tactic="have hJ : True := trivial")
        assert not wide.is_error
        full = await call(client, "run_tactic", handle=start["handle"], state_id=0, tactic="trivial")
        assert full.is_error and "refused [handle_size]" in text(full)
        verified = await call(client, "verify_proof", statement="True", tactics=["trivial"])
        assert verified.structured_content["ok"] is True


async def test_cluster_jobs_are_an_operator_setting(tools_config: BurnqedConfig) -> None:
    async with Client(build_named_server("search", tools_config)) as client:
        refused = await call(client, "launch_search", theorem_set="core", policy="none", cluster=True)
        assert refused.is_error and "refused [cluster]" in text(refused)
        assert (await call(client, "list_jobs")).structured_content["jobs"] == []


# ---------------------------------------------------------------- low: schemas, errors, policy, notes


async def test_unknown_arguments_are_refused_and_logged_by_size_only(tools_config: BurnqedConfig) -> None:
    pad = "SECRET" * 100_000
    async with Client(build_named_server("lean", tools_config)) as client:
        refused = await call(client, "pool_status", pad=pad)
        assert refused.is_error and "refused [unknown_argument]" in text(refused) and "SECRET" not in text(refused)
    [record] = list(ToolCallLog(call_log_path(tools_config)).read())
    assert record.refusal == "unknown_argument" and record.arg_sizes == {"pad": len(pad) + 2}
    assert "SECRET" not in call_log_path(tools_config).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("server", "tool", "args"),
    [
        ("lean", "start_proof", {"statement": None}),
        ("lean", "start_proof", {"statement": None, "name": "Nat.add_comm"}),
        ("lean", "start_proof", {"statement": "∀ (n : Nat), n = n", "name": None}),
        ("lean", "start_proof", {"statement": "∀ (n : Nat), n = n", "name": "Nat.add_comm"}),
        ("lean", "start_proof", {"statement": "∀ (n : Nat), n = n", "pad": 1}),
        ("stats", "trajectory_summary", {"iteration": 0, "job_id": "j-20260101T000000-abcdef"}),
        ("stats", "trajectory_summary", {"iteration": 0, "job_id": None}),
        ("search", "launch_search", {"theorem_set": None, "statements": ["True"], "policy": "none"}),
    ],
)
async def test_the_schema_and_the_server_agree(
    tools_overrides: dict[str, Any], tmp_path: Path, server: str, tool: str, args: dict[str, Any]
) -> None:
    write_iteration(tmp_path / "run", 0, [True, False], [True, False])
    config = load_config(None, tools_overrides)
    async with Client(build_named_server(server, config)) as client:
        schema = next(t for t in (await client.list_tools()).tools if t.name == tool).input_schema
        try:
            jsonschema.validate(args, schema)
            schema_ok = True
        except jsonschema.ValidationError:
            schema_ok = False
        result = await call(client, tool, **args)
        assert (not result.is_error) == schema_ok, (schema_ok, text(result))


async def test_error_texts_do_not_show_server_paths(tools_config: BurnqedConfig) -> None:
    run_dir = str(Path(tools_config.paths.run_dir).resolve())
    async with Client(build_named_server("stats", tools_config)) as client:
        for tool, args in (("eval_result", {"iteration": 9}), ("trajectory_summary", {}),
                           ("trajectory_summary", {"job_id": "j-20260101T000000-abcdef"})):
            result = await call(client, tool, **args)
            assert result.is_error and run_dir not in text(result) and "/tmp" not in text(result), text(result)


async def test_generate_tactics_refuses_a_huge_or_control_state_before_loading_a_model(
    tools_config: BurnqedConfig,
) -> None:
    async with Client(build_named_server("search", tools_config)) as client:
        huge = await call(client, "generate_tactics", state="⊢ " + "a" * 1_000_000, n=1)
        assert huge.is_error and "longer than" in text(huge)
        control = await call(client, "generate_tactics", state="⊢ True\x1b[31m\x00", n=1)
        assert control.is_error and "control characters" in text(control)
        scored = await call(client, "score_states", states=["⊢ True\x00"])
        assert scored.is_error and "control characters" in text(scored)


async def test_tabs_and_crlf_are_whitespace_and_every_sorry_spelling_is_denied(tools_config: BurnqedConfig) -> None:
    async with Client(build_named_server("lean", tools_config)) as client:
        started = await call(client, "start_proof", statement="∀ (n : Nat),\tn + 0 = n\r\n")
        assert not started.is_error, text(started)
        handle = started.structured_content["handle"]
        for tactic in ("exact sorryAx _ false", "exact (sorryAx _)", "exact «sorry»", "admit", "sorry"):
            denied = await call(client, "run_tactic", handle=handle, state_id=0, tactic=tactic)
            assert denied.is_error and "rule: sorry" in text(denied), (tactic, text(denied))
        verify = await call(client, "verify_proof", statement="True", tactics=["exact sorryAx True false"])
        assert verify.is_error and "rule: sorry" in text(verify)


async def test_notes_lose_control_ansi_zero_width_and_bidi_characters(tools_config: BurnqedConfig) -> None:
    store = BlueprintStore(tools_config.blueprint.path, tools_config.blueprint)
    store.register_target("theorem", "add_zero", statement="∀ (n : Nat), n + 0 = n")
    note = "ok\x00\x1b[2J\x1b]0;title\x07 zero\u200bwidth \u202eevil\u202c end\u2066x\u2069"
    async with Client(build_named_server("blueprint", tools_config)) as client:
        result = await call(client, "update_status", label="add_zero", status="running", note=note)
        assert not result.is_error, text(result)
        await call(client, "schedule_iteration", spec={"note": note})
        iteration = await call(client, "update_status", label="iter_0", status="failed")
        assert "is an iteration" in text(iteration)
    written = Path(tools_config.blueprint.path).read_text(encoding="utf-8")
    assert "ok zerowidth evil endx" in written
    for bad in ("\x00", "\x1b", "\u200b", "\u202e", "\u2066", "\x07"):
        assert bad not in written


# ---------------------------------------------------------------- the audit sees every try


async def test_audit_flags_a_client_that_tried_the_boundary(tools_config: BurnqedConfig) -> None:
    async with Client(build_named_server("search", tools_config)) as client:
        await call(client, "launch_search", theorem_set="benchmark-test", policy="none")
        await call(client, "list_jobs", pad="x")
    async with Client(build_named_server("lean", tools_config)) as client:
        await call(client, "verify_proof", statement="True", tactics=["exact sorryAx True false"])
    found = await refusals(tools_config)
    assert found == {"held_out": 1, "unknown_argument": 1, "policy:sorry": 1}
    report = await run_audit(tools_config.audit(), Path(tools_config.paths.run_dir))
    assert not report.ok
    messages = json.dumps([v.message for v in report.violations])
    assert "search.launch_search refused [held_out] 1x for client stdio" in messages


async def test_a_statement_the_lexer_refuses_is_a_readable_tool_error(tools_config: BurnqedConfig) -> None:
    """An unterminated comment or string (Lean: an error) is an is_error result naming it, never an unexpected fault."""
    async with Client(build_named_server("lean", tools_config)) as client:
        for statement in ("∀ (n : Nat), n + 0 = n /- open", 'theorem t : "a = 1 := by'):
            refused = await call(client, "start_proof", statement=statement)
            assert refused.is_error and "unterminated" in text(refused), (statement, text(refused))
