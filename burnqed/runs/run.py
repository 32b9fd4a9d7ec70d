"""``run_statements``: the one call that runs a set of statements, locally or on Ray.

Where the work runs is decided here and nowhere else: a ``Local`` place searches on the
caller's pool with ``search_theorems``, a ``ClusterSpec`` starts a ``Campaign`` of Ray Lean
actors. Both commit every finished statement to the same ``StatementStore`` before handing it
to ``on_result``, so a run killed at any moment loses no finished statement and a rerun
(``resume``) searches only what the store lacks, wherever the earlier attempt ran. The store
is opened once the compute is up (an unusable model or an unreachable cluster writes
nothing) and finalised however the run ends (unless the spec leaves that to the caller).
"""

from __future__ import annotations

from burnqed.cluster.spec import ClusterSpec
from burnqed.runs.spec import Local, ResultCallback, RunOutcome, RunStart, StartCallback, StatementRun
from burnqed.search.results import SearchResult
from burnqed.search.runner import search_theorems
from burnqed.search.store import StatementStore

__all__ = ["run_statements"]


def _open_store(run: StatementRun) -> StatementStore:
    return StatementStore(
        run.store, output=run.trajectories, resume=run.resume, row_group_rows=run.search.row_group_rows
    )


def _end(run: StatementRun, store: StatementStore, failed: bool) -> None:
    """Finalise (synchronous: a cancellation cannot cut the merge short), or, when the caller
    finalises, release the output on a failure (the store stays for a resume)."""
    if run.finalize:
        store.finalize()
    elif failed:
        store.close()


async def run_statements(
    run: StatementRun, on_result: ResultCallback | None = None, *, on_start: StartCallback | None = None
) -> RunOutcome:
    """Search every statement of ``run`` its store lacks; each result is committed, then given to ``on_result``."""
    if isinstance(run.where, ClusterSpec):
        return await _on_cluster(run, run.where, on_result, on_start)
    return await _local(run, run.where, on_result, on_start)


async def _local(
    run: StatementRun, place: Local, on_result: ResultCallback | None, on_start: StartCallback | None
) -> RunOutcome:
    comps = place.components
    searched: list[SearchResult] = []

    def finished(result: SearchResult) -> None:
        searched.append(result)
        if on_result is not None:
            on_result(result)

    store = _open_store(run)
    failed = True
    try:
        skipped = len(store.done(run.theorems))
        if on_start is not None:
            on_start(RunStart(total=len(run.theorems), backend=place.pool.backend, done=skipped))
        await search_theorems(
            place.pool, comps.generator, comps.scorer, run.theorems, run.search,
            store=store, iteration=run.iteration, on_result=finished,
        )  # fmt: skip
        failed = False
    finally:
        _end(run, store, failed)
    # the store keeps results without their records; this run's own carry them, and the
    # held-out reports' ranking quality (proof-path vs off-path states) reads them
    fresh = {(r.theorem.name, r.theorem.sha): r for r in searched}
    return RunOutcome(
        results=[fresh.get((r.theorem.name, r.theorem.sha), r) for r in store.results(run.theorems)],
        searched=len(searched),
        skipped=skipped,
        backend=place.pool.backend,
        label=comps.label,
        policy_id=comps.policy_id,
        ebm_id=comps.ebm_id,
        store=store,
    )


async def _on_cluster(
    run: StatementRun, spec: ClusterSpec, on_result: ResultCallback | None, on_start: StartCallback | None
) -> RunOutcome:
    from burnqed.cluster.campaign import Campaign
    from burnqed.cluster.ray_support import import_ray

    import_ray()  # RayMissing before anything is written
    async with Campaign(spec) as campaign:
        store = _open_store(run)
        failed = True
        try:
            if on_start is not None:
                done = len(store.done(run.theorems))
                on_start(
                    RunStart(total=len(run.theorems), backend=campaign.backend, done=done, lean_actors=len(campaign.lean_actors))
                )
            report = await campaign.run(run.theorems, store=store, iteration=run.iteration, on_result=on_result)
            stats = await campaign.batch_stats()
            failed = False
        finally:
            _end(run, store, failed)
        info = campaign.policy_info
        backend = campaign.backend
    if stats is not None:
        report = report.model_copy(update={"policy_batch": stats})
    return RunOutcome(
        results=store.results(run.theorems),
        searched=len(report.results),
        skipped=report.skipped,
        backend=backend,
        label=info.label if info is not None else "",
        policy_id=info.policy_id if info is not None else "",
        ebm_id=info.ebm_id if info is not None else None,
        store=store,
        cluster=report,
    )
