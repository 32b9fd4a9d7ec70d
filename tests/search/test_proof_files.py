"""Proof files (issue 28): one file per theorem whatever its name, so ``a/b`` and ``a_b`` do
not share one and a 300-character name is written, not an OSError after the run."""

from __future__ import annotations

from pathlib import Path

from burnqed.data.theorems import Theorem
from burnqed.search.proof_files import proof_file_name, write_proof_file


def test_names_that_sanitise_alike_get_distinct_files(tmp_path: Path) -> None:
    names = ["a/b", "a_b", "a b", "x" * 300, "x" * 299 + "y", "ünï", "..hidden"]
    files = [proof_file_name(n) for n in names]
    assert len(set(files)) == len(names)
    assert proof_file_name("a_b") == "a_b.lean"  # a plain name keeps its file name
    assert all(len(f.encode()) <= 255 and "/" not in f and not f.startswith(".") for f in files)
    for name in names:
        path = write_proof_file(tmp_path, Theorem(name=name, statement="True"), ["trivial"])
        assert path.read_text(encoding="utf-8").rstrip().endswith("trivial")
    assert len(list(tmp_path.iterdir())) == len(names)
