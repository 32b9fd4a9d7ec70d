"""ResultCheckpoint: search results written one line per finished theorem, for resuming.

An evaluation searches hundreds of theorems; killed half way it should not start over. Each
finished theorem's SearchResult (without its trajectory records, which the trajectory
writer keeps) is appended to a JSONL file and fsynced; a resumed run reads back the results
whose theorem (name and statement hash) is still to be evaluated. A torn last line, from a
kill mid-write, is skipped, and so is an infrastructure outcome (a lost worker, an error):
the resumed run searches that theorem again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from burnqed.data.theorems import Theorem
from burnqed.files import append_line
from burnqed.search.results import SearchResult

__all__ = ["ResultCheckpoint"]


class ResultCheckpoint:
    """Append-only JSONL of finished SearchResults beside a result file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self, theorems: Sequence[Theorem]) -> list[SearchResult]:
        """Results already recorded for ``theorems`` (same name and statement), in their order."""
        if not self.path.is_file():
            return []
        wanted = {t.name: t.sha for t in theorems}
        found: dict[str, SearchResult] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                result = SearchResult.model_validate_json(line)
            except ValidationError:
                continue
            if result.infrastructure:
                continue
            if wanted.get(result.theorem.name) == result.theorem.sha:
                found[result.theorem.name] = result
        return [found[t.name] for t in theorems if t.name in found]

    def append(self, result: SearchResult) -> None:
        """Record one finished theorem durably."""
        append_line(self.path, result.model_dump_json(exclude={"records"}))

    def remove(self) -> None:
        """Forget the checkpoint once the full result is written."""
        self.path.unlink(missing_ok=True)
