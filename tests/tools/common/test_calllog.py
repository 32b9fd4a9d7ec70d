"""The tool-call log: one JSON line per call, arguments only as a digest."""

from __future__ import annotations

import json
from pathlib import Path

from burnqed.tools.common.calllog import ToolCallLog, argument_digest


def test_digest_is_canonical_over_key_order_and_spacing() -> None:
    assert argument_digest({"a": 1, "b": "x"}) == argument_digest({"b": "x", "a": 1})
    assert argument_digest({"a": 1}) != argument_digest({"a": 2})
    assert argument_digest(None) == argument_digest({})
    assert len(argument_digest({})) == 64


def test_records_are_appended_as_json_lines_and_read_back(tmp_path: Path) -> None:
    log = ToolCallLog(tmp_path / "logs" / "tool_calls.jsonl")
    log.record("lean", "run_tactic", {"tactic": "secret text"}, True, 1.5, None)
    log.record("search", "job_status", {"job_id": "j"}, False, 0.2, "unknown job")
    lines = (tmp_path / "logs" / "tool_calls.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert set(first) == {"time", "server", "tool", "args_sha256", "ok", "duration_ms", "error", "arg_sizes",
                          "client", "refusal", "error_sha256", "error_chars"}
    assert first["arg_sizes"] == {"tactic": len('"secret text"')}
    assert "secret text" not in lines[0]
    records = list(log.read())
    assert [r.tool for r in records] == ["run_tactic", "job_status"]
    assert records[1].ok is False and records[1].error == "error" and records[1].error_chars == len("unknown job")
    assert "unknown job" not in lines[1]  # an error text is logged as its kind, digest and size


def test_malformed_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    log = ToolCallLog(path)
    log.record("stats", "tool_usage", {}, True, 1.0, None)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("not json\n\n")
    log.record("stats", "tool_usage", {}, True, 1.0, None)
    assert len(list(log.read())) == 2
    assert list(ToolCallLog(tmp_path / "missing.jsonl").read()) == []


def test_an_error_that_echoes_the_arguments_is_logged_as_its_kind_digest_and_size(tmp_path: Path) -> None:
    log = ToolCallLog(tmp_path / "calls.jsonl")
    statement = "∀ (n : Nat), n + 0 = n ∧ my secret lemma"
    log.record(
        "lean", "start_proof", {"statement": statement, "opts": {"tag": "private-tag"}}, False, 1.0,
        f"InvalidStatement: cannot parse {statement!r} (tag private-tag)",
    )
    # escaped and truncated copies of an argument were what redaction by search-and-replace missed
    note = "SECRET_A1 line\nSECRET_A2 line"
    log.record("blueprint", "update_status", {"note": note}, False, 1.0, f"bad note {json.dumps(note)[:20]}")
    log.record("search", "launch_search", {"theorem_set": "benchmark-test"}, False, 1.0,
               "refused [held_out]: 'benchmark-test' is held out")
    text = (tmp_path / "calls.jsonl").read_text(encoding="utf-8")
    assert "secret lemma" not in text and "private-tag" not in text and "SECRET_A" not in text
    first, second, third = log.read()
    assert first.error == "error" and first.refusal is None and first.error_sha256 and first.arg_sizes["opts"] > 0
    assert second.error == "error"
    assert third.error == "refused [held_out]" and third.refusal == "held_out"
