"""Jobs run in the background, are recorded on disk atomically, and survive a restart as 'interrupted'."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from burnqed.tools.common.errors import JobNotFinished, TooManyJobs, UnknownJob
from burnqed.tools.common.jobs import (
    JobContext,
    JobManager,
    JobOutcome,
    JobProgress,
    JobStatus,
)


def counting_job(n: int, gate: anyio.Event | None = None):
    async def work(job: JobContext) -> JobOutcome:
        for i in range(n):
            if gate is not None:
                await gate.wait()
            job.report(JobProgress(done=i + 1, total=n, succeeded=i + 1))
            await anyio.lowlevel.checkpoint()
        return JobOutcome(summary={"proved": n}, full={"items": list(range(n))})

    return work


@pytest.mark.anyio
async def test_job_runs_to_success_with_progress_summary_and_full_result(tmp_path: Path) -> None:
    with anyio.fail_after(10):
        async with JobManager(tmp_path) as jobs:
            rec = jobs.launch("search", {"set": "core"}, counting_job(3), total=3)
            assert rec.status is JobStatus.RUNNING
            while not jobs.get(rec.job_id).status.finished:
                await jobs.wait(rec.job_id, 1.0)
            done = jobs.get(rec.job_id)
    assert done.status is JobStatus.SUCCEEDED
    assert done.progress.done == 3 and done.summary == {"proved": 3}
    assert jobs.full_result(rec.job_id) == {"items": [0, 1, 2]}
    on_disk = json.loads((tmp_path / f"{rec.job_id}.json").read_text(encoding="utf-8"))
    assert on_disk["status"] == "succeeded"
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.anyio
async def test_cancel_stops_a_running_job(tmp_path: Path) -> None:
    gate = anyio.Event()
    with anyio.fail_after(10):
        async with JobManager(tmp_path) as jobs:
            rec = jobs.launch("search", {}, counting_job(5, gate))
            with pytest.raises(JobNotFinished):
                jobs.full_result(rec.job_id)
            cancelled = await jobs.cancel(rec.job_id)
    assert cancelled.status is JobStatus.CANCELLED
    with pytest.raises(JobNotFinished):
        jobs.full_result(rec.job_id)


@pytest.mark.anyio
async def test_a_failing_job_records_its_error(tmp_path: Path) -> None:
    async def boom(job: JobContext) -> JobOutcome:
        raise ValueError("no such theorem set")

    with anyio.fail_after(10):
        async with JobManager(tmp_path) as jobs:
            rec = jobs.launch("search", {}, boom)
            await jobs.wait(rec.job_id, 5.0)
    failed = jobs.get(rec.job_id)
    assert failed.status is JobStatus.FAILED and "no such theorem set" in (failed.error or "")


@pytest.mark.anyio
async def test_jobs_running_at_shutdown_are_interrupted_and_listed_after_restart(tmp_path: Path) -> None:
    gate = anyio.Event()
    with anyio.fail_after(10):
        async with JobManager(tmp_path) as jobs:
            rec = jobs.launch("search", {"n": 1}, counting_job(3, gate))
        async with JobManager(tmp_path) as restarted:
            listed = restarted.list()
    assert [r.job_id for r in listed] == [rec.job_id]
    assert listed[0].status is JobStatus.INTERRUPTED


def test_a_record_left_running_by_a_dead_server_is_marked_interrupted(tmp_path: Path) -> None:
    record = {
        "job_id": "j-20260101T000000-abcdef",
        "kind": "search",
        "status": "running",
        "created": "2026-01-01T00:00:00Z",
    }
    (tmp_path / f"{record['job_id']}.json").write_text(json.dumps(record), encoding="utf-8")
    assert JobManager(tmp_path).mark_interrupted() == [record["job_id"]]
    assert JobManager(tmp_path).get(record["job_id"]).status is JobStatus.INTERRUPTED


@pytest.mark.anyio
async def test_unknown_jobs_and_the_running_cap(tmp_path: Path) -> None:
    gate = anyio.Event()
    with anyio.fail_after(10):
        async with JobManager(tmp_path, max_running=1) as jobs:
            with pytest.raises(UnknownJob):
                jobs.get("j-20260101T000000-000000")
            with pytest.raises(UnknownJob):
                jobs.get("../../etc/passwd")
            rec = jobs.launch("search", {}, counting_job(1, gate))
            with pytest.raises(TooManyJobs):
                jobs.launch("search", {}, counting_job(1, gate))
            gate.set()
            await jobs.wait(rec.job_id, 5.0)
            while not jobs.get(rec.job_id).status.finished:
                await jobs.wait(rec.job_id, 1.0)
            jobs.launch("search", {}, counting_job(1))


def test_a_record_of_a_live_owner_is_left_running_and_a_reused_pid_is_not_its_owner(tmp_path: Path) -> None:
    import os

    from burnqed.writelock import process_token

    def write(job_id: str, **owner: object) -> None:
        record = {"job_id": job_id, "kind": "search", "status": "running", "created": "2026-01-01T00:00:00Z", **owner}
        (tmp_path / f"{job_id}.json").write_text(json.dumps(record), encoding="utf-8")

    live, reused = "j-20260101T000000-aaaaaa", "j-20260101T000000-bbbbbb"
    write(live, owner_pid=os.getpid(), owner_started=process_token(os.getpid()))
    write(reused, owner_pid=os.getpid(), owner_started="1")  # same pid, another process's start time
    assert JobManager(tmp_path).mark_interrupted() == [reused]
    assert JobManager(tmp_path).get(live).status is JobStatus.RUNNING
