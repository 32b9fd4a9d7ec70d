"""The MCP Inspector's CLI mode, a real third-party client, against ``burnqed serve``.

Skipped when npx is missing or the npm registry cannot be reached (the first run
downloads the Inspector; on Node 20 npx resolves it to 0.15).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.tools import as_set_flags

pytestmark = pytest.mark.npm

INSPECTOR = "@modelcontextprotocol/inspector"


def _npm_env() -> dict[str, str]:
    return {**os.environ, "npm_config_yes": "true", "npm_config_update_notifier": "false"}


@pytest.fixture(scope="module")
def npx() -> str:
    path = shutil.which("npx")
    if path is None or shutil.which("npm") is None:
        pytest.skip("npx / npm not installed")
    try:
        probe = subprocess.run(
            ["npm", "view", INSPECTOR, "version"],
            capture_output=True,
            text=True,
            timeout=30,
            env=_npm_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the npm registry did not answer within 30 s")
    if probe.returncode != 0:
        pytest.skip(f"the npm registry is unreachable: {probe.stderr.strip()[-200:]}")
    return path


def inspect(npx: str, server: str, overrides: dict[str, Any], *method: str, cwd: Path) -> dict[str, Any]:
    argv = [
        npx,
        INSPECTOR,
        "--cli",
        sys.executable,
        "-m",
        "burnqed.cli",
        "serve",
        server,
        *as_set_flags(overrides),
        *method,
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, env=_npm_env(), cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_inspector_cli_calls_a_tool(npx: str, tools_overrides: dict[str, Any]) -> None:
    repo = Path(__file__).resolve().parents[2]
    called = inspect(
        npx,
        "lean",
        tools_overrides,
        "--method",
        "tools/call",
        "--tool-name",
        "start_proof",
        "--tool-arg",
        "statement=∀ (n : Nat), n + 0 = n",
        cwd=repo,
    )
    assert called["isError"] is False
    assert called["structuredContent"]["goals_text"] == "⊢ ∀ (n : Nat), n + 0 = n"
    assert called["content"][0]["text"].startswith("handle h-")
