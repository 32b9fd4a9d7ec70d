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

from burnqed.config import BurnqedConfig
from burnqed.interrupt import INTERRUPTED_EXIT, SignalInterrupt
from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems
from burnqed.lean.errors import LeanError
from burnqed.paths import DEMO_RUN_DIR

if TYPE_CHECKING:  # pyarrow stays out of `burnqed --help`
    from burnqed.trajectory.writer import TrajectoryWriter
    from burnqed.iteration.best import BestCheckpoint
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
    p.set_defaults(theorem_set=None, overrides=[])
    return p


def _set_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--theorems", type=Path, metavar="FILE", help="theorem set (JSON Lines)")
    p.add_argument("--split", metavar="NAME", help="only theorems of this split (valid, test, ...) of an imported set")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N theorems")
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
        help="with --cluster: continue an interrupted evaluation from its manifest (R.json.shards/)",
    )  # fmt: skip
    _search_flags(ev)
    ev.set_defaults(handler=_eval)

    cmp = sub.add_parser("compare", parents=[parent], help="the difference between two eval reports")
    cmp.add_argument("a", type=Path, metavar="A.json")
    cmp.add_argument("b", type=Path, metavar="B.json")
    cmp.add_argument("--json", action="store_true")
    cmp.set_defaults(handler=_compare)


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
        tg.start_soon(interrupt.watch, tg.cancel_scope)
        async with LeanPool(config.lean) as pool, open_components(
            config.policy, config.paths, policy=args.policy, model_dir=args.model, ebm=args.ebm
        ) as comps:
            backend = pool.backend
            writer = open_writer() if open_writer is not None else None
            try:
                with _progress() as progress:
                    task = progress.add_task(_set_name(args), total=len(todo), proved=0)

                    def on_result(result: Any) -> None:
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


def _write_proofs(output: Path, results: list[SearchResult]) -> None:
    """One checked Lean file per proved theorem, beside the run's output."""
    from burnqed.search.proof_files import proofs_dir, write_proof_files

    written = write_proof_files(proofs_dir(output), results)
    if written:
        print(f"{len(written)} proof file(s) in {proofs_dir(output)}")


async def _search(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.trajectory.summary import summarize
    from burnqed.trajectory.writer import TrajectoryWriter, parts_dir, written_theorems

    theorems = _checked_inputs(args, config)
    if args.cluster:
        from burnqed.cli.cluster_run import cluster_search

        return await cluster_search(args, config, theorems)
    exists = args.output.exists() or parts_dir(args.output).exists()
    if exists and not (args.resume or args.force):
        print(f"burnqed: {args.output} exists; use --resume to continue it or --force to replace it", file=sys.stderr)
        return 2
    # read-only: a corrupt part stops the run here (TrajectoryWriteError naming it), untouched
    done = written_theorems(args.output) if args.resume else set()
    skipped = len(done & {t.name for t in theorems})

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
    _write_proofs(args.output, results)
    if args.output.exists():
        s = summarize(args.output)
        print(
            f"{args.output}: {s.theorems} theorems, {s.proved} proved, {s.states} states "
            f"(positive {s.positives}, negative {s.negatives})"
        )
    return INTERRUPTED_EXIT if interrupt.signal is not None else 0


async def _eval(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.search.evaluation import in_theorem_order, report_from_results
    from burnqed.trajectory.writer import TrajectoryWriter

    theorems = _checked_inputs(args, config)
    if args.resume and not args.cluster:
        print("burnqed: eval --resume needs --cluster (only a cluster evaluation keeps a manifest)", file=sys.stderr)
        return 2
    trajectories = args.trajectories
    open_writer = (lambda: TrajectoryWriter(trajectories)) if trajectories is not None else None
    started = anyio.current_time()
    store: Any = None
    try:
        if args.cluster:
            from burnqed.cli.cluster_run import eval_store, run_cluster_set

            store = eval_store(args)
            results, backend, comps, interrupt, _ = await run_cluster_set(args, config, theorems, store, finalize=False)
        else:
            results, backend, comps, interrupt = await _run_set(args, config, theorems, open_writer, set())
    except LeanError as exc:
        print(f"burnqed: Lean failed: {exc}", file=sys.stderr)
        return 1
    if interrupt.signal is not None or comps is None:
        kept = f"; {len(store.done_theorems())} statement(s) kept in {store.dir}, --resume continues" if store else ""
        print(f"burnqed: interrupted; no report written{kept}", file=sys.stderr)
        return INTERRUPTED_EXIT
    if store is not None:
        # this run's and those an interrupted run committed (--resume), of the statements asked for
        results = store.results()
    results = in_theorem_order(theorems, results)
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
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    if store is not None:
        store.finalize()  # after the report: a kill before this line resumes with every result kept
    _write_proofs(args.output, results)
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


def _compare(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.table import Table

    from burnqed.search.evaluation import compare_reports, load_report

    a, b = load_report(args.a), load_report(args.b)
    diff = compare_reports(a, b)
    if args.json:
        print(json.dumps(diff.model_dump(), indent=2))
        return 0
    console = Console()
    table = Table(title=f"{args.a} (A) vs {args.b} (B)")
    table.add_column("")
    table.add_column(f"A: {a.label}", justify="right")
    table.add_column(f"B: {b.label}", justify="right")
    table.add_row("backend", a.backend, b.backend)
    table.add_row("policy", a.policy, b.policy)
    table.add_row("energy head", a.ebm or "-", b.ebm or "-")
    table.add_row("solved", f"{a.solved}/{a.total}", f"{b.solved}/{b.total}")
    table.add_row("solve rate", f"{a.solve_rate:.1%}", f"{b.solve_rate:.1%}")
    table.add_row(f"on the {diff.common} common", f"{diff.a_common_rate:.1%}", f"{diff.b_common_rate:.1%}")
    table.add_row("nodes (common)", str(diff.a_nodes), str(diff.b_nodes))
    table.add_row("only solved here", str(len(diff.only_a)), str(len(diff.only_b)))
    console.print(table)
    console.print(f"Δ solve rate (B − A): {diff.delta:+.1%} over {diff.common} common theorems")
    for title, names in (("only A", diff.only_a), ("only B", diff.only_b)):
        if names:
            console.print(f"{title}: {', '.join(names[:20])}{' …' if len(names) > 20 else ''}")
    return 0
