"""A user's own statement file: a .lean file of theorems under one header, or JSON Lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.data.statements import read_lean_theorems, read_statement_file
from burnqed.data.theorems import TheoremSetError

LEAN = """import Mathlib
open Real

/-- the first one -/
theorem first (x : ℕ) (h : 0 < x) : 1 ≤ x := by
  sorry

lemma second : (2 : ℕ) + 2 = 4 := sorry

-- a commented-out theorem is no theorem:
-- theorem ghost : False := by sorry

theorem proved (n : ℕ) : n + 0 = n := by
  simp

theorem half_done : 1 = 1 := by
  skip
  sorry

example : True := by
"""


def test_a_lean_file_gives_its_statements_under_its_header() -> None:
    skipped: list[tuple[int, str]] = []
    theorems = read_lean_theorems(LEAN, source="mine", skipped=skipped)
    names = [t.name for t in theorems]
    assert names == ["first", "second", "proved", "example_L20"]
    assert all(t.header == "import Mathlib\nopen Real" for t in theorems)
    first = theorems[0]
    assert first.statement == "theorem first (x : ℕ) (h : 0 < x) : 1 ≤ x" and first.proof is None
    assert theorems[2].proof == ["simp"]  # a proved theorem keeps its proof: a warm start
    # a proof with sorry in it is neither a statement nor a proof: reported by line, never the end of the file
    assert [line for line, _ in skipped] == [16] and "sorry" in skipped[0][1]
    # the theorem's own file: header, the user's name, the tactics
    assert first.lean_file(["omega"]).startswith("import Mathlib\n\nopen Real\n\ntheorem first (x : ℕ)")


def test_a_lean_file_without_a_theorem_is_refused() -> None:
    with pytest.raises(TheoremSetError, match="no theorem"):
        read_lean_theorems("import Mathlib\n-- theorem t : True := by sorry\n")


def test_statement_files_by_suffix(tmp_path: Path) -> None:
    lean = tmp_path / "mine.lean"
    lean.write_text(LEAN, encoding="utf-8")
    theorems, skipped = read_statement_file(lean)
    assert len(theorems) == 4 and len(skipped) == 1 and theorems[0].source == "mine"
    jsonl = tmp_path / "mine.jsonl"
    jsonl.write_text('"∀ (n : Nat), n + 0 = n"\n{"name": "t", "statement": "1 + 1 = 2"}\n', encoding="utf-8")
    theorems, skipped = read_statement_file(jsonl)
    assert [t.name for t in theorems] == ["line1", "t"] and not skipped
