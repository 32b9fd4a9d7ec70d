"""The ``burnqed`` command.

Every command group is a module of this package (burnqed/cli/<group>.py) with
``register(subparsers, parent)``; handlers take ``(args, config)`` and return an exit code
(async handlers are run with anyio). Heavy imports (torch, transformers) happen inside
handlers so that ``burnqed --help`` stays fast. ``burnqed bench NAME`` runs
``burnqed.bench.NAME:bench(config, quick)`` and prints its JSON. The domain packages
below parse no arguments and print nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from burnqed.config import BurnqedConfig, ConfigError, load_config, toml_literal

__all__ = ["BENCHES", "COMMAND_MODULES", "build_parser", "main", "run"]

log = logging.getLogger("burnqed")

COMMAND_MODULES: tuple[str, ...] = tuple(
    f"burnqed.cli.{name}"
    for name in (
        "lean", "data", "policy", "ebm", "search", "trajectory", "iterate", "report", "blueprint", "serve",
        "coordinator", "audit", "doctor",
    )
)

# name -> "module:function"; the function is ``async def bench(config, quick) -> dict``.
BENCHES: dict[str, str] = {
    name: f"burnqed.bench.{name}:bench"
    for name in ("lean", "embedded", "soundness", "policy", "ebm", "search", "mcp", "cluster", "soak", "chaos")
}


def _common_parent() -> argparse.ArgumentParser:
    # SUPPRESS: the options are accepted before and after the sub-command, and a
    # sub-parser's default must not overwrite a value given before it
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument("--config", metavar="TOML", help="config file (default: ./burnqed.toml if present)")
    parent.add_argument(
        "--set",
        dest="overrides",
        metavar="KEY=VALUE",
        action="append",
        help="override one config value, e.g. --set search.max_nodes=200 (repeatable)",
    )
    parent.add_argument("-v", "--verbose", action="count", help="more logging (-vv: debug)")
    return parent


def _load(name: str) -> Any:
    module_name, _, attr = name.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


def _latency_ms(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {text!r}") from None
    if not 1 <= value <= 60_000:
        raise argparse.ArgumentTypeError(f"must be 1 to 60000 ms, got {value}")
    return value


def _bench_command(args: argparse.Namespace, config: BurnqedConfig) -> int:
    shape = getattr(args, "shape", None)
    if shape is not None and args.name != "policy":
        print(f"burnqed bench: --shape applies to `bench policy` only, not {args.name}", file=sys.stderr)
        return 2
    latency = getattr(args, "simulated_latency_ms", None)
    if latency is not None:
        if args.name != "cluster":
            refusal = f"burnqed bench: --simulated-latency-ms applies to `bench cluster` only, not {args.name}"
            print(refusal, file=sys.stderr)
            return 2
        config = config.model_copy(update={"lean": config.lean.model_copy(update={"simulated_latency_ms": latency})})
    refused = _load("burnqed.bench.policy_shape:BenchRefused")
    try:
        # stdout carries the JSON alone: what a library prints meanwhile (Ray's raylet warnings) goes to stderr
        with contextlib.redirect_stdout(sys.stderr):
            if shape is not None:
                result = anyio.run(_load("burnqed.bench.policy_shape:bench"), config, args.quick, shape)
            else:
                result = anyio.run(_load(BENCHES[args.name]), config, args.quick)
    except refused as exc:
        print(f"burnqed bench {args.name}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2, sort_keys=True, default=str))
    return 0


def _version() -> str:
    """The installed distribution's version (what pip installed from pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("burnqed")
    except PackageNotFoundError:
        return "(not installed: run from a checkout)"


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every package's sub-commands."""
    parent = _common_parent()
    parser = argparse.ArgumentParser(
        prog="burnqed",
        description="Lean 4 theorem proving by LLM-guided best-first search and expert iteration.",
        parents=[parent],
    )
    parser.add_argument("--version", action="version", version=f"burnqed {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        _load(module_name).register(sub, parent)
    bench = sub.add_parser("bench", parents=[parent], help="run a benchmark and print JSON")
    bench.add_argument("name", choices=sorted(BENCHES))
    bench.add_argument("--quick", action="store_true", help="smaller sizes (for smoke tests)")
    bench.add_argument(
        "--shape", choices=("7b",), default=None, help="policy only: a real model's shape with random weights on CUDA"
    )
    bench.add_argument(
        "--simulated-latency-ms",
        type=_latency_ms,
        default=None,
        metavar="MS",
        help="cluster only: every tactic answers after MS ms (lean.simulated_latency_ms); "
        "sweeps 1-16 Lean actors to show the orchestration's own scaling",
    )
    bench.set_defaults(handler=_bench_command)
    return parser


def _setup_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def run() -> int:
    """Entry point of the ``burnqed`` console script and ``python -m burnqed.cli``: ``main``,
    then a quick exit (``burnqed.collector.process_exit``); tests call ``main`` in-process."""
    from burnqed.collector import process_exit

    return process_exit(main())


def main(argv: Sequence[str] | None = None) -> int:
    """The burnqed command on ``argv`` (the process's arguments when None); its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(getattr(args, "verbose", 0))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        # a command maps its own flags to dotted keys with set_defaults(config_overrides=fn);
        # they win over --set, which wins over the file
        flags: dict[str, Any] = getattr(args, "config_overrides", lambda a: {})(args)
        given: list[str] = list(getattr(args, "overrides", []))
        overrides = given + [f"{k}={toml_literal(v)}" for k, v in flags.items() if v is not None]
        config = load_config(getattr(args, "config", None), overrides)
    except ConfigError as exc:
        print(f"burnqed: configuration error: {exc}", file=sys.stderr)
        return 2
    wrong_run_dir = _run_dir_problem(args, config)
    if wrong_run_dir is not None:
        print(f"burnqed: {wrong_run_dir}", file=sys.stderr)
        return 2
    try:
        if inspect.iscoroutinefunction(handler):
            return int(anyio.run(handler, args, config) or 0)
        return int(handler(args, config) or 0)
    except KeyboardInterrupt:
        print("burnqed: interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        # a user error (a path, an input, a backend that cannot start as configured) is one
        # line and exit 2; an error inside a task group arrives wrapped in a group
        found = _user_error(exc)
        if found is None:
            os_error = _os_error(exc)
            if os_error is None:
                raise
            # a full disk or a read-only filesystem met inside a task group: one line too
            logging.getLogger(__name__).debug("OS error", exc_info=True)
            from burnqed.files import DiskFull

            if isinstance(os_error, DiskFull):  # a checkpoint's save: its line names the path and the way out
                print(f"burnqed: {os_error}", file=sys.stderr)
                return 1
            where = f": {os_error.filename}" if os_error.filename else ""
            print(f"burnqed: {' '.join(str(os_error.strerror or os_error).split())}{where}", file=sys.stderr)
            return 1
        logging.getLogger(__name__).debug("unusable input", exc_info=True)
        # a layer's message may quote a library's multi-line text: the promise is one line
        print(f"burnqed: {' '.join(_describe(found).split())}", file=sys.stderr)
        return 2


_PATH_ERRORS = (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError)


def _describe(exc: BaseException) -> str:
    """The one line that says what is wrong with a user error."""
    if isinstance(exc, _PATH_ERRORS) and exc.filename is not None:
        return f"{exc.strerror or exc}: {exc.filename} (check the path)"
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())) or exc.title
        return f"invalid input: {where}: {first.get('msg')}"
    return str(exc) or type(exc).__name__


def _run_dir_problem(args: argparse.Namespace, config: BurnqedConfig) -> str | None:
    """Why the run directory of a command that takes ``--run-dir`` is unusable, or None.

    Checked before the handler runs, so no command starts a pool or writes beside a file
    it would then fail to create a directory over.
    """
    if not hasattr(args, "run_dir"):
        return None
    run_dir = Path(args.run_dir or config.paths.run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        return f"run directory {run_dir} is a file; give --run-dir a directory (or a new path to create one)"
    return None


def _found_in(exc: BaseException, matches: Callable[[BaseException], bool]) -> BaseException | None:
    """``exc`` itself or the first error inside its exception groups that ``matches``."""
    if matches(exc):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _found_in(inner, matches)
            if found is not None:
                return found
    return None


def _os_error(exc: BaseException) -> OSError | None:
    """The OSError inside an exception group (an error of a task), or None."""
    found = _found_in(exc, lambda e: isinstance(e, OSError))
    return found if isinstance(found, OSError) else None


def _user_error(exc: BaseException) -> BaseException | None:
    """The error in ``exc`` (or in its exception group) that names an unusable input."""
    from burnqed.blueprint.errors import BlueprintError
    from burnqed.iteration.errors import CheckpointUnreadable
    from burnqed.iteration.layout import RunOutputError
    from burnqed.cluster.errors import ClusterError
    from burnqed.data.leandojo import LeanDojoError
    from burnqed.data.theorems import TheoremSetError
    from burnqed.lean.errors import LeanConfigError, LeanStartupError, PoolExhausted
    from burnqed.lean.statement import StatementError
    from burnqed.ebm.errors import EBMCheckpointError
    from burnqed.policy.errors import (
        PolicyEmbeddingsUnavailable,
        PolicyLoadError,
        PolicyServerError,
        SFTError,
    )
    from burnqed.trajectory.writer import TrajectoryWriteError
    from burnqed.writelock import LockHeld

    # a policy server that cannot be reached or refuses counts as an unusable input: policy.base_url / model
    kinds = (
        PolicyLoadError,
        PolicyServerError,
        PolicyEmbeddingsUnavailable,
        SFTError,  # fine-tuning cannot read what it was given (a corrupt earlier trajectory, a bad pairs file)
        EBMCheckpointError,
        TheoremSetError,
        TrajectoryWriteError,
        ClusterError,  # Ray missing (names the extra) or not reachable at cluster.address
        LeanConfigError,  # lean.backend cannot be launched as configured (no repl, no command)
        LeanStartupError,  # the Lean child did not start (wrong toolchain, missing Mathlib build)
        PoolExhausted,  # no Lean worker could be started or freed
        LeanDojoError,
        StatementError,
        ConfigError,
        LockHeld,  # another writer holds the run directory or the output
        BlueprintError,  # a BLUEPRINT.md that cannot be read (not UTF-8, emptied)
        RunOutputError,  # an output a run's iterations own
        CheckpointUnreadable,  # a run's checkpoint or held-out report that is there but damaged
    )
    return _found_in(exc, lambda e: isinstance(e, (*kinds, *_PATH_ERRORS, ValidationError)))
