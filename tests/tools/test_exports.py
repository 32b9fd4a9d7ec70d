"""Every public name of burnqed.tools (and its modules) exists; importing the package stays cheap."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

MODULES = [
    "burnqed.tools",
    "burnqed.bench.mcp",
    "burnqed.bench.soak",
    "burnqed.tools.blueprint.server",
    "burnqed.tools.blueprint.tools",
    "burnqed.tools.common.calllog",
    "burnqed.cli.serve",
    "burnqed.tools.common.config",
    "burnqed.tools.common.errors",
    "burnqed.tools.common.held_out",
    "burnqed.tools.search.host",
    "burnqed.tools.common.jobs",
    "burnqed.tools.lean.server",
    "burnqed.tools.lean.tools",
    "burnqed.tools.lean.leases",
    "burnqed.tools.common.policy",
    "burnqed.tools.search.models",
    "burnqed.tools.search.server",
    "burnqed.tools.search.tools",
    "burnqed.tools.common.serving",
    "burnqed.tools.common.sessions",
    "burnqed.tools.stats.service",
    "burnqed.tools.stats.server",
    "servers",
    "servers.blueprint",
    "servers.lean_pool",
    "servers.search",
    "servers.stats",
]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    for attr in module.__all__:
        assert getattr(module, attr) is not None, f"{name}.{attr}"


def test_config_loading_does_not_import_the_mcp_sdk() -> None:
    code = "import sys, burnqed.config, burnqed.cli.serve; print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_server_modules_expose_a_lazy_mcp_object_for_mcp_dev() -> None:
    from mcp.server.mcpserver import MCPServer

    import servers.stats

    assert "mcp" not in vars(servers.stats)  # nothing built at import
    assert isinstance(servers.stats.mcp, MCPServer)
    assert servers.stats.mcp is servers.stats.mcp
    with pytest.raises(AttributeError):
        servers.stats.server  # noqa: B018 - mcp's CLI probes these names


def test_the_package_docstring_names_exactly_the_modules_of_burnqed_tools() -> None:
    import burnqed.tools

    named = set(re.findall(r"``([a-z_]+)``", burnqed.tools.__doc__ or ""))
    root = Path(burnqed.tools.__file__).parent
    modules = {p.stem for p in root.glob("*.py")} | {p.stem for p in root.glob("*/*.py")}
    wings = set(re.findall(r"``([a-z_]+)/``", burnqed.tools.__doc__ or ""))
    assert wings == {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    modules -= {"__init__"}
    assert named == modules, f"missing {sorted(modules - named)}, gone {sorted(named - modules)}"
