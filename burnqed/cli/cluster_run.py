"""``burnqed search --cluster`` and ``burnqed eval --cluster``: the statements spread over Ray Lean actors.

The run's actors come from ``[cluster]`` (burnqed.cluster.Campaign); each finished
statement's shard is committed with its manifest line before it is counted, so a driver
killed at any moment loses nothing that finished, and ``--resume`` searches only what the
manifest lacks. SIGINT / SIGTERM stop the run cleanly (exit 130): a search merges its
committed statements into the output; an evaluation keeps its manifest (``R.json.shards/``)
until the report is written, so ``burnqed eval --cluster --resume`` reports every statement
while searching only those the manifest lacks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig
from burnqed.data.theorems import Theorem
from burnqed.interrupt import INTERRUPTED_EXIT, SignalInterrupt, cancel_on_signal

__all__ = ["cluster_search", "eval_store", "run_cluster_set"]


def _spec(args: argparse.Namespace, config: BurnqedConfig) -> Any:
    from burnqed.cluster.spec import ClusterSpec

    return ClusterSpec(
        cluster=config.cluster,
        lean=config.lean,
        search=config.search,
        policy_config=config.policy,
        paths=config.paths,
        policy=args.policy,
        model_dir=args.model,
        ebm=args.ebm,
    )


def _progress(total: int, label: str) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("proved {task.fields[proved]}"),
        TimeElapsedColumn(), console=Console(stderr=True),
    )
    progress.add_task(label, total=total, proved=0)
    return progress


async def run_cluster_set(
    args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem], store: Any, *, finalize: bool = True
) -> tuple[list[Any], str, Any, SignalInterrupt, Any]:
    """Search ``theorems`` on the cluster, each committed to ``store`` (a ShardStore, or None).

    ``finalize``: merge the store into its output however the run ends (a search); False
    leaves the store as it is for the caller (an evaluation finalises after its report).
    Returns (results of this run, backend, PolicyInfo, the interrupt, CampaignReport or None when interrupted).
    """
    from burnqed.cluster.campaign import Campaign
    from burnqed.cluster.ray_support import import_ray

    import_ray()  # RayMissing before anything is written
    results: list[Any] = []
    info: Any = None
    backend: str = config.lean.backend
    report: Any = None
    todo = [t for t in theorems if store is None or t.name not in store.done_theorems()]
    label = str(args.theorems) if args.theorems is not None else str(args.theorem_set)
    try:
        async with cancel_on_signal() as interrupt, Campaign(_spec(args, config)) as campaign:
            info, backend = campaign.policy_info, campaign.backend
            with _progress(len(todo), f"{label} on {len(campaign.lean_actors)} Lean actors") as progress:
                task = progress.task_ids[0]

                def on_result(result: Any) -> None:
                    results.append(result)
                    progress.update(task, advance=1, proved=sum(r.proved for r in results))

                report = await campaign.run(theorems, store=store, iteration=args.iteration, on_result=on_result)
                stats = await campaign.batch_stats()
            if stats is not None and report is not None:
                report = report.model_copy(update={"policy_batch": stats})
    finally:
        if store is not None and finalize:
            store.finalize()  # synchronous: a cancellation cannot cut the merge short
    return results, backend, info, interrupt, report


def eval_store(args: argparse.Namespace) -> Any:
    """The manifest of ``burnqed eval --cluster``: ``R.json.shards/`` (shards too with --trajectories).

    ``--resume`` keeps what an interrupted evaluation committed there; without it (or when
    there is nothing to resume) the directory and the trajectories start empty.
    """
    from burnqed.cluster.ray_support import import_ray
    from burnqed.cluster.shards import ShardStore, shards_dir

    import_ray()  # RayMissing before anything is cleared
    directory = shards_dir(args.output)
    return ShardStore(args.trajectories, resume=args.resume and directory.is_dir(), directory=directory)


async def cluster_search(args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem]) -> int:
    """``burnqed search --cluster``: trajectories committed per statement, merged into ``--output``."""
    from burnqed.cluster.errors import ClusterError, RayMissing
    from burnqed.cluster.shards import shards_dir
    from burnqed.lean.errors import LeanError
    from burnqed.search.proof_files import proofs_dir, write_proof_files
    from burnqed.trajectory.summary import summarize
    from burnqed.trajectory.writer import parts_dir

    out: Path = args.output
    exists = out.exists() or shards_dir(out).exists() or parts_dir(out).exists()
    if exists and not (args.resume or args.force):
        print(f"burnqed: {out} exists; use --resume to continue it or --force to replace it", file=sys.stderr)
        return 2
    try:
        from burnqed.cluster.ray_support import import_ray
        from burnqed.cluster.shards import ShardStore

        import_ray()  # RayMissing before an old output is cleared
        store = ShardStore(out, resume=args.resume)
        results, backend, _, interrupt, report = await run_cluster_set(args, config, theorems, store)
    except RayMissing:
        raise  # the CLI's one line naming the extra, exit 2
    except (ClusterError, LeanError) as exc:
        print(f"burnqed: cluster run failed: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    proved = sum(r.proved for r in results)
    status = "interrupted" if interrupt.signal is not None else "done"
    skipped = report.skipped if report is not None else 0
    print(f"{status}: searched {len(results)} theorems ({skipped} already done), proved {proved}; backend {backend}")
    if report is not None:
        batch = report.policy_batch
        mean = f"; policy batches {batch.mean_batch:.1f} states on average" if batch is not None else ""
        print(
            f"cluster: {len(report.by_actor)} Lean actors, {report.requeued} statement(s) re-queued after "
            f"{report.actor_failures} actor failure(s), {report.duplicates_refused} duplicate(s) refused{mean}"
        )
    written = write_proof_files(proofs_dir(out), results)
    if written:
        print(f"{len(written)} proof file(s) in {proofs_dir(out)}")
    if out.exists():
        s = summarize(out)
        print(f"{out}: {s.theorems} theorems, {s.proved} proved, {s.states} states (positive {s.positives}, negative {s.negatives})")
    return INTERRUPTED_EXIT if interrupt.signal is not None else 0
