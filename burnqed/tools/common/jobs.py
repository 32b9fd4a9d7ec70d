"""Background jobs: long work (searches) that outlives the tool call that launched it.

A job runs as a task in the server's task group, so it survives the client's disconnect
and is bounded by the server's life. Each job is a JSON record under the jobs directory,
rewritten atomically (temp file + rename) at every change: ``<id>.json`` holds status,
progress and the result summary, ``<id>.result.json`` the full result. A record names its
owner: the server process that runs it (pid and process start time) and the client that
launched it (over HTTP the name of its bearer token). A job that was running when its server
stopped is marked ``interrupted`` by the server on its way out, and otherwise — a server
killed outright — the next time a manager opens the directory, but only when its owner
process is gone: a second server on the same directory leaves a live server's jobs alone.
Status is an enum, never free text.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import anyio
from anyio.abc import TaskGroup
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.files import write_json_atomic
from burnqed.tools.common.errors import InvalidInput, JobNotFinished, TooManyJobs, UnknownJob
from burnqed.writelock import process_token

__all__ = [
    "JobContext",
    "JobManager",
    "JobOutcome",
    "JobProgress",
    "JobRecord",
    "JobStatus",
    "JobWork",
    "ProgressFn",
    "owner_alive",
    "write_json_atomic",
]

log = logging.getLogger(__name__)

_JOB_ID = re.compile(r"^j-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$")


class JobStatus(StrEnum):
    """Life-cycle state of a job."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"

    @property
    def finished(self) -> bool:
        """True once the job will not change any more."""
        return self is not JobStatus.RUNNING


class JobProgress(BaseModel):
    """How far a job has come: units done of total (theorems for a search)."""

    model_config = ConfigDict(frozen=True)

    done: int = Field(default=0, ge=0)
    total: int = Field(default=0, ge=0)
    succeeded: int = Field(default=0, ge=0, description="units that succeeded (theorems proved)")
    message: str = ""


class JobRecord(BaseModel):
    """The on-disk record of one job."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    kind: str
    status: JobStatus
    created: datetime
    started: datetime | None = None
    finished: datetime | None = None
    spec: dict[str, Any] = Field(default_factory=dict)
    progress: JobProgress = Field(default_factory=JobProgress)
    summary: dict[str, Any] | None = None
    error: str | None = None
    has_full_result: bool = False
    owner_pid: int | None = Field(default=None, description="the server process running the job")
    owner_started: str | None = Field(default=None, description="that process's start time (/proc), so a reused pid is not it")
    client: str | None = Field(default=None, description="who launched it (HTTP: its token's name; 'stdio')")


class JobOutcome(BaseModel):
    """What a job's work returns: a short summary and the full result."""

    model_config = ConfigDict(frozen=True)

    summary: dict[str, Any]
    full: dict[str, Any] | None = None


ProgressFn = Callable[[JobProgress], None]


@dataclass(frozen=True)
class JobContext:
    """What a job's work gets: its id, where its files go, and how to report progress."""

    job_id: str
    jobs_dir: Path
    report: ProgressFn

    def path(self, suffix: str) -> Path:
        """A file of this job in the jobs directory, e.g. ``path(".parquet")``."""
        return self.jobs_dir / f"{self.job_id}{suffix}"


JobWork = Callable[[JobContext], Awaitable[JobOutcome]]


@dataclass
class _LiveJob:
    record: JobRecord
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    changed: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    cancel_requested: bool = False


def owner_alive(record: JobRecord) -> bool:
    """Whether the process that ran ``record`` still runs (a record without an owner: no)."""
    if record.owner_pid is None:
        return False
    current = process_token(record.owner_pid)
    return current is not None and (record.owner_started is None or current == record.owner_started)


class JobManager:
    """Launch, observe, cancel and list jobs; use as ``async with JobManager(dir) as jobs``."""

    def __init__(self, jobs_dir: str | Path, max_running: int = 2) -> None:
        self.jobs_dir = Path(jobs_dir)
        self.max_running = max_running
        self._live: dict[str, _LiveJob] = {}
        self._tg: TaskGroup | None = None
        self._pid = os.getpid()
        self._started = process_token(self._pid)

    async def __aenter__(self) -> Self:
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.mark_interrupted()
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        if self._tg is None:
            return None
        # the server is going away: running jobs end as interrupted, not cancelled
        for live in self._live.values():
            live.scope.cancel()
        try:
            return await self._tg.__aexit__(exc_type, exc, tb)
        finally:
            self._tg = None
            # a job whose work did not get to write its end (a cluster campaign torn down with
            # the server, a cancelled shutdown) is marked here, before the process is gone
            for live in self._live.values():
                if not live.record.status.finished:
                    self._interrupt(live.record)

    # ------------------------------------------------------------------ records

    def _path(self, job_id: str) -> Path:
        if not _JOB_ID.match(job_id):
            raise UnknownJob(f"unknown job {job_id!r}")
        return self.jobs_dir / f"{job_id}.json"

    def _result_path(self, job_id: str) -> Path:
        return self.jobs_dir / f"{job_id}.result.json"

    def _save(self, record: JobRecord) -> None:
        write_json_atomic(self._path(record.job_id), record.model_dump(mode="json"), sort_keys=True)

    def _load(self, path: Path) -> JobRecord | None:
        try:
            return JobRecord.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            log.warning("unreadable job record %s skipped", path)
            return None

    def mark_interrupted(self) -> list[str]:
        """Mark jobs left running by a previous server as interrupted; returns their ids."""
        ids: list[str] = []
        for path in sorted(self.jobs_dir.glob("j-*.json")):
            if path.name.endswith(".result.json"):
                continue
            record = self._load(path)
            if record is None or record.job_id in self._live or record.status.finished:
                continue
            if owner_alive(record):  # another server runs it right now
                continue
            self._interrupt(record)
            ids.append(record.job_id)
        return ids

    def _interrupt(self, record: JobRecord) -> None:
        try:
            self._save(
                record.model_copy(
                    update={
                        "status": JobStatus.INTERRUPTED,
                        "finished": datetime.now(UTC),
                        "error": "the server stopped while the job was running",
                    }
                )
            )
        except OSError:
            log.warning("cannot mark job %s interrupted", record.job_id, exc_info=True)

    # ------------------------------------------------------------------ operations

    @property
    def running(self) -> int:
        """Number of jobs running in this manager."""
        return sum(1 for live in self._live.values() if not live.record.status.finished)

    def launch(
        self, kind: str, spec: dict[str, Any], work: JobWork, total: int = 0, client: str | None = None
    ) -> JobRecord:
        """Start ``work`` as a background job for ``client``; returns its first record."""
        if self._tg is None:
            raise InvalidInput("the job manager is not running")
        if self.running >= self.max_running:
            raise TooManyJobs(f"{self.running} jobs are running (the cap is {self.max_running}); wait or cancel one")
        now = datetime.now(UTC)
        job_id = f"j-{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"
        record = JobRecord(
            job_id=job_id,
            kind=kind,
            status=JobStatus.RUNNING,
            created=now,
            started=now,
            spec=spec,
            progress=JobProgress(total=total),
            owner_pid=self._pid,
            owner_started=self._started,
            client=client,
        )
        self._save(record)
        live = _LiveJob(record=record)
        self._live[job_id] = live
        self._tg.start_soon(self._run, live, work, name=f"job {job_id}")
        return record

    def _update(self, live: _LiveJob, **changes: Any) -> None:
        live.record = live.record.model_copy(update=changes)
        self._save(live.record)
        previous, live.changed = live.changed, anyio.Event()
        previous.set()

    async def _run(self, live: _LiveJob, work: JobWork) -> None:
        def report(progress: JobProgress) -> None:
            if not live.record.status.finished:
                self._update(live, progress=progress)

        outcome: JobOutcome | None = None
        try:
            with live.scope:
                outcome = await work(JobContext(live.record.job_id, self.jobs_dir, report))
                if live.scope.cancel_called:
                    outcome = None
            if outcome is None:
                status = JobStatus.CANCELLED if live.cancel_requested else JobStatus.INTERRUPTED
                self._update(live, status=status, finished=datetime.now(UTC))
            else:
                if outcome.full is not None:
                    write_json_atomic(self._result_path(live.record.job_id), outcome.full, sort_keys=True)
                self._update(
                    live,
                    status=JobStatus.SUCCEEDED,
                    finished=datetime.now(UTC),
                    summary=outcome.summary,
                    has_full_result=outcome.full is not None,
                )
        except Exception as exc:  # a failed job is data: its record says why
            log.exception("job %s failed", live.record.job_id)
            self._update(
                live, status=JobStatus.FAILED, finished=datetime.now(UTC), error=f"{type(exc).__name__}: {exc}"
            )
        finally:
            live.done.set()

    def get(self, job_id: str) -> JobRecord:
        """The job's current record (live or on disk), else UnknownJob."""
        live = self._live.get(job_id)
        if live is not None:
            return live.record
        path = self._path(job_id)
        record = self._load(path) if path.is_file() else None
        if record is None:
            raise UnknownJob(f"unknown job {job_id!r}")
        return record

    def full_result(self, job_id: str) -> dict[str, Any]:
        """The job's full result, else JobNotFinished (or UnknownJob)."""
        record = self.get(job_id)
        if not record.status.finished:
            raise JobNotFinished(f"job {job_id} is still {record.status.value}; ask job_status for progress")
        if not record.has_full_result:
            raise JobNotFinished(f"job {job_id} ended {record.status.value} without a result")
        try:
            return json.loads(self._result_path(job_id).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise JobNotFinished(f"job {job_id}: its result file is missing or unreadable") from exc

    async def wait(self, job_id: str, timeout_s: float) -> JobRecord:
        """Wait up to ``timeout_s`` for the job to change (progress or finish); returns its record."""
        live = self._live.get(job_id)
        if live is None or live.record.status.finished:
            return self.get(job_id)
        with anyio.move_on_after(timeout_s):
            await live.changed.wait()
        return live.record

    async def cancel(self, job_id: str, timeout_s: float = 5.0) -> JobRecord:
        """Cancel a running job and wait (bounded) until it has stopped; returns its record."""
        live = self._live.get(job_id)
        if live is None:
            return self.get(job_id)  # finished long ago (or unknown): nothing to cancel
        if not live.record.status.finished:
            live.cancel_requested = True
            live.scope.cancel()
            with anyio.move_on_after(timeout_s):
                await live.done.wait()
        return live.record

    def list(self, limit: int = 100) -> list[JobRecord]:
        """Jobs on disk and live, newest first."""
        records: dict[str, JobRecord] = {}
        for path in self.jobs_dir.glob("j-*.json"):
            if path.name.endswith(".result.json"):
                continue
            record = self._load(path)
            if record is not None:
                records[record.job_id] = record
        for job_id, live in self._live.items():
            records[job_id] = live.record
        return sorted(records.values(), key=lambda r: (r.created, r.job_id), reverse=True)[:limit]
