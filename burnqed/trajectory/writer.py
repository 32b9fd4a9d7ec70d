"""Incremental, atomic, resumable Parquet writing of trajectory records.

Layout on disk for an output ``OUT.parquet``:

- ``OUT.parquet.parts/part-NNNNN.parquet`` — committed chunks (each written to a temp name
  and renamed, so a part is either whole or absent). A run killed at any moment leaves
  every committed part readable.
- ``OUT.parquet`` — the finalised file: the previous final file (when resuming) and all
  parts merged row group by row group into a temp file, then renamed over the target.

The writer holds ``OUT.parquet.lock`` (``burnqed.writelock``) from opening to ``finalize``:
a second writer of the same output, in another process, is refused (``LockHeld``) instead of
sharing part numbers with it; an output inside a run directory another process holds is
refused too.

A theorem's rows are always written together (one ``write`` call) and never span two
parts, so "done" is decidable per theorem: ``done_theorems()`` lists every theorem with
rows in the final file, a part, or the buffer. A merge keeps the first copy of a theorem,
so even a crash between the rename and the removal of the parts cannot duplicate one.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Self

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from burnqed.trajectory.schema import SCHEMA, TrajectoryRecord
from burnqed.writelock import hold, lock_file_for, refuse_inside_locked_run

__all__ = [
    "TrajectoryWriteError",
    "TrajectoryWriter",
    "parts_dir",
    "records_to_table",
    "written_statements",
    "written_theorems",
]

log = logging.getLogger(__name__)

_PART_GLOB = "part-*.parquet"
_ROW = pa.struct(list(SCHEMA))


class TrajectoryWriteError(OSError):
    """The trajectory file cannot be written (closed writer, unreadable previous output)."""


def parts_dir(path: str | Path) -> Path:
    """The directory of committed, not yet merged parts beside ``path``."""
    path = Path(path)
    return path.with_name(path.name + ".parts")


def records_to_table(records: Sequence[TrajectoryRecord]) -> pa.Table:
    """Columnar conversion of records to a table of SCHEMA."""
    # the instance dicts go to Arrow as one struct array: the per-field work happens in C
    dicts = [r.__dict__ for r in records]
    table = pa.Table.from_struct_array(pa.array(dicts, type=_ROW))
    return table if table.schema.equals(SCHEMA) else table.cast(SCHEMA)


class TrajectoryWriter:
    """Buffers records, commits them as Parquet parts, and merges them on ``finalize``.

    ``resume=True`` keeps what ``path`` and its parts already hold (``done_theorems``);
    ``resume=False`` replaces them: both are removed when the writer opens.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        resume: bool = False,
        row_group_rows: int = 65536,
        flush_interval_s: float = 30.0,
        compression: str = "zstd",
    ) -> None:
        self.path = Path(path)
        self.parts = parts_dir(self.path)
        self.row_group_rows = row_group_rows
        self.flush_interval_s = flush_interval_s
        self.compression = compression
        self.resume = resume
        self._buffer: list[pa.Table] = []
        self._pending: list[TrajectoryRecord] = []
        self._buffered_rows = 0
        self._last_flush = time.monotonic()
        self._closed = False
        self._done: set[str] = set()
        self.rows_written = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        refuse_inside_locked_run(self.path)
        self._lock = ExitStack()
        self._lock.enter_context(hold(lock_file_for(self.path), "a trajectory writer", what=str(self.path), reentrant=True))
        if resume:
            self._done = _theorems_of(self._sources())
        else:
            # replacing: an old file must not mix with this run's parts if we are killed
            shutil.rmtree(self.parts, ignore_errors=True)
            self.path.unlink(missing_ok=True)
        self.parts.mkdir(exist_ok=True)
        self._next_part = _next_part_index(self.parts)

    # ------------------------------------------------------------------ writing

    def done_theorems(self) -> set[str]:
        """Theorems whose rows are already written (final file, parts or buffer)."""
        return set(self._done)

    def write(self, records: Sequence[TrajectoryRecord]) -> None:
        """Append one theorem's (or any complete group's) records; flushes when due."""
        if self._closed:
            raise TrajectoryWriteError(f"writer for {self.path} is closed")
        if not records:
            return
        # records stay Python objects until a flush converts the whole buffer at once
        self._pending.extend(records)
        self._buffered_rows += len(records)
        self._done.update({r.theorem for r in records})
        self._maybe_flush()

    def write_table(self, table: pa.Table) -> None:
        """Append a table of SCHEMA rows (kept together in one part)."""
        if self._closed:
            raise TrajectoryWriteError(f"writer for {self.path} is closed")
        if table.num_rows == 0:
            return
        if self._pending:
            self._buffer.append(records_to_table(self._pending))
            self._pending = []
        self._buffer.append(table.cast(SCHEMA) if table.schema != SCHEMA else table)
        self._buffered_rows += table.num_rows
        self._done.update(pc.unique(table.column("theorem")).to_pylist())
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        due = time.monotonic() - self._last_flush >= self.flush_interval_s
        if self._buffered_rows >= self.row_group_rows or due:
            self.flush()

    def flush(self) -> None:
        """Commit the buffer as one part (temp file + rename)."""
        self._last_flush = time.monotonic()
        if self._pending:
            self._buffer.append(records_to_table(self._pending))
            self._pending = []
        if not self._buffer:
            return
        table = pa.concat_tables(self._buffer)
        self._buffer.clear()
        self._buffered_rows = 0
        final = self.parts / f"part-{self._next_part:05d}.parquet"
        tmp = self.parts / f".part-{self._next_part:05d}.tmp"
        pq.write_table(table, tmp, row_group_size=self.row_group_rows, compression=self.compression)
        os.replace(tmp, final)
        self._next_part += 1
        self.rows_written += table.num_rows

    # ------------------------------------------------------------------ finalising

    def finalize(self) -> Path:
        """Flush, merge the previous output and all parts into ``path`` atomically; close."""
        if self._closed:
            return self.path
        try:
            self.flush()
            self._closed = True
            return self._merge()
        finally:
            self._closed = True
            self._lock.close()

    def _merge(self) -> Path:
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        seen: set[str] = set()
        total = 0
        with pq.ParquetWriter(tmp, SCHEMA, compression=self.compression) as out:
            for source in self._sources():
                new_in_source: set[str] = set()
                pf = pq.ParquetFile(source)
                for i in range(pf.num_row_groups):
                    group = pf.read_row_group(i).cast(SCHEMA)
                    if seen:
                        group = group.filter(pc.invert(pc.is_in(group.column("theorem"), pa.array(sorted(seen)))))
                    if group.num_rows:
                        out.write_table(group, row_group_size=self.row_group_rows)
                        total += group.num_rows
                        new_in_source.update(pc.unique(group.column("theorem")).to_pylist())
                seen |= new_in_source
        os.replace(tmp, self.path)
        shutil.rmtree(self.parts, ignore_errors=True)
        log.info("trajectories finalised: %s (%d rows)", self.path, total)
        return self.path

    def _sources(self) -> list[Path]:
        # without resume an existing output is replaced, never merged
        return _existing_sources(self.path, final=self.resume)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finalize()


def written_theorems(path: str | Path) -> set[str]:
    """Theorems already in ``path`` and its parts, read without writing anything.

    What ``TrajectoryWriter(path, resume=True).done_theorems()`` will hold; a command calls
    it first so that a corrupt file stops the run (TrajectoryWriteError naming the file)
    before a model is loaded or a directory is created.
    """
    return _theorems_of(_existing_sources(Path(path), final=True))


def written_statements(path: str | Path) -> dict[str, set[str]]:
    """Theorem name → the statement hashes its rows in ``path`` and its parts carry (read
    only): a resume matches theorems by statement, not by name alone."""
    found: dict[str, set[str]] = {}
    for source in _existing_sources(Path(path), final=True):
        try:
            table = pq.read_table(source, columns=["theorem", "statement_sha"])
        except (OSError, pa.ArrowInvalid) as exc:
            raise TrajectoryWriteError(
                f"cannot resume: {source} is not a readable Parquet file (corrupt or truncated); "
                "move it away (its theorems are searched again), or start over (burnqed search: --force)"
            ) from exc
        pairs = table.group_by(["theorem", "statement_sha"]).aggregate([])
        for name, sha in zip(pairs.column("theorem").to_pylist(), pairs.column("statement_sha").to_pylist(), strict=True):
            found.setdefault(name, set()).add(sha)
    return found


def _existing_sources(path: Path, *, final: bool) -> list[Path]:
    """The committed parts beside ``path`` (after ``path`` itself when ``final``)."""
    sources: list[Path] = [path] if final and path.is_file() else []
    parts = parts_dir(path)
    if parts.is_dir():
        sources.extend(sorted(parts.glob(_PART_GLOB)))
    return sources


def _theorems_of(sources: Iterable[Path]) -> set[str]:
    names: set[str] = set()
    for source in sources:
        try:
            column = pq.read_table(source, columns=["theorem"]).column("theorem")
        except (OSError, pa.ArrowInvalid) as exc:
            raise TrajectoryWriteError(
                f"cannot resume: {source} is not a readable Parquet file (corrupt or truncated); "
                "move it away (its theorems are searched again), or start over (burnqed search: --force)"
            ) from exc
        names.update(pc.unique(column).to_pylist())
    return names


def _next_part_index(directory: Path) -> int:
    indices = [int(p.stem.split("-")[1]) for p in directory.glob(_PART_GLOB)]
    return max(indices, default=-1) + 1
