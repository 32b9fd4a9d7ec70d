"""ResultCheckpoint: finished theorems survive a kill (torn last line skipped), a changed
statement is searched again, and an evaluation resumed with prior results reports them all."""

from __future__ import annotations

from pathlib import Path

from burnqed.data.theorems import Theorem
from burnqed.search.checkpoint import ResultCheckpoint
from burnqed.search.results import SearchResult, SearchStats

A = Theorem(name="a", statement="∀ (n : Nat), n = n")
B = Theorem(name="b", statement="∀ (n : Nat), n + 0 = n")


def result(thm: Theorem, proved: bool) -> SearchResult:
    return SearchResult(theorem=thm, proved=proved, proof=["intro n", "rfl"] if proved else None,
                        stats=SearchStats(nodes_expanded=3), backend="embedded",
                        reason="proved" if proved else "exhausted")


def test_checkpoint_keeps_finished_theorems_and_skips_a_torn_line(tmp_path: Path) -> None:
    checkpoint = ResultCheckpoint(tmp_path / "iter_0.json.partial.jsonl")
    assert checkpoint.load([A, B]) == []
    checkpoint.append(result(A, True))
    with checkpoint.path.open("a", encoding="utf-8") as fh:
        fh.write('{"theorem": {"name": "b", "statem')  # killed mid-write
    [loaded] = checkpoint.load([A, B])
    assert loaded.theorem == A and loaded.proved and loaded.proof == ["intro n", "rfl"]
    checkpoint.append(result(B, False))  # the resumed run's next theorem is not lost to the torn line
    assert [r.theorem.name for r in checkpoint.load([A, B])] == ["a", "b"]
    # the same name with another statement is not a finished theorem
    assert checkpoint.load([Theorem(name="a", statement="∀ (n : Nat), n = n + 0")]) == []
    checkpoint.remove()
    assert not checkpoint.path.exists()
