"""Per-statement trajectory shards with a manifest: nothing lost, nothing counted twice.

Layout for an output ``OUT.parquet``:

- ``OUT.parquet.shards/<key>.parquet`` — one statement's rows, written to a temp name,
  fsynced and renamed (whole or absent); ``<key>`` is a hash of the theorem's name, so a
  statement searched again after a crash overwrites its own orphan.
- ``OUT.parquet.shards/manifest.jsonl`` — one fsynced line per committed statement (its
  result without records, the shard, the actor and node). A statement is done exactly when
  its line is there; the line is appended only after the shard's rename, and a second
  commit of a statement already in the manifest is refused, so a re-queued statement can
  never be written twice. A torn last line (the driver killed mid-append) is skipped.
- ``finalize()`` merges the previous ``OUT.parquet`` (when resuming) and the manifest's
  shards, first copy of a theorem wins, into a temp file renamed over ``OUT.parquet``, then
  removes the shard directory: the same file a local ``burnqed search`` writes.

``directory`` puts the shards and manifest elsewhere (an iteration keeps them in its run
directory, ``RUN/cluster/iter_N_search/``). Without an output (``output=None``, an
evaluation that keeps no trajectories) only the manifest is written: it is what a resumed
run reads its earlier results from, and ``finalize()`` just removes the directory.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.cluster.errors import ManifestError
from burnqed.files import append_line
from burnqed.search.results import SearchResult
from burnqed.trajectory.schema import SCHEMA
from burnqed.trajectory.writer import written_theorems

__all__ = ["MANIFEST_NAME", "ManifestEntry", "ShardStore", "shards_dir"]

log = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.jsonl"
_KEY_CHARS = 20  # hex digits of the name hash in a shard's file name


def shards_dir(output: str | Path) -> Path:
    """The shard directory beside ``output``."""
    output = Path(output)
    return output.with_name(output.name + ".shards")


class ManifestEntry(BaseModel):
    """One committed statement."""

    model_config = ConfigDict(frozen=True)

    theorem: str
    statement_sha: str
    shard: str | None = Field(description="the shard's file name; None when the search explored no state")
    rows: int
    result: SearchResult = Field(description="the search result without its records (they are in the shard)")
    actor: int | None = None
    node_id: str | None = None
    committed: datetime = Field(default_factory=lambda: datetime.now(UTC))


class ShardStore:
    """The shards and manifest of one output (``directory``: default beside it); ``resume=False``
    clears what an earlier run left; ``output=None`` keeps the manifest only (no shards)."""

    def __init__(
        self,
        output: str | Path | None,
        *,
        resume: bool = False,
        compression: str = "zstd",
        directory: str | Path | None = None,
    ) -> None:
        if output is None and directory is None:
            raise ValueError("a ShardStore needs an output or a directory")
        self.output = Path(output) if output is not None else None
        self.dir = Path(directory) if directory is not None else shards_dir(Path(output))  # type: ignore[arg-type]
        self.manifest = self.dir / MANIFEST_NAME
        self.compression = compression
        self.resume = resume
        if not resume:
            shutil.rmtree(self.dir, ignore_errors=True)
            if self.output is not None:
                self.output.unlink(missing_ok=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._entries: dict[str, ManifestEntry] = self._load()
        out = self.output
        self._finalised: set[str] = written_theorems(out) if resume and out is not None and out.is_file() else set()
        self.duplicates_refused = 0
        self._finalized = False

    def _load(self) -> dict[str, ManifestEntry]:
        if not self.manifest.is_file():
            return {}
        try:
            lines = self.manifest.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ManifestError(f"cannot read {self.manifest}: {exc}") from exc
        entries: dict[str, ManifestEntry] = {}
        for line in lines:
            try:
                entry = ManifestEntry.model_validate_json(line)
            except ValidationError:
                continue  # a torn line: that statement is searched again
            if entry.shard is not None and not (self.dir / entry.shard).is_file():
                log.warning("manifest names a missing shard %s: %s is searched again", entry.shard, entry.theorem)
                continue
            entries.setdefault(entry.theorem, entry)
        return entries

    def done_theorems(self) -> set[str]:
        """Theorems committed (manifest) or already in the finalised output."""
        return set(self._entries) | self._finalised

    def results(self) -> list[SearchResult]:
        """The committed results (without records), in commit order."""
        return [entry.result for entry in self._entries.values()]

    def commit(
        self, result: SearchResult, table: Any, *, actor: int | None = None, node_id: str | None = None
    ) -> bool:
        """Write one statement's shard and manifest line; False (and nothing written) if it is done already."""
        name = result.theorem.name
        if name in self._entries or name in self._finalised:
            self.duplicates_refused += 1
            log.warning("statement %s was already committed; the second result is dropped", name)
            return False
        shard: str | None = None
        rows = 0
        if self.output is not None and table is not None and table.num_rows:
            shard = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_KEY_CHARS] + ".parquet"
            rows = table.num_rows
            self._write_shard(shard, table if table.schema.equals(SCHEMA) else table.cast(SCHEMA))
        entry = ManifestEntry(
            theorem=name,
            statement_sha=result.theorem.sha,
            shard=shard,
            rows=rows,
            result=result.model_copy(update={"records": []}),
            actor=actor,
            node_id=node_id,
        )
        append_line(self.manifest, entry.model_dump_json())
        self._entries[name] = entry
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
        """Merge the previous output and the committed shards into ``output`` (temp + rename), then
        remove the shard directory; once. Without an output only the directory is removed."""
        if self._finalized:
            return self.output
        self._finalized = True
        if self.output is None:
            shutil.rmtree(self.dir, ignore_errors=True)
            return None
        sources: list[Path] = [self.output] if self.resume and self.output.is_file() else []
        sources += [self.dir / e.shard for e in self._entries.values() if e.shard is not None]
        self.output.parent.mkdir(parents=True, exist_ok=True)  # a store kept elsewhere (directory=)
        tmp = self.output.with_name(f".{self.output.name}.tmp")
        seen: set[str] = set()
        with pq.ParquetWriter(tmp, SCHEMA, compression=self.compression) as out:
            for source in sources:
                table = pq.read_table(source).cast(SCHEMA)
                if seen:
                    table = table.filter(pc.invert(pc.is_in(table.column("theorem"), pa.array(sorted(seen)))))
                if table.num_rows:
                    out.write_table(table)
                    seen.update(pc.unique(table.column("theorem")).to_pylist())
        os.replace(tmp, self.output)
        shutil.rmtree(self.dir, ignore_errors=True)
        self._finalised |= set(self._entries)
        return self.output
