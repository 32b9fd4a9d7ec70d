"""The table of tactics (burnqed/embedded/tactics/table.py) is the one registry: it agrees with
the names each tactic function declares, with the tactic parser and with docs/embedded.md, and
it is what runs."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import burnqed.embedded.tactics as wing
from burnqed.embedded import Checker
from burnqed.embedded.syntax.tactic_parser import TACTIC_NAMES
from burnqed.embedded.tactics.table import GOAL_LIST_TACTICS, TACTICS

# run by the interpreter itself, not by a table row
COMBINATORS = {"all_goals", "any_goals", "done", "first", "repeat", "skip", "try"}


def _declared(attribute: str) -> dict[str, Callable[..., Any]]:
    """Tactic name → function, as the ``@register`` names on every function of the wing say."""
    declared: dict[str, Callable[..., Any]] = {}
    for info in pkgutil.iter_modules(wing.__path__):
        module = importlib.import_module(f"{wing.__name__}.{info.name}")
        for value in vars(module).values():
            if callable(value) and getattr(value, "__module__", None) == module.__name__:
                for name in getattr(value, attribute, ()):
                    assert name not in declared or declared[name] is value, f"two functions declare {name!r}"
                    declared[name] = value
    return declared


def test_the_table_is_what_the_functions_declare() -> None:
    """A tactic declared with ``@register`` but missing from the table (or the other way) fails
    here: nothing is registered by importing a module."""
    assert dict(TACTICS) == _declared("tactic_names")
    assert dict(GOAL_LIST_TACTICS) == _declared("goal_list_tactic_names")


def test_the_parser_and_the_table_know_the_same_tactics() -> None:
    assert set(TACTICS) | set(GOAL_LIST_TACTICS) | COMBINATORS == set(TACTIC_NAMES)
    assert not set(TACTICS) & set(GOAL_LIST_TACTICS)


def test_a_tactic_runs_from_the_table() -> None:
    """ring is ring_nf's (ring1, then the normal form), as the table says: it leaves a goal
    Mathlib's ``ring`` leaves rather than failing."""
    assert TACTICS["ring"].__module__ == "burnqed.embedded.tactics.ring_nf"
    checker = Checker()
    assert checker.check_proof("∀ (a b : Nat), (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", ["intro a b", "ring"]).ok


DOC = Path(__file__).resolve().parents[2] / "docs" / "embedded.md"
PACKAGE = Path(wing.__file__).resolve().parents[1]
# words in the tactic list's backticks that are parts of a tactic's syntax, not tactics
_SYNTAX_WORDS = {"_", "a", "at", "from", "generalizing", "h", "succ", "with", "zero"}


def _section(title: str, end: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(title)
    stop = text.find(end, start + len(title))
    return text[start:] if stop < 0 else text[start:stop]


def test_every_tactic_the_docs_list_is_in_the_table_and_back() -> None:
    """docs/embedded.md's tactic list ("The fragment") and the table name the same tactics."""
    listed = {
        span.split()[0]
        for span in re.findall(r"`([^`]+)`", _section("\nTactics: ", "\nProof terms:"))
        if re.fullmatch(r"[a-z_]+'?!?", span.split()[0])
    } - _SYNTAX_WORDS
    known = set(TACTICS) | set(GOAL_LIST_TACTICS) | COMBINATORS
    assert listed - known == set(), "listed in docs/embedded.md, not in tactics/table.py"
    assert known - listed == set(), "in tactics/table.py, not listed in docs/embedded.md"


def test_the_paths_how_to_add_a_tactic_names_exist() -> None:
    """Every file "How to add a tactic" points a newcomer to is there (paths under
    burnqed/embedded/, or from the repository root)."""
    section = _section("## How to add a tactic", "\n## ")
    paths = [p for p in re.findall(r"`([\w./<>-]+\.py)`", section) if "<" not in p]
    assert len(paths) >= 6, paths
    missing = [p for p in paths if not (PACKAGE / p).is_file() and not (PACKAGE.parents[1] / p).is_file()]
    assert not missing, missing
