"""frontend.process and the REPL commands read comments as Lean does (issue 37): a file or snippet
whose Lean reading differs from a naive one is never answered with a clean unit."""

from __future__ import annotations

from typing import Any

import pytest

from burnqed.embedded import Checker
from tests.embedded.util import wire


def process(checker: Checker, file: str) -> list[dict[str, Any]]:
    return wire(checker, {"cmd": "frontend.process", "payload": {"file": file}})["units"]


def clean(unit: dict[str, Any]) -> bool:
    return not unit["messages"] and "goalStateId" not in unit


ATTACKS = [
    # `/--/` opens a doc comment that `-- -/` closes: Lean compiles the axiom and uses it
    "/--/ a note\n-- -/ axiom cheat : (1 : ℕ) = 2\ntheorem t : (1 : ℕ) = 2 := by\n  exact cheat\n",
    # the same trick hides a sorry or native_decide from a naive reader
    "theorem t : (1 : ℕ) = 2 := by\n  /--/\n  -- -/ sorry\n",
    "theorem t : (1 : ℕ) = 2 := by\n  /--/\n  -- -/ native_decide\n",
    # a header line carrying an axiom past the header comparison
    "open Nat /--/\n-- -/ axiom cheat : (1 : ℕ) = 2\ntheorem t : (1 : ℕ) = 2 := by\n  exact cheat\n",
    # Lean's tokenizer reads `<-` first, so `--` here is no comment: refused, never guessed
    "theorem t : (1 : ℕ) = 1 := by\n  rfl <-- x\n",
    "theorem t : (1 : ℕ) = 1 := by\n  rfl /- never closed\n",
]


@pytest.mark.parametrize("file", ATTACKS)
def test_an_attack_file_never_yields_a_clean_unit(file: str) -> None:
    units = process(Checker(), file)
    assert units and not all(clean(u) for u in units)
    assert any(m["severity"] == "error" for u in units for m in u["messages"])


def test_a_nested_comment_read_as_lean_reads_it_still_checks() -> None:
    # `/-/` opens a nested comment: `rfl /- a /-/ -/ b -/` is `rfl` and one comment
    (unit,) = process(Checker(), "theorem t : (1 : ℕ) = 1 := by\n  rfl /- a /-/ -/ b -/\n")
    assert clean(unit), unit


def test_the_refusal_points_at_the_offending_text() -> None:
    (unit,) = process(Checker(), "theorem t : (1 : ℕ) = 1 := by\n  rfl <-- x\n")
    (message,) = unit["messages"]
    assert "token table" in message["data"] and message["pos"] == {"line": 2, "column": 7}


def test_goal_commands_refuse_a_stray_doc_comment() -> None:
    c = Checker()
    assert "error" in wire(c, {"cmd": "goal.start", "payload": {"expr": "(1 : Nat) = 1 /--/ -- -/"}})
    started = wire(c, {"cmd": "goal.start", "payload": {"expr": "(1 : Nat) = 1"}})
    out = wire(c, {"cmd": "goal.tactic", "payload": {"stateId": started["stateId"], "tactic": "rfl /--/ -- -/"}})
    assert "parseError" in out and "nextStateId" not in out
