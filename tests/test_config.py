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
