"""Project-wide checks: exported names resolve, docs name paths and commands that exist."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import burnqed
from burnqed.cli import BENCHES, build_parser

ROOT = Path(__file__).resolve().parents[1]
# modules that are entry points or import optional extras
_SKIP = {"burnqed.embedded.__main__", "burnqed.cli.__main__", "burnqed.policy.smollm2"}


def _modules() -> list[str]:
    names = ["burnqed"]
    for info in pkgutil.walk_packages(burnqed.__path__, prefix="burnqed."):
        if info.name not in _SKIP:
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("module_name", _modules())
def test_every_module_lists_its_public_names_and_they_resolve(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{module_name} has no __all__"
    assert len(exported) == len(set(exported)), f"{module_name}.__all__ has duplicates"
    for name in exported:
        assert getattr(module, name, None) is not None, f"{module_name}.{name} is listed but missing"


def test_the_add_a_tool_checklist_names_paths_that_exist() -> None:
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    checklist = text[text.index("## How to add a tool") :]
    paths = set(re.findall(r"`((?:burnqed|tests|servers)/[\w/.]+\.py)`", checklist))
    assert paths, "the checklist names no paths"
    for path in paths:
        assert (ROOT / path).is_file(), f"docs/mcp.md names {path}, which does not exist"


def test_readme_links_and_commands_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\(((?:docs|vendor)/[^)]*)\)", text):
        assert (ROOT / link).exists(), f"README links {link}, which does not exist"
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    code = "\n".join(re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.DOTALL))
    shown = re.findall(r"(?:^|\s)burnqed ([a-z][a-z-]*)", code, flags=re.MULTILINE)
    assert "demo" in shown and "serve" in shown
    for name in shown:
        assert name in commands, f"README shows `burnqed {name}`, which the CLI does not have"
    for name in re.search(r"burnqed bench ([a-z|]+)", text).group(1).split("|"):  # type: ignore[union-attr]
        assert name in BENCHES


def test_the_two_readme_commands_are_the_ci_and_make_targets() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "torch==2.13.0" in makefile and "burnqed demo" in makefile


def test_the_environment_is_read_only_through_burnqed_env() -> None:
    """burnqed/env.py's docstring and burnqed/config.py's say so; a new ``os.environ[...]``,
    ``os.environ.get`` or ``os.getenv`` elsewhere breaks it (setting one for Ray is no read)."""
    read = re.compile(r"os\.environ(?!\.setdefault\b)|os\.getenv|from os import .*\benviron\b")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "burnqed").rglob("*.py"))
        if path != ROOT / "burnqed" / "env.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if read.search(line) and not line.lstrip().startswith("#")
    ]
    assert not offenders, f"read the environment through burnqed.env: {offenders}"
