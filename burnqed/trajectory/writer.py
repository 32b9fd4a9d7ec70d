"""Atomic Parquet writing of trajectory records: a file that is whole or absent.

``TrajectoryWriter`` streams buffered records, in row groups of ``row_group_rows``, into a
temp file beside ``OUT.parquet`` and renames it over the output on ``finalize``: until then
the previous output (if any) stays as it was, and a killed writer leaves only its temp file.
It writes one file in one go (benchmarks, fixtures, exports). A run over a set of statements
that must survive a kill commits each statement through
``burnqed.search.store.StatementStore`` instead, which merges its per-statement shards into
the same kind of file.

The writer holds ``OUT.parquet.lock`` (``burnqed.writelock``) from opening to ``finalize``:
a second writer of the same output, in another process, is refused (``LockHeld``); an
output inside a run directory another process holds is refused too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Self

import pyarrow as pa
import pyarrow.parquet as pq

from burnqed.trajectory.schema import SCHEMA, TrajectoryRecord
from burnqed.writelock import hold, lock_file_for, refuse_inside_locked_run

__all__ = ["TrajectoryWriteError", "TrajectoryWriter", "records_to_table", "written_statements"]

log = logging.getLogger(__name__)

_ROW = pa.struct(list(SCHEMA))


class TrajectoryWriteError(OSError):
    """The trajectory file cannot be written (closed writer) or read back (unreadable output)."""


def records_to_table(records: Sequence[TrajectoryRecord]) -> pa.Table:
    """Columnar conversion of records to a table of SCHEMA."""
    # the instance dicts go to Arrow as one struct array: the per-field work happens in C
    dicts = [r.__dict__ for r in records]
    table = pa.Table.from_struct_array(pa.array(dicts, type=_ROW))
    return table if table.schema.equals(SCHEMA) else table.cast(SCHEMA)


class TrajectoryWriter:
    """Buffers records and writes them as row groups of a temp file renamed over ``path`` on ``finalize``."""

    def __init__(self, path: str | Path, *, row_group_rows: int = 65536, compression: str = "zstd") -> None:
        self.path = Path(path)
        self.row_group_rows = row_group_rows
        self.compression = compression
        self.rows_written = 0
        self._pending: list[TrajectoryRecord] = []
        self._tables: list[pa.Table] = []
        self._buffered_rows = 0
        self._closed = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        refuse_inside_locked_run(self.path)
        self._lock = ExitStack()
        self._lock.enter_context(hold(lock_file_for(self.path), "a trajectory writer", what=str(self.path), reentrant=True))
        self._tmp = self.path.with_name(f".{self.path.name}.tmp")
        self._out = pq.ParquetWriter(self._tmp, SCHEMA, compression=compression)

    def write(self, records: Sequence[TrajectoryRecord]) -> None:
        """Append records (one theorem's, or any group); a full row group is written at once."""
        if self._closed:
            raise TrajectoryWriteError(f"writer for {self.path} is closed")
        # records stay Python objects until a row group is due: one conversion per group
        self._pending.extend(records)
        self._buffered_rows += len(records)
        self._maybe_flush()

    def write_table(self, table: pa.Table) -> None:
        """Append a table of SCHEMA rows."""
        if self._closed:
            raise TrajectoryWriteError(f"writer for {self.path} is closed")
        if self._pending:
            self._tables.append(records_to_table(self._pending))
            self._pending = []
        self._tables.append(table if table.schema.equals(SCHEMA) else table.cast(SCHEMA))
        self._buffered_rows += table.num_rows
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if self._buffered_rows >= self.row_group_rows:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows to the temp file (the output is replaced only by ``finalize``)."""
        if self._pending:
            self._tables.append(records_to_table(self._pending))
            self._pending = []
        if not self._tables:
            return
        table = pa.concat_tables(self._tables)
        self._tables = []
        self._buffered_rows = 0
        self._out.write_table(table, row_group_size=self.row_group_rows)
        self.rows_written += table.num_rows

    def finalize(self) -> Path:
        """Flush, close the temp file (fsynced) and rename it over ``path``; once."""
        if self._closed:
            return self.path
        try:
            self.flush()
            self._closed = True
            self._out.close()
            with self._tmp.open("rb") as fh:
                os.fsync(fh.fileno())
            os.replace(self._tmp, self.path)
            log.info("trajectories written: %s (%d rows)", self.path, self.rows_written)
            return self.path
        finally:
            self._closed = True
            self._lock.close()

    def discard(self) -> None:
        """Drop what was written: the temp file goes, the previous output stays."""
        if not self._closed:
            self._closed = True
            self._out.close()
            self._tmp.unlink(missing_ok=True)
            self._lock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.finalize()
        else:
            self.discard()


def written_statements(path: str | Path) -> dict[str, set[str]]:
    """Theorem name → the statement hashes its rows in ``path`` carry (read only; empty when
    there is no file): a resume matches theorems by statement, not by name alone."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        table = pq.read_table(path, columns=["theorem", "statement_sha"])
    except (OSError, pa.ArrowInvalid) as exc:
        raise TrajectoryWriteError(
            f"cannot resume: {path} is not a readable Parquet file (corrupt or truncated); "
            "move it away (its theorems are searched again), or start over (burnqed search: --force)"
        ) from exc
    found: dict[str, set[str]] = {}
    pairs = table.group_by(["theorem", "statement_sha"]).aggregate([])
    for name, sha in zip(pairs.column("theorem").to_pylist(), pairs.column("statement_sha").to_pylist(), strict=True):
        found.setdefault(name, set()).add(sha)
    return found
