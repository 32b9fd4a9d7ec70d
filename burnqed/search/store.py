"""StatementStore: every finished statement committed once, so a killed run resumes where it stopped.

The one resume store of a run over a set of statements, local or on Ray (the local search
``search_theorems`` and the cluster ``Campaign`` both commit into it). A directory holds:

- ``manifest.jsonl`` — one fsynced line per finished statement: its SearchResult without
  records, keyed by name and statement hash (and the actor and node that searched it). A
  statement is done exactly when its line is there. A torn last line (killed mid-append)
  and an infrastructure outcome (``lost``, ``error``) are not done: a resumed run searches
  that statement again. A second commit of a done statement is refused, so a re-queued
  statement is never counted twice.
- ``<key>.parquet`` — with a trajectory output, the statement's rows, written to a temp
  name, fsynced and renamed *before* its manifest line (whole or absent); ``<key>`` hashes
  the name, so a statement searched again after a crash overwrites its own orphan.

``finalize()`` merges the previous output (when resuming) and the shards, first copy of a
theorem wins, into a temp file renamed over the output, then removes the directory. The
default directory is ``OUT.shards/`` beside the output (``store_dir``); an evaluation keeps
its store beside its report (``R.json.shards/``) and finalises it after the report.

While open, a store with an output holds the output's lock (``OUT.lock``): a second writer
of the same output, in another process, is refused (``LockHeld``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.data.theorems import Theorem
from burnqed.files import append_line
from burnqed.search.results import SearchResult
from burnqed.trajectory.schema import SCHEMA
from burnqed.trajectory.writer import TrajectoryWriteError, records_to_table, written_statements
from burnqed.writelock import hold, lock_file_for, refuse_inside_locked_run

__all__ = ["MANIFEST_NAME", "ManifestEntry", "StatementStore", "store_dir"]

log = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.jsonl"
_KEY_CHARS = 20  # hex digits of the name hash in a shard's file name


def store_dir(output: str | Path) -> Path:
    """The store directory beside ``output`` (``OUT.shards/``)."""
    output = Path(output)
    return output.with_name(output.name + ".shards")


class ManifestEntry(BaseModel):
    """One committed statement."""

    model_config = ConfigDict(frozen=True)

    theorem: str
    statement_sha: str
    shard: str | None = Field(description="the shard's file name; None without trajectories or explored states")
    rows: int
    result: SearchResult = Field(description="the search result without its records (they are in the shard)")
    actor: int | None = None
    node_id: str | None = None
    committed: datetime = Field(default_factory=lambda: datetime.now(UTC))


class StatementStore:
    """The manifest (and shards, with ``output``) of one run in ``directory``.

    ``resume=False`` clears what an earlier run left there (and the output); ``output=None``
    keeps results only (an evaluation without trajectories).
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        output: str | Path | None = None,
        resume: bool = False,
        row_group_rows: int = 65536,
        compression: str = "zstd",
    ) -> None:
        self.dir = Path(directory)
        self.output = Path(output) if output is not None else None
        self.manifest = self.dir / MANIFEST_NAME
        self.resume = resume
        self.row_group_rows = row_group_rows
        self.compression = compression
        self.duplicates_refused = 0
        self._finalized = False
        self._lock = ExitStack()
        if self.output is not None:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            refuse_inside_locked_run(self.output)
            self._lock.enter_context(
                hold(lock_file_for(self.output), "a trajectory writer", what=str(self.output), reentrant=True)
            )
        try:
            # statements already in the finalised output (name → statement hashes), read before
            # anything is cleared: a corrupt file stops the run here, untouched
            out = self.output
            self._finalised = written_statements(out) if resume and out is not None and out.is_file() else {}
            if not resume:
                shutil.rmtree(self.dir, ignore_errors=True)
                if out is not None:
                    out.unlink(missing_ok=True)
            self.dir.mkdir(parents=True, exist_ok=True)
            self._entries: dict[str, ManifestEntry] = self._load()
        except BaseException:
            self._lock.close()
            raise

    def _load(self) -> dict[str, ManifestEntry]:
        if not self.manifest.is_file():
            return {}
        try:
            lines = self.manifest.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise TrajectoryWriteError(f"cannot resume: {self.manifest} cannot be read: {exc}") from exc
        entries: dict[str, ManifestEntry] = {}
        for line in lines:
            try:
                entry = ManifestEntry.model_validate_json(line)
            except ValidationError:
                continue  # a torn line: that statement is searched again
            if entry.result.infrastructure:
                continue  # a lost worker or an error says nothing about the statement: searched again
            if entry.shard is not None and not _readable(self.dir / entry.shard):
                log.warning("manifest names a missing or unreadable shard %s: %s is searched again", entry.shard, entry.theorem)
                continue
            known = entries.get(entry.theorem)
            if known is None or known.statement_sha != entry.statement_sha:
                entries[entry.theorem] = entry  # a changed statement's later commit supersedes
        return entries

    def done(self, theorems: Sequence[Theorem]) -> set[str]:
        """The names of ``theorems`` already committed (same statement) or in the finalised output."""
        found: set[str] = set()
        for t in theorems:
            entry = self._entries.get(t.name)
            if (entry is not None and entry.statement_sha == t.sha) or t.sha in self._finalised.get(t.name, ()):
                found.add(t.name)
        return found

    def results(self, theorems: Sequence[Theorem]) -> list[SearchResult]:
        """The committed results (without records) of ``theorems`` (same statement), in their order."""
        out: list[SearchResult] = []
        for t in theorems:
            entry = self._entries.get(t.name)
            if entry is not None and entry.statement_sha == t.sha:
                out.append(entry.result)
        return out

    def commit(
        self,
        result: SearchResult,
        table: pa.Table | None = None,
        *,
        actor: int | None = None,
        node_id: str | None = None,
    ) -> bool:
        """Write one statement's shard, then its manifest line; False (nothing written) if it is done already.

        ``table``: the statement's rows as a table (a Lean actor sends them so); without it
        the result's own records are written. An infrastructure outcome writes no rows: a
        lost worker's root row is no evidence about the theorem.
        """
        theorem = result.theorem
        entry = self._entries.get(theorem.name)
        done = entry is not None and entry.statement_sha == theorem.sha
        if done or theorem.sha in self._finalised.get(theorem.name, ()):
            self.duplicates_refused += 1
            log.warning("statement %s was already committed; the second result is dropped", theorem.name)
            return False
        shard: str | None = None
        rows = 0
        if self.output is not None and not result.infrastructure:
            if table is None and result.records:
                table = records_to_table(result.records)
            if table is not None and table.num_rows:
                shard = hashlib.sha256(theorem.name.encode("utf-8")).hexdigest()[:_KEY_CHARS] + ".parquet"
                rows = table.num_rows
                self._write_shard(shard, table if table.schema.equals(SCHEMA) else table.cast(SCHEMA))
        entry = ManifestEntry(
            theorem=theorem.name,
            statement_sha=theorem.sha,
            shard=shard,
            rows=rows,
            result=result.model_copy(update={"records": []}),
            actor=actor,
            node_id=node_id,
        )
        append_line(self.manifest, entry.model_dump_json())
        self._entries[theorem.name] = entry
        return True

    def _write_shard(self, shard: str, table: pa.Table) -> None:
        final = self.dir / shard
        tmp = self.dir / f".{shard}.tmp"
        with tmp.open("wb") as fh:
            pq.write_table(table, fh, compression=self.compression)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)

    def finalize(self) -> Path | None:
        """Merge the previous output and the committed shards into the output (temp + rename), remove
        the directory and release the output; once. Without an output only the directory goes."""
        if self._finalized:
            return self.output
        self._finalized = True
        try:
            if self.output is not None:
                self._merge(self.output)
            shutil.rmtree(self.dir, ignore_errors=True)
        finally:
            self._lock.close()
        return self.output

    def close(self) -> None:
        """Release the output without merging: the directory stays for a resume."""
        self._lock.close()

    def _merge(self, output: Path) -> None:
        sources: list[Path] = [output] if self.resume and output.is_file() else []
        sources += [self.dir / e.shard for e in self._entries.values() if e.shard is not None]
        tmp = output.with_name(f".{output.name}.tmp")
        seen: set[str] = set()
        total = 0
        pending: list[pa.Table] = []  # small shards gathered into row groups of row_group_rows
        with pq.ParquetWriter(tmp, SCHEMA, compression=self.compression) as out:
            for source in sources:
                try:
                    pf = pq.ParquetFile(source)
                    groups = [pf.read_row_group(i).cast(SCHEMA) for i in range(pf.num_row_groups)]
                except (OSError, pa.ArrowException) as exc:
                    tmp.unlink(missing_ok=True)
                    raise TrajectoryWriteError(_damaged(source, output, exc)) from exc
                new: set[str] = set()
                for group in groups:
                    if seen:
                        group = group.filter(pc.invert(pc.is_in(group.column("theorem"), pa.array(sorted(seen)))))
                    if group.num_rows:
                        pending.append(group)
                        total += group.num_rows
                        new.update(pc.unique(group.column("theorem")).to_pylist())
                    if sum(t.num_rows for t in pending) >= self.row_group_rows:
                        out.write_table(pa.concat_tables(pending), row_group_size=self.row_group_rows)
                        pending = []
                seen |= new
            if pending:
                out.write_table(pa.concat_tables(pending), row_group_size=self.row_group_rows)
        os.replace(tmp, output)
        for name, entry in self._entries.items():
            self._finalised.setdefault(name, set()).add(entry.statement_sha)
        log.info("trajectories finalised: %s (%d rows)", output, total)


def _damaged(source: Path, output: Path, exc: BaseException) -> str:
    """One line naming a file a merge cannot read, and the way out that keeps the other work."""
    why = " ".join(str(exc).split())[:200]
    if source == output:
        return (f"{source} is damaged ({why}); nothing was changed: move it aside and --resume searches its "
                f"statements again (the store's committed work is kept), or --force starts over")
    return (f"{source} is damaged ({why}); nothing was changed: remove it and --resume searches its statement "
            "again (the other statements are kept)")


def _readable(shard: Path) -> bool:
    """Whether a shard is there and reads whole (a damaged one is searched again, not merged):
    its pages are read, not only its footer, since garbled pages under an intact footer
    would otherwise fail every merge."""
    try:
        pq.read_table(shard)
    except (OSError, pa.ArrowException):
        return False
    return True
