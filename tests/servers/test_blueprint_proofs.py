"""Issue 13, hole 1: a target becomes done only after the server replays a stored proof of its
locked statement through the verification gate (embedded checker, kernel enforced), over a
real MCP session; done and exhausted cannot be set by hand; the audit finds a done typed
into the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from burnqed.audit import run_audit
from burnqed.blueprint import BlueprintStore, ProofRequired
from burnqed.config import BurnqedConfig, load_config
from burnqed.data.theorems import statement_sha
from burnqed.tools.blueprint.server import build_server
from burnqed.tools.common.jobs import JobContext, JobManager, JobOutcome
from burnqed.tools.common.serving import jobs_dir

pytestmark = pytest.mark.anyio

TRUE = "∀ (n : Nat), n + 0 = n"
FALSE = "∀ (n : Nat), n + 1 = n"


@pytest.fixture
def config(tools_overrides: dict[str, Any], tmp_path: Path) -> BurnqedConfig:
    overrides = {k: v for k, v in tools_overrides.items() if not k.startswith("lean.")}
    overrides |= {"lean.backend": "embedded", "lean.num_workers": 1, "blueprint.path": str(tmp_path / "run" / "BLUEPRINT.md")}
    return load_config(None, overrides)


@pytest.fixture
def store(config: BurnqedConfig) -> BlueprintStore:
    store = BlueprintStore(config.blueprint.path, config.blueprint)
    store.register_target("theorem", "add_zero", statement=TRUE, attempts_budget=3)
    store.register_target("theorem", "succ_ne", statement=FALSE, attempts_budget=3)
    return store


async def finished_job(config: BurnqedConfig, outcomes: list[dict[str, Any]]) -> str:
    """A search job, finished, whose stored result holds ``outcomes`` (the job store's own code)."""

    async def work(_ctx: JobContext) -> JobOutcome:
        return JobOutcome(summary={"solved": 1}, full={"backend": "embedded", "outcomes": outcomes})

    async with JobManager(jobs_dir(config)) as jobs:
        record = jobs.launch("search", {}, work)
        with anyio.fail_after(10):
            while not jobs.get(record.job_id).status.finished:
                await anyio.sleep(0.01)
    return record.job_id


def outcome(name: str, statement: str, proof: list[str], proved: bool = True) -> dict[str, Any]:
    return {"name": name, "statement_sha": statement_sha(statement), "proved": proved, "proof": proof,
            "nodes": 2, "wall_s": 0.1, "reason": "proved" if proved else "exhausted"}


async def call(client: Client, tool: str, **args: Any) -> Any:
    with anyio.fail_after(60):
        return await client.call_tool(tool, args)


async def test_done_and_exhausted_cannot_be_set_by_hand(config: BurnqedConfig, store: BlueprintStore) -> None:
    before = config.blueprint.path.read_bytes()
    async with Client(build_server(config)) as client:
        done = await call(client, "update_status", label="succ_ne", status="done", note="trust me")
        assert done.is_error
        exhausted = await call(client, "update_status", label="succ_ne", status="exhausted")
        assert exhausted.is_error
        tools = {t.name: t for t in (await client.list_tools()).tools}
        status_enum = tools["update_status"].input_schema["properties"]["status"]
        assert status_enum["enum"] == ["todo", "running", "partial", "failed"]
    assert config.blueprint.path.read_bytes() == before
    with pytest.raises(ProofRequired):
        store.update_status("succ_ne", "done")
    assert store.get("succ_ne").status == "todo" and store.get("succ_ne").attempts == 0


async def test_record_proof_replays_the_jobs_proof_and_marks_done(config: BurnqedConfig, store: BlueprintStore) -> None:
    job = await finished_job(config, [outcome("add_zero", TRUE, ["intro n", "omega"])])
    async with Client(build_server(config)) as client:
        result = await call(client, "record_proof", label="add_zero", job_id=job)
        assert not result.is_error, result.content[0].text
        assert result.structured_content["status"] == "done"
        again = await call(client, "record_proof", label="add_zero", job_id=job)
        assert not again.is_error and again.structured_content["status"] == "done"
    entry = store.get("add_zero")
    assert entry.status == "done" and entry.attempts == 1 and entry.proof_sha is not None
    record = store.proofs.find("add_zero", entry.proof_sha)
    assert record is not None and record.tactics == ("intro n", "omega") and record.backend == "embedded"
    assert len(store.proofs.read()) == 1  # the second call recorded nothing
    with anyio.fail_after(120):
        report = await run_audit(config.audit(), config.paths.run_dir, replay=True)
    assert report.ok, report.violations
    assert report.checked["replayed"] == 1


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        (outcome("succ_ne", FALSE, ["intro n", "omega"]), "does not replay"),
        (outcome("succ_ne", FALSE, ["sorry"]), "sorry"),
        (outcome("succ_ne", FALSE, ["intro n", "simp"], proved=False), "did not prove"),
        (outcome("succ_ne", TRUE, ["intro n", "omega"]), "another statement"),
        (outcome("other", FALSE, ["intro n", "omega"]), "did not search"),
    ],
)
async def test_record_proof_refuses_what_does_not_replay(
    config: BurnqedConfig, store: BlueprintStore, claim: dict[str, Any], words: str
) -> None:
    job = await finished_job(config, [claim])
    before = config.blueprint.path.read_bytes()
    async with Client(build_server(config)) as client:
        result = await call(client, "record_proof", label="succ_ne", job_id=job)
        assert result.is_error and words in result.content[0].text, result.content[0].text
        unknown = await call(client, "record_proof", label="succ_ne", job_id="j-20990101T000000-abcdef")
        assert unknown.is_error and "unknown job" in unknown.content[0].text
    assert config.blueprint.path.read_bytes() == before
    assert store.proofs.read() == []


async def test_no_proof_counts_when_the_kernel_is_off(tools_overrides: dict[str, Any], tmp_path: Path) -> None:
    overrides = {k: v for k, v in tools_overrides.items() if not k.startswith("lean.")}
    overrides |= {"lean.backend": "embedded", "lean.num_workers": 1, "lean.lean_options": {"kernel": "off"},
                  "blueprint.path": str(tmp_path / "run" / "BLUEPRINT.md")}
    config = load_config(None, overrides)
    BlueprintStore(config.blueprint.path, config.blueprint).register_target("theorem", "add_zero", statement=TRUE)
    job = await finished_job(config, [outcome("add_zero", TRUE, ["intro n", "omega"])])
    async with Client(build_server(config)) as client:
        result = await call(client, "record_proof", label="add_zero", job_id=job)
        assert result.is_error and "kernel=off" in result.content[0].text


async def test_audit_finds_a_done_typed_into_the_file(config: BurnqedConfig, store: BlueprintStore) -> None:
    path = config.blueprint.path
    text = path.read_text(encoding="utf-8")
    head, sep, tail = text.partition("# theorem succ_ne")
    path.write_text(head + sep + tail.replace("status: todo", "status: done", 1), encoding="utf-8")
    assert store.get("succ_ne").status == "done"
    report = await run_audit(config.audit(), config.paths.run_dir)
    kinds = {(v.kind, v.theorem) for v in report.violations}
    assert ("done_without_proof", "succ_ne") in kinds
