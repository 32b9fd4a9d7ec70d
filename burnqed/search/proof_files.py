"""The proof files of a run: one complete Lean file per proved theorem (header, theorem, tactic block).

These are the files the final check accepted (LeanPool.verify_proof assembles and checks
the same text); writing them lets anyone re-check a run's proofs with ``lean`` or
``burnqed verify-file``, as every published prover's results are checked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from burnqed.data.theorems import Theorem
from burnqed.files import write_text_atomic
from burnqed.search.results import SearchResult

__all__ = ["proof_file_name", "proofs_dir", "write_proof_file", "write_proof_files"]

# well under NAME_MAX (255 bytes) with the hash suffix and ".lean"
_MAX_STEM = 100


def proofs_dir(output: Path) -> Path:
    """Where a run writing ``output`` (a .parquet or .json) puts its proof files: ``<stem>-proofs/`` beside it."""
    return output.with_name(f"{output.stem}-proofs")


def proof_file_name(name: str) -> str:
    """``<name>.lean`` when the name is a safe, short file name; otherwise its safe prefix and
    a hash of the whole name, so ``a/b`` and ``a_b`` (or two long names) never share a file."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name).strip(".") or "theorem"
    if safe == name and len(safe.encode()) <= _MAX_STEM:
        return f"{safe}.lean"
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    stem = safe.encode("utf-8")[:_MAX_STEM].decode("utf-8", errors="ignore")
    return f"{stem}-{digest}.lean"


def write_proof_file(directory: Path, theorem: Theorem, proof: list[str]) -> Path:
    """Write one theorem's proof file (atomically); its path."""
    path = directory / proof_file_name(theorem.name)
    write_text_atomic(path, theorem.lean_file(list(proof)))
    return path


def write_proof_files(directory: Path, results: Iterable[SearchResult]) -> list[Path]:
    """Write ``<name>.lean`` for every proved result (atomically: temp file, then rename); the paths written."""
    written: list[Path] = []
    for result in results:
        if not result.proved or result.proof is None:
            continue
        written.append(write_proof_file(directory, result.theorem, list(result.proof)))
    return written
