"""docs/mcp.md stays true: the paths it names exist and every tool is listed."""

from __future__ import annotations

import re
from pathlib import Path

from tests.servers.test_stdio import EXPECTED_TOOLS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mcp.md"


def test_paths_named_in_the_doc_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:burnqed|servers|tests)/[\w/]+\.py)`", text))
    assert paths, "the doc names no paths"
    missing = sorted(p for p in paths if not (ROOT / p).is_file())
    assert missing == []


def test_every_tool_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for tools in EXPECTED_TOOLS.values():
        for tool in tools:
            assert f"`{tool}" in text, tool
