"""The one configuration of burnqed: component configs loaded from TOML, overridden by flags.

Defaults live in the component models' field defaults (one place each). A TOML file may set
any subset, e.g.::

    [lean]
    backend = "pantograph"
    imports = ["Mathlib"]

    [search]
    max_nodes = 200

and the command line overrides single values with ``--set search.max_nodes=200`` or with
the commands' own flags. The configuration reads no environment variable: the few that
burnqed reads (API keys and the HTTP token by the names the config gives, ``$BURNQED_CONFIG``
for ``serve``, ``$ANTHROPIC_BASE_URL``, ``$PANTOGRAPH_REPL``, ``$LEAN_PATH``, the chaos bench's
seed) are read where they are used, through ``burnqed.env`` only (``tests/test_project.py``
keeps it so).

A relative path the file gives (``paths.run_dir = "runs/demo"``, ``policy.model_dir``, every
field typed as a path) is relative to the file's directory, not to wherever the command was
started: an MCP client (Claude Desktop) starts its servers in a directory of its own. Paths
given with ``--set`` stay relative to the working directory, like any command-line path.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from burnqed.audit.config import AuditConfig
from burnqed.coordination.config import CoordinationRunConfig
from burnqed.paths import PathsConfig

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "BurnqedConfig",
    "ConfigError",
    "PathsConfig",
    "load_config",
    "parse_override",
    "toml_literal",
]

DEFAULT_CONFIG_PATH = Path("burnqed.toml")


class ConfigError(ValueError):
    """A configuration file or override is invalid (the message says which key)."""


class BurnqedConfig(CoordinationRunConfig):
    """Every component's configuration.

    The layers compose upwards: IterationRunConfig (lean, policy, ebm, search, cluster, iteration,
    data, blueprint, paths) ⊂ ToolsRunConfig (+ tools) ⊂ CoordinationRunConfig
    (+ coordinator) ⊂ BurnqedConfig. Each layer takes its own model, so nothing below the
    CLI imports this module; the audit gets its slice through ``audit()``.
    """

    def audit(self) -> AuditConfig:
        """What ``burnqed audit`` needs of this config."""
        return AuditConfig(lean=self.lean, blueprint=self.blueprint, paths=self.paths)


def parse_override(text: str) -> tuple[list[str], Any]:
    """Parse ``section.key=value``; the value is read as TOML, else taken as a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r} is not of the form section.key=value")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key.strip().split("."), value


def _set_path(data: dict[str, Any], path: list[str], value: Any) -> None:
    node = data
    for part in path[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"cannot set {'.'.join(path)}: {part} is not a table")
        node = child
    node[path[-1]] = value


def load_config(
    path: str | Path | None = None,
    overrides: dict[str, Any] | list[str] | None = None,
) -> BurnqedConfig:
    """Load the TOML file (``path``, else ./burnqed.toml if present) and apply overrides.

    ``overrides`` maps dotted keys to values (flags) or is a list of ``key=value`` strings.
    """
    data: dict[str, Any] = {}
    if path is None and DEFAULT_CONFIG_PATH.is_file():
        path = DEFAULT_CONFIG_PATH
    if path is not None:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"config file not found: {path}") from exc
        except (OSError, UnicodeDecodeError) as exc:
            # a directory, an unreadable or a binary file: the same one-line refusal as a bad TOML
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a UTF-8 text file"
            raise ConfigError(f"cannot read config file {path}: {reason} (give a TOML file)") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    items: list[tuple[list[str], Any]]
    if overrides is None:
        items = []
    elif isinstance(overrides, dict):
        items = [(k.split("."), v) for k, v in overrides.items() if v is not None]
    else:
        items = [parse_override(o) for o in overrides]
    from_file = json.loads(json.dumps(data, default=str))  # the file's own keys, before the overrides
    for key_path, value in items:
        _set_path(data, key_path, value)
    try:
        config = BurnqedConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_validation_summary(exc)) from exc
    if path is None:
        return config
    overridden = {tuple(k) for k, _ in items}
    return _anchored(config, from_file, Path(path).expanduser().resolve().parent, overridden, ())


def _anchored(model: Any, given: dict[str, Any], base: Path, overridden: set[tuple[str, ...]], at: tuple[str, ...]) -> Any:
    """``model`` with each relative path the file gave (``given``) made absolute against ``base``."""
    updates: dict[str, Any] = {}
    for key, raw in given.items():
        if key not in type(model).model_fields or (*at, key) in overridden:
            continue
        value = getattr(model, key)
        if isinstance(value, BaseModel) and isinstance(raw, dict):
            anchored = _anchored(value, raw, base, overridden, (*at, key))
            if anchored is not value:
                updates[key] = anchored
        elif isinstance(value, Path):
            updates[key] = _against(value, base)
        elif isinstance(value, list) and value and all(isinstance(v, Path) for v in value):
            updates[key] = [_against(v, base) for v in value]
    return model.model_copy(update=updates) if updates else model


def _against(path: Path, base: Path) -> Path:
    """``path`` with ``~`` expanded, made absolute against ``base`` when relative."""
    path = path.expanduser()
    return path if path.is_absolute() else base / path


def _validation_summary(exc: ValidationError) -> str:
    """The first invalid key of a config on one line (pydantic's own text spans several)."""
    errors = exc.errors()
    first = errors[0]
    key = ".".join(str(x) for x in first.get("loc", ())) or "config"
    if first.get("type") == "extra_forbidden":
        return f"unknown key {key} (check its spelling and its [section])"
    given = first.get("input")
    got = f" (got {given!r})" if isinstance(given, str | int | float | bool) else ""
    more = f"; {len(errors) - 1} more invalid" if len(errors) > 1 else ""
    return f"{key}: {first['msg']}{got}{more}"


def toml_literal(value: Any) -> str:
    """A JSON-able value as a TOML literal (for ``--set key=value`` overrides)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_literal(str(k))} = {toml_literal(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)
