"""Sub-commands of burnqed.search: ``prove``, ``search``, ``eval`` and ``compare``."""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from burnqed.cli.compare import add_bootstrap_flags, compare_command
from burnqed.cli.outputs import (
    check_output,
    count,
    disk_error,
    finished_report,
    guard_output,
    resume_conflicts,
    write_proofs,
)
from burnqed.config import BurnqedConfig
from burnqed.interrupt import INTERRUPTED_EXIT, SignalInterrupt, cancel_on_signal
from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems
from burnqed.lean.errors import LeanError
from burnqed.paths import DEMO_RUN_DIR

if TYPE_CHECKING:  # pyarrow and the run machinery stay out of `burnqed --help`
    from rich.progress import Progress

    from burnqed.cluster.spec import ClusterSpec
    from burnqed.iteration.best import BestCheckpoint
    from burnqed.runs.spec import Local, RunOutcome, RunStart
    from burnqed.search.results import SearchResult

__all__ = ["register"]


def _search_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", type=Path, metavar="DIR", help="policy model directory (default: the tiny model)")
    p.add_argument(
        "--policy",
        choices=["model", "none"],
        default="model",
        help="'none': no model, the rule-based automation policy only",
    )
    p.add_argument("--ebm", type=Path, metavar="CKPT", help="energy-head checkpoint directory")
    p.add_argument("--max-nodes", type=int, help="states expanded per theorem (search.max_nodes)")
    p.add_argument("--max-depth", type=int, help="longest tactic sequence (search.max_depth)")
    p.add_argument("--time-limit", type=float, metavar="S", help="seconds per theorem (search.time_limit_s)")
    p.add_argument("--candidates", type=int, help="policy candidates per state (search.num_candidates)")
    p.add_argument("--lambda", dest="energy_weight", type=float, help="energy weight λ (search.energy_weight)")
    p.add_argument(
        "--search-mode", choices=["step", "whole", "hybrid"],
        help="search.mode: step (best-first over tactics), whole (pass@k whole proofs), hybrid (both)",
    )  # fmt: skip
    p.add_argument("--preset", metavar="NAME", help="the policy's model preset (policy.preset; see `policy prompt --list`)")
    p.set_defaults(config_overrides=_overrides)


def _overrides(a: argparse.Namespace) -> dict[str, Any]:
    return {
        "search.max_nodes": a.max_nodes,
        "search.max_depth": a.max_depth,
        "search.time_limit_s": a.time_limit,
        "search.num_candidates": a.candidates,
        "search.energy_weight": a.energy_weight,
        "search.mode": a.search_mode,
        "policy.preset": a.preset,
        "search.concurrency": getattr(a, "concurrency", None),
    }


class _SetAction(argparse.Action):
    """``--set NAME`` picks a built-in theorem set; ``--set KEY=VALUE`` stays a config override."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        if "=" in str(values):
            namespace.overrides = [*getattr(namespace, "overrides", []), values]
        elif getattr(namespace, "theorem_set", None) is not None:
            parser.error("--set NAME given twice")
        else:
            namespace.theorem_set = values


def _parent_with_set(parent: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The common options, with ``--set`` taking a theorem-set NAME as well as KEY=VALUE."""
    p = argparse.ArgumentParser(add_help=False)
    for action in parent._actions:
        if "--set" not in action.option_strings:
            p._add_action(copy.copy(action))
    p.add_argument(
        "--set",
        dest="theorem_set",
        action=_SetAction,
        metavar="NAME|KEY=VALUE",
        help="built-in theorem set (core, benchmark-test, benchmark-train); KEY=VALUE overrides a config value",
    )
    p.set_defaults(theorem_set=None)  # no overrides default: it would drop a --set given before the command
    return p


def _set_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--theorems", type=Path, metavar="FILE", help="theorem set (JSON Lines)")
    p.add_argument("--split", metavar="NAME", help="only theorems of this split (valid, test, ...) of an imported set")
    p.add_argument("--limit", type=count, metavar="N", help="only the first N theorems")
    p.add_argument("--concurrency", type=int, help="theorems searched at once (search.concurrency)")
    p.add_argument("--iteration", type=int, default=0, help="expert-iteration number recorded in the rows")
    p.add_argument(
        "--cluster", action="store_true", help="spread the statements over Ray Lean actors ([cluster]; extra 'cluster')"
    )


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    prove = sub.add_parser("prove", parents=[parent], help="search one statement; print the proof or the reason")
    prove.add_argument("statement", help="a Lean 4 proposition, e.g. '∀ (n : Nat), n + 0 = n'")
    prove.add_argument("--name", default="statement", help="theorem name recorded in the result")
    prove.add_argument("--json", action="store_true", help="print the result (without records) as JSON")
    prove.add_argument(
        "--run-dir", type=Path, metavar="DIR",
        help="take the best evaluated checkpoint of this expert-iteration run (default: paths.run_dir, then runs/demo)",
    )  # fmt: skip
    prove.add_argument("--base", action="store_true", help="use the base model, not a run's best checkpoint")
    _search_flags(prove)
    prove.set_defaults(handler=_prove)

    set_parent = _parent_with_set(parent)
    search = sub.add_parser("search", parents=[set_parent], help="search a theorem set, writing trajectories")
    _set_flags(search)
    search.add_argument("--output", type=Path, required=True, metavar="OUT.parquet")
    search.add_argument("--resume", action="store_true", help="continue an interrupted run into OUT")
    search.add_argument("--force", action="store_true", help="replace an existing OUT")
    _search_flags(search)
    search.set_defaults(handler=_search)

    ev = sub.add_parser("eval", parents=[set_parent], help="evaluate a theorem set: solve rate and outcomes as JSON")
    _set_flags(ev)
    ev.add_argument("--output", type=Path, required=True, metavar="R.json")
    ev.add_argument("--label", help="report label (default: automation / no_ebm / with_ebm)")
    ev.add_argument("--trajectories", type=Path, metavar="OUT.parquet", help="also write the trajectories")
    ev.add_argument(
        "--resume", action="store_true",
        help="continue an interrupted evaluation (its statement store R.json.shards/)",
    )  # fmt: skip
    ev.add_argument("--force", action="store_true", help="replace an existing report (and --trajectories file)")
    _search_flags(ev)
    ev.set_defaults(handler=_eval)

    cmp = sub.add_parser(
        "compare", parents=[parent],
        help="B against A, paired by statement: difference with a bootstrap interval and McNemar's p",
    )  # fmt: skip
    cmp.add_argument("a", type=Path, metavar="A.json", help="the baseline's eval report")
    cmp.add_argument("b", type=Path, metavar="B.json", help="the candidate's eval report")
    cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_bootstrap_flags(cmp)
    cmp.set_defaults(handler=compare_command)


# ---------------------------------------------------------------- helpers


def _theorems(args: argparse.Namespace, config: BurnqedConfig) -> list[Theorem]:
    if (args.theorems is None) == (args.theorem_set is None):
        raise TheoremSetError("give exactly one of --theorems FILE and --set NAME")
    if args.theorems is not None:
        theorems = load_theorems(args.theorems)
    else:
        from burnqed.data.sets import load_builtin

        theorems = load_builtin(args.theorem_set, home=config.paths.home, config=config.data)
    if getattr(args, "split", None) is not None:
        splits = sorted({t.split for t in theorems if t.split})
        theorems = [t for t in theorems if t.split == args.split]
        if not theorems:
            raise TheoremSetError(f"no theorem of split {args.split!r} (splits in the set: {', '.join(splits) or 'none'})")
    return theorems[: args.limit] if args.limit is not None else theorems


def _set_name(args: argparse.Namespace) -> str:
    return str(args.theorems) if args.theorems is not None else str(args.theorem_set)


def _progress() -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("proved {task.fields[proved]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )


@asynccontextmanager
async def _where(args: argparse.Namespace, config: BurnqedConfig) -> AsyncIterator[Local | ClusterSpec]:
    """``--cluster``: Ray Lean actors (the spec); else a LeanPool and the components opened here."""
    if args.cluster:
        from burnqed.cluster.ray_support import import_ray
        from burnqed.cluster.spec import ClusterSpec

        import_ray()  # RayMissing before anything is written
        yield ClusterSpec.of(config, policy=args.policy, model_dir=args.model, ebm=args.ebm)
        return
    from burnqed.lean import LeanPool
    from burnqed.runs.spec import Local
    from burnqed.search.components import open_components

    async with LeanPool(config.lean) as pool, open_components(
        config.policy, config.paths, policy=args.policy, model_dir=args.model, ebm=args.ebm
    ) as comps:
        yield Local(pool, comps)


@dataclass(slots=True)
class _SetRun:
    """What a command's run gave; ``outcome`` is None when a signal stopped it."""

    interrupt: SignalInterrupt
    searched: list[SearchResult] = field(default_factory=list)
    start: RunStart | None = None
    outcome: RunOutcome | None = None


async def _run_set(
    args: argparse.Namespace,
    config: BurnqedConfig,
    theorems: list[Theorem],
    store: Path,
    trajectories: Path | None,
    *,
    finalize: bool,
) -> _SetRun:
    """Search ``theorems`` (locally or ``--cluster``) with a progress bar, committing each to
    ``store``; SIGINT / SIGTERM stop the run cleanly. The store is opened only once the model
    and energy head (or the actors) are up, so an unusable --model or --ebm writes nothing."""
    from burnqed.runs.run import run_statements
    from burnqed.runs.spec import StatementRun

    async with cancel_on_signal() as interrupt:
        ran = _SetRun(interrupt)
        async with _where(args, config) as where:
            with _progress() as progress:
                task = progress.add_task(_set_name(args), total=len(theorems), proved=0)

                def started(start: RunStart) -> None:
                    ran.start = start
                    on = f" on {start.lean_actors} Lean actors" if start.lean_actors is not None else ""
                    progress.update(task, description=_set_name(args) + on, total=start.total - start.done)

                def on_result(result: SearchResult) -> None:
                    ran.searched.append(result)
                    progress.update(task, advance=1, proved=sum(r.proved for r in ran.searched))

                run = StatementRun(
                    theorems, config.search, where, store, trajectories=trajectories,
                    resume=bool(args.resume), finalize=finalize, iteration=args.iteration,
                )  # fmt: skip
                ran.outcome = await run_statements(run, on_result, on_start=started)
    return ran


def _failed(args: argparse.Namespace, exc: Exception) -> int:
    """A Lean or cluster failure as one line, exit 1."""
    what = "cluster run failed" if args.cluster else "Lean failed"
    print(f"burnqed: {what}: {' '.join(str(exc).split())}", file=sys.stderr)
    return 1


# ---------------------------------------------------------------- handlers


async def _prove(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.lean import LeanPool
    from burnqed.search.components import open_components
    from burnqed.search.engine import BestFirstSearch

    theorem = Theorem(name=args.name, statement=args.statement)
    best = _best_checkpoint(args, config)
    if best is not None:
        args.model = best.model_dir
        args.ebm = args.ebm if args.ebm is not None else best.ebm_dir
        print(f"using {best.describe()}", file=sys.stderr if args.json else sys.stdout)
    # before the pool starts or the default model is built: a bad --model / --ebm writes nothing
    _check_inputs(args)
    try:
        async with LeanPool(config.lean.model_copy(update={"num_workers": 1})) as pool, open_components(
            config.policy, config.paths, policy=args.policy, model_dir=args.model, ebm=args.ebm
        ) as comps:
            search = BestFirstSearch(pool, comps.generator, comps.scorer, config.search)
            result = await search.prove(theorem)
    except LeanError as exc:
        print(f"burnqed: Lean failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(result.model_dump_json(indent=2, exclude={"records"}))
        return 0 if result.proved else 1
    s = result.stats
    where = f"[{result.backend} backend, {s.nodes_expanded} nodes, {s.wall_s:.2f}s]"
    if result.proved and result.proof is not None:
        print(f"proved {where}:")
        for tactic in result.proof:
            print(f"  {tactic}")
        return 0
    detail = f": {result.detail}" if result.detail else ""
    print(f"not proved ({result.reason}{detail}) {where}")
    return 1


def _best_checkpoint(args: argparse.Namespace, config: BurnqedConfig) -> BestCheckpoint | None:
    """The run checkpoint ``prove`` uses when no model was named: --run-dir, else paths.run_dir, else runs/demo."""
    from burnqed.iteration.best import best_checkpoint
    from burnqed.policy.errors import PolicyLoadError

    if args.base or args.model is not None or args.policy != "model" or config.policy.backend != "local":
        return None
    if args.run_dir is not None:
        found = best_checkpoint(args.run_dir)
        if found is None:
            raise PolicyLoadError(f"no evaluated checkpoint in {args.run_dir} (run burnqed iterate there, or drop --run-dir)")
        return found
    for run_dir in (config.paths.run_dir, DEMO_RUN_DIR):
        found = best_checkpoint(run_dir)
        if found is not None:
            return found
    return None


def _checked_inputs(args: argparse.Namespace, config: BurnqedConfig) -> list[Theorem]:
    """The theorems to search, once every named input is known to be usable: a bad theorem
    set, --model or --ebm raises before anything is written (TheoremSetError and the errors
    of _check_inputs; the CLI prints each as one line, exit 2)."""
    theorems = _theorems(args, config)
    _check_inputs(args)
    return theorems


def _check_inputs(args: argparse.Namespace) -> None:
    """Refuse an unusable --model / --ebm before anything is loaded or written.

    PolicyLoadError / EBMCheckpointError, which the CLI prints as one line; what only a
    load can tell (weights that do not fit) is refused later, still before any output.
    """
    # imported only when named: both modules pull in torch (~2 s), which `--policy none` never needs
    if getattr(args, "model", None) is not None and getattr(args, "policy", "model") != "none":
        from burnqed.policy.model import check_model_dir

        check_model_dir(Path(args.model))
    if getattr(args, "ebm", None) is not None:
        from burnqed.ebm.checkpoint import check_head_dir

        check_head_dir(args.ebm)


async def _search(args: argparse.Namespace, config: BurnqedConfig) -> int:
    theorems = _checked_inputs(args, config)
    check_output(args.output)
    # the output's one writer from here on: a second search on it is refused, not interleaved
    with guard_output([args.output], "burnqed search"):
        return await _search_locked(args, config, theorems)


async def _search_locked(args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem]) -> int:
    from burnqed.cluster.errors import ClusterError, RayMissing
    from burnqed.search.store import store_dir
    from burnqed.trajectory.summary import summarize

    out: Path = args.output
    if (out.exists() or store_dir(out).exists()) and not (args.resume or args.force):
        print(f"burnqed: {out} exists; use --resume to continue it or --force to replace it", file=sys.stderr)
        return 2
    # read-only: a corrupt output stops the run here (TrajectoryWriteError naming it), untouched
    done: set[str] = set()
    if args.resume:
        done, changed = resume_conflicts(out, theorems)
        if changed:
            shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
            print(f"burnqed: {out} holds {len(changed)} theorem(s) under the same name with another "
                  f"statement ({shown}); use --force to replace it or another --output", file=sys.stderr)
            return 2
    try:
        ran = await _run_set(args, config, theorems, store_dir(out), out, finalize=True)
    except RayMissing:
        raise  # the CLI's one line naming the extra, exit 2
    except (ClusterError, LeanError) as exc:
        return _failed(args, exc)
    results = ran.searched
    proved = sum(r.proved for r in results)
    status = "interrupted" if ran.interrupt.signal is not None else "done"
    skipped = ran.start.done if ran.start is not None else len(done)
    backend = ran.start.backend if ran.start is not None else config.lean.backend
    print(f"{status}: searched {len(results)} theorems ({skipped} already done), proved {proved}; backend {backend}")
    report = ran.outcome.cluster if ran.outcome is not None else None
    if report is not None:
        batch = report.policy_batch
        mean = f"; policy batches {batch.mean_batch:.1f} states on average" if batch is not None else ""
        print(
            f"cluster: {len(report.by_actor)} Lean actors, {report.requeued} statement(s) re-queued after "
            f"{report.actor_failures} actor failure(s), {report.duplicates_refused} duplicate(s) refused{mean}"
        )
    searched = {r.theorem.name for r in results}
    write_proofs(out, results, resumed=[t for t in theorems if t.name not in searched] if args.resume else None)
    if out.exists():
        s = summarize(out)
        print(f"{out}: {s.theorems} theorems, {s.proved} proved, {s.states} states (positive {s.positives}, negative {s.negatives})")
    return INTERRUPTED_EXIT if ran.interrupt.signal is not None else 0


async def _eval(args: argparse.Namespace, config: BurnqedConfig) -> int:
    theorems = _checked_inputs(args, config)
    # before any search: an output that cannot be written must not cost an evaluation
    check_output(args.output)
    if args.trajectories is not None:
        check_output(args.trajectories)
    outputs = [args.output] + ([args.trajectories] if args.trajectories is not None else [])
    with guard_output(outputs, "burnqed eval"):
        try:
            return await _eval_locked(args, config, theorems)
        except (OSError, BaseExceptionGroup) as exc:
            full = disk_error(exc)
            if full is None:
                raise
            from burnqed.search.store import store_dir

            where = full.filename or args.output
            print(f"burnqed eval: {full.strerror or full}: {where}; the finished statements are kept in "
                  f"{store_dir(args.output)}: free space and run the same command with --resume", file=sys.stderr)
            return 1


async def _eval_locked(args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem]) -> int:
    from burnqed.cluster.errors import ClusterError, RayMissing
    from burnqed.files import write_text_atomic
    from burnqed.search.evaluation import report_from_results
    from burnqed.search.store import store_dir

    # one manifest line per finished statement (R.json.shards/): a killed evaluation resumes where
    # it stopped, local or --cluster (an infrastructure outcome is not kept: --resume searches it again)
    store = store_dir(args.output)
    # same rule as search: nothing an earlier run wrote is replaced without being asked
    for path in (args.output, store, args.trajectories):
        if path is not None and path.exists() and not (args.resume or args.force):
            print(f"burnqed: {path} exists; use --resume to continue the evaluation or --force to replace it",
                  file=sys.stderr)
            return 2
    if args.resume and not args.force and args.output.exists() and not store.exists():
        return finished_report(args.output, theorems)
    started = anyio.current_time()
    try:
        ran = await _run_set(args, config, theorems, store, args.trajectories, finalize=False)
    except RayMissing:
        raise
    except (ClusterError, LeanError) as exc:
        return _failed(args, exc)
    outcome = ran.outcome
    if ran.interrupt.signal is not None or outcome is None:
        kept = (ran.start.done if ran.start is not None else 0) + len(ran.searched)
        print(f"burnqed: interrupted; no report written; {kept} statement(s) kept in {store}, --resume continues",
              file=sys.stderr)
        return INTERRUPTED_EXIT
    results = outcome.results  # this run's and those an interrupted run committed (--resume)
    report = report_from_results(
        results,
        label=args.label or outcome.label,
        backend=outcome.backend,
        search=config.search,
        policy=outcome.policy_id,
        ebm=outcome.ebm_id,
        iteration=args.iteration,
        theorem_set=_set_name(args),
        run_wall_s=anyio.current_time() - started,
    )
    # whole or not at all: a full disk leaves the old report (and the store) in place
    write_text_atomic(args.output, report.model_dump_json(indent=2))
    outcome.store.finalize()  # after the report: a kill before this line resumes with every result kept
    write_proofs(args.output, results)
    print(
        f"{report.label}: solved {report.solved}/{report.total} ({report.solve_rate:.1%}) "
        f"on {report.backend}; {report.budget.nodes_expanded} nodes; report {args.output}"
    )
    if report.outside_fragment:
        inside = report.total - report.outside_fragment
        print(
            f"  {report.outside_fragment} statement(s) outside the embedded fragment (not searched); "
            f"in-fragment: solved {report.solved}/{inside} ({report.in_fragment_solve_rate or 0.0:.1%})"
        )
    return 0
