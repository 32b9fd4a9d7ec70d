"""JSONL logs of the coordinator: one event per line (session turns, tool calls, sessions)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from burnqed.files import append_line

__all__ = ["SessionLog", "append_jsonl", "read_jsonl"]


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON object as a line, flushed and fsynced (a crash loses no earlier line)."""
    append_line(path, json.dumps(record, ensure_ascii=False, default=str, sort_keys=True))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file; a torn last line (crash mid-write) is skipped."""
    if not path.is_file():
        return []
    records: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


class SessionLog:
    """The turn-by-turn log of one coordinator session."""

    def __init__(self, path: Path, session: int) -> None:
        self.path = path
        self.session = session

    def event(self, kind: str, **fields: Any) -> None:
        """Append one event of this session."""
        record = {"time": datetime.now(UTC).isoformat(), "session": self.session, "event": kind, **fields}
        append_jsonl(self.path, record)
