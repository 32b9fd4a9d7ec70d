"""Sub-commands of burnqed.search: ``prove``, ``search``, ``eval`` and ``compare``."""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from burnqed.cli.compare import add_bootstrap_flags, compare_command
from burnqed.cli.outputs import check_output, count, guard_output, resume_conflicts, write_proofs
from burnqed.config import BurnqedConfig
from burnqed.interrupt import INTERRUPTED_EXIT, SignalInterrupt
from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems
from burnqed.lean.errors import LeanError
from burnqed.paths import DEMO_RUN_DIR

if TYPE_CHECKING:  # pyarrow stays out of `burnqed --help`
    from burnqed.trajectory.writer import TrajectoryWriter
    from burnqed.iteration.best import BestCheckpoint
    from burnqed.search.checkpoint import ResultCheckpoint
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
    p.set_defaults(config_overrides=_overrides)


def _overrides(a: argparse.Namespace) -> dict[str, Any]:
    return {
        "search.max_nodes": a.max_nodes,
        "search.max_depth": a.max_depth,
        "search.time_limit_s": a.time_limit,
        "search.num_candidates": a.candidates,
        "search.energy_weight": a.energy_weight,
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
        help="continue an interrupted evaluation (R.json.partial.jsonl; with --cluster its manifest R.json.shards/)",
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


def _progress() -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("proved {task.fields[proved]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )


async def _run_set(
    args: argparse.Namespace,
    config: BurnqedConfig,
    theorems: list[Theorem],
    open_writer: Callable[[], TrajectoryWriter] | None,
    skip: set[str],
    *,
    checkpoint: ResultCheckpoint | None = None,
) -> tuple[list[Any], str, Any, SignalInterrupt]:
    """Search ``theorems`` not in ``skip`` with a progress bar; stops cleanly on SIGINT / SIGTERM.

    The trajectory writer is opened only once the model and energy head have loaded, so an
    unusable --model or --ebm neither creates nor replaces an output; it is finalised (parts
    merged) however the search ends.
    """
    from burnqed.lean import LeanPool
    from burnqed.search.components import open_components
    from burnqed.search.runner import search_theorems

    results: list[Any] = []
    interrupt = SignalInterrupt()
    backend: str = config.lean.backend
    comps: Any = None  # stays None when a signal arrives while the model loads
    todo = [t for t in theorems if t.name not in skip]
    async with anyio.create_task_group() as tg:
        await tg.start(interrupt.watch, tg.cancel_scope)
        async with LeanPool(config.lean) as pool, open_components(
            config.policy, config.paths, policy=args.policy, model_dir=args.model, ebm=args.ebm
        ) as comps:
            backend = pool.backend
            writer = open_writer() if open_writer is not None else None
            try:
                with _progress() as progress:
                    task = progress.add_task(_set_name(args), total=len(todo), proved=0)

                    def on_result(result: Any) -> None:
                        if checkpoint is not None:
                            checkpoint.append(result)
                        results.append(result)
                        progress.update(task, advance=1, proved=sum(r.proved for r in results))

                    await search_theorems(
                        pool,
                        comps.generator,
                        comps.scorer,
                        todo,
                        config.search,
                        writer=writer,
                        iteration=args.iteration,
                        on_result=on_result,
                    )
            finally:
                # synchronous: a cancellation cannot cut the merge short
                if writer is not None:
                    writer.finalize()
        tg.cancel_scope.cancel()
    interrupt.restore()
    return results, backend, comps, interrupt


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
    from burnqed.ebm.checkpoint import check_head_dir
    from burnqed.policy.model import check_model_dir

    if getattr(args, "model", None) is not None and getattr(args, "policy", "model") != "none":
        check_model_dir(Path(args.model))
    if getattr(args, "ebm", None) is not None:
        check_head_dir(args.ebm)


async def _search(args: argparse.Namespace, config: BurnqedConfig) -> int:
    theorems = _checked_inputs(args, config)
    check_output(args.output)
    # the output's one writer from here on: a second search on it is refused, not interleaved
    with guard_output([args.output], "burnqed search"):
        if args.cluster:
            from burnqed.cli.cluster_run import cluster_search

            return await cluster_search(args, config, theorems)
        return await _search_locked(args, config, theorems)


async def _search_locked(args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem]) -> int:
    from burnqed.trajectory.summary import summarize
    from burnqed.trajectory.writer import TrajectoryWriter, parts_dir

    exists = args.output.exists() or parts_dir(args.output).exists()
    if exists and not (args.resume or args.force):
        print(f"burnqed: {args.output} exists; use --resume to continue it or --force to replace it", file=sys.stderr)
        return 2
    # read-only: a corrupt part stops the run here (TrajectoryWriteError naming it), untouched
    done: set[str] = set()
    if args.resume:
        done, changed = resume_conflicts(args.output, theorems)
        if changed:
            shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
            print(f"burnqed: {args.output} holds {len(changed)} theorem(s) under the same name with another "
                  f"statement ({shown}); use --force to replace it or another --output", file=sys.stderr)
            return 2
    skipped = len(done)

    def open_writer() -> TrajectoryWriter:
        return TrajectoryWriter(
            args.output,
            resume=args.resume,
            row_group_rows=config.search.row_group_rows,
            flush_interval_s=config.search.flush_interval_s,
        )

    try:
        results, backend, _, interrupt = await _run_set(args, config, theorems, open_writer, done)
    except LeanError as exc:
        print(f"burnqed: Lean failed: {exc}", file=sys.stderr)
        return 1
    proved = sum(r.proved for r in results)
    status = "interrupted" if interrupt.signal is not None else "done"
    print(f"{status}: searched {len(results)} theorems ({skipped} already done), proved {proved}; backend {backend}")
    write_proofs(args.output, results, resumed=[t for t in theorems if t.name in done])
    if args.output.exists():
        s = summarize(args.output)
        print(
            f"{args.output}: {s.theorems} theorems, {s.proved} proved, {s.states} states "
            f"(positive {s.positives}, negative {s.negatives})"
        )
    return INTERRUPTED_EXIT if interrupt.signal is not None else 0


async def _eval(args: argparse.Namespace, config: BurnqedConfig) -> int:
    theorems = _checked_inputs(args, config)
    # before any search: an output that cannot be written must not cost an evaluation
    check_output(args.output)
    if args.trajectories is not None:
        check_output(args.trajectories)
    outputs = [args.output] + ([args.trajectories] if args.trajectories is not None else [])
    with guard_output(outputs, "burnqed eval"):
        return await _eval_locked(args, config, theorems)


async def _eval_locked(args: argparse.Namespace, config: BurnqedConfig, theorems: list[Theorem]) -> int:
    from burnqed.files import write_text_atomic
    from burnqed.search.checkpoint import ResultCheckpoint
    from burnqed.search.evaluation import in_theorem_order, report_from_results
    from burnqed.trajectory.writer import TrajectoryWriter, parts_dir

    checkpoint = ResultCheckpoint(args.output.with_name(args.output.name + ".partial.jsonl"))
    # same rule as search: nothing an earlier run wrote is replaced without being asked
    for path, what in ((args.output, "report"), (checkpoint.path, "checkpoint"), (args.trajectories, "trajectories")):
        if path is None or args.resume or args.force:
            continue
        if path.exists() or (what == "trajectories" and parts_dir(path).exists()):
            print(f"burnqed: {path} exists; use --resume to continue the evaluation or --force to replace it",
                  file=sys.stderr)
            return 2
    if args.force and not args.resume:
        checkpoint.remove()
    trajectories = args.trajectories
    resume = bool(args.resume)
    open_writer = (lambda: TrajectoryWriter(trajectories, resume=resume)) if trajectories is not None else None
    started = anyio.current_time()
    store: Any = None
    prior: list[Any] = []
    try:
        if args.cluster:
            from burnqed.cli.cluster_run import eval_store, run_cluster_set

            store = eval_store(args)
            results, backend, comps, interrupt, _ = await run_cluster_set(args, config, theorems, store, finalize=False)
        else:
            # one line per finished statement: a killed evaluation resumes where it stopped
            # (an infrastructure outcome is not kept, so --resume searches it again)
            prior = checkpoint.load(theorems) if resume else []
            results, backend, comps, interrupt = await _run_set(
                args, config, theorems, open_writer, {r.theorem.name for r in prior}, checkpoint=checkpoint
            )
    except LeanError as exc:
        print(f"burnqed: Lean failed: {exc}", file=sys.stderr)
        return 1
    if interrupt.signal is not None or comps is None:
        kept = (f"; {len(store.done_theorems())} statement(s) kept in {store.dir}" if store
                else f"; {len(prior) + len(results)} statement(s) kept in {checkpoint.path}")
        print(f"burnqed: interrupted; no report written{kept}, --resume continues", file=sys.stderr)
        return INTERRUPTED_EXIT
    if store is not None:
        # this run's and those an interrupted run committed (--resume), of the statements asked for
        results = store.results()
    results = in_theorem_order(theorems, [*prior, *results])
    report = report_from_results(
        results,
        label=args.label or comps.label,
        backend=backend,
        search=config.search,
        policy=comps.policy_id,
        ebm=comps.ebm_id,
        iteration=args.iteration,
        theorem_set=_set_name(args),
        run_wall_s=anyio.current_time() - started,
    )
    # whole or not at all: a full disk leaves the old report (and the checkpoint) in place
    write_text_atomic(args.output, report.model_dump_json(indent=2))
    checkpoint.remove()
    if store is not None:
        store.finalize()  # after the report: a kill before this line resumes with every result kept
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
