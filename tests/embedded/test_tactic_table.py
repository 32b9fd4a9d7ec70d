"""The table of tactics (burnqed/embedded/tactics/table.py) is the one registry: it agrees with
the names each tactic function declares, with the tactic parser, and it is what runs."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
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
