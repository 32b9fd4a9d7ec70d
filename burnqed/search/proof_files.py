"""The proof files of a run: one complete Lean file per proved theorem (header, theorem, tactic block).

These are the files the final check accepted (LeanPool.verify_proof assembles and checks
the same text); writing them lets anyone re-check a run's proofs with ``lean`` or
``burnqed verify-file``, as every published prover's results are checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from burnqed.files import write_text_atomic
from burnqed.search.results import SearchResult

__all__ = ["proofs_dir", "write_proof_files"]


def proofs_dir(output: Path) -> Path:
    """Where a run writing ``output`` (a .parquet or .json) puts its proof files: ``<stem>-proofs/`` beside it."""
    return output.with_name(f"{output.stem}-proofs")


def _file_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name).strip(".") or "theorem"
    return f"{safe}.lean"


def write_proof_files(directory: Path, results: Iterable[SearchResult]) -> list[Path]:
    """Write ``<name>.lean`` for every proved result (atomically: temp file, then rename); the paths written."""
    written: list[Path] = []
    for result in results:
        if not result.proved or result.proof is None:
            continue
        path = directory / _file_name(result.theorem.name)
        write_text_atomic(path, result.theorem.lean_file(list(result.proof)))
        written.append(path)
    return written
