"""Shared pytest set-up: offline Hugging Face, the real-Lean marker, shared fixture plugins."""

from __future__ import annotations

import os
import shutil

import pytest

# Nothing may reach a model hub from the tests.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One torch thread: on a shared 2-core runner, more threads spin against each other (10x slower).
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Fixture modules, one per area (each owns its fixtures).
pytest_plugins = [
    "tests.fixtures.lean",
    "tests.fixtures.data",
    "tests.fixtures.models",
    "tests.fixtures.fake_anthropic",
    "tests.fixtures.tools",
    "tests.fixtures.ebm",
]


def _real_lean_available() -> bool:
    return bool((os.environ.get("PANTOGRAPH_REPL") or shutil.which("repl")) and shutil.which("lean"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``lean`` when no real Lean + Pantograph is installed."""
    if _real_lean_available():
        return
    skip = pytest.mark.skip(reason="needs a real Lean toolchain and Pantograph `repl` (not installed)")
    for item in items:
        if "lean" in item.keywords and item.get_closest_marker("lean") is not None:
            item.add_marker(skip)
