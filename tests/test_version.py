"""``burnqed --version`` and the declared dependencies a first-time user meets (issue 38)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from burnqed.cli import main

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_the_installed_projects(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"burnqed {version('burnqed')}"
    assert version("burnqed") == PYPROJECT["project"]["version"]


def test_the_mcp_sdk_bound_is_the_one_whose_mcpserver_burnqed_imports() -> None:
    """mcp.server.mcpserver (MCPServer) exists from SDK 2.0: a 1.x install cannot start a server."""
    (mcp,) = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("mcp")]
    assert mcp.split("#")[0].strip().startswith("mcp>=2")
    import mcp.server.mcpserver  # noqa: F401


def test_the_readme_downloads_models_with_the_cli_its_venv_ships() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "huggingface-cli" not in readme and "hf download" in readme
    assert "huggingface_hub" in " ".join(PYPROJECT["project"]["optional-dependencies"]["gpu"])
