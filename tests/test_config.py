"""The configuration loads from TOML and is overridden by flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.cli import build_parser
from burnqed.config import BurnqedConfig, ConfigError, load_config, parse_override


def test_defaults_without_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config == BurnqedConfig()
    assert config.lean.backend == "embedded"


def test_toml_then_overrides_win(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('[search]\nmax_nodes = 7\n[lean]\nimports = ["Mathlib"]\n', encoding="utf-8")
    config = load_config(path, ["search.max_nodes=9", "lean.read_timeout_s=2.5"])
    assert config.search.max_nodes == 9
    assert config.lean.imports == ["Mathlib"]
    assert config.lean.read_timeout_s == 2.5


def test_unknown_key_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="max_nodez"):
        load_config(None, ["search.max_nodez=3"])


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_override_parsing() -> None:
    assert parse_override("a.b=3") == (["a", "b"], 3)
    assert parse_override("a.b=hello") == (["a", "b"], "hello")
    assert parse_override('a.b=["x", "y"]') == (["a", "b"], ["x", "y"])
    with pytest.raises(ConfigError):
        parse_override("novalue")


def test_parser_builds_with_every_package() -> None:
    parser = build_parser()
    assert parser.prog == "burnqed"


def test_relative_paths_in_a_file_are_relative_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: Claude Desktop starts a server in a directory of its own; `runs/demo` in the
    config must not become a runs/demo/ wherever that is."""
    home = tmp_path / "project"
    home.mkdir()
    config_file = home / "burnqed.toml"
    config_file.write_text(
        '[paths]\nrun_dir = "runs/demo"\nlogs_dir = "/abs/logs"\n'
        '[blueprint]\npath = "runs/demo/BLUEPRINT.md"\n'
        '[lean]\nlean_path = ["lib", "/abs/lib"]\n'
        '[policy]\nmodel_dir = "~/models/m"\n',
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(config_file, ["paths.home=cache"])
    assert config.paths.run_dir == home / "runs" / "demo"
    assert config.blueprint.path == home / "runs" / "demo" / "BLUEPRINT.md"
    assert config.paths.logs_dir == Path("/abs/logs")
    assert config.lean.lean_path == [home / "lib", Path("/abs/lib")]
    assert config.policy.model_dir == Path("~/models/m").expanduser()
    assert config.paths.home == Path("cache")  # a --set path stays relative to where the command runs
    assert load_config(None, ["paths.run_dir=runs/x"]).paths.run_dir == Path("runs/x")


def test_loading_the_config_imports_configs_only() -> None:
    # every burnqed process reads its config first: the package facades are lazy, so reading it
    # runs no Lean, search or trajectory module and no heavy library (each server starts sooner)
    import subprocess
    import sys

    code = (
        "import sys, burnqed.config\n"
        "print(sorted(m for m in sys.modules if m.startswith('burnqed.') and m.rsplit('.', 1)[-1]"
        " not in {'config', 'errors', 'common'} and m.count('.') > 1))\n"
        "print(sorted(m for m in ('pyarrow', 'numpy', 'torch', 'mcp', 'sympy', 'z3', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.splitlines() == ["[]", "[]"]
