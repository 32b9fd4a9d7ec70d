"""Sub-commands of burnqed.data: ``burnqed data list|show|generate|automation-share|import|world``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from burnqed.config import BurnqedConfig

if TYPE_CHECKING:
    from burnqed.data.theorems import Theorem

__all__ = ["register"]


@contextmanager
def _progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr; yields the per-item callback."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda _index: bar.advance(task)


def _resolve(name: str, config: BurnqedConfig) -> list[Theorem]:
    """A built-in set by name, else a JSON Lines file by path."""
    from burnqed.data.sets import builtin_sets, load_builtin
    from burnqed.data.theorems import load_theorems

    if name in builtin_sets():
        return load_builtin(name, home=config.paths.home, config=config.data)
    return load_theorems(Path(name))


def _list(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.sets import BUILTIN_SETS

    for name, description in BUILTIN_SETS.items():
        print(f"{name:<16} {description}")
    return 0


def _show(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.theorems import TheoremSetError

    try:
        theorems = _resolve(args.name, config)
    except TheoremSetError as exc:
        print(f"burnqed data show: {exc}", file=sys.stderr)
        return 1
    shown = theorems[: args.limit] if args.limit else theorems
    for thm in shown:
        if args.json:
            print(json.dumps(thm.model_dump(exclude_none=True), ensure_ascii=False))
            continue
        print(f"{thm.name}  [{', '.join(thm.tags)}]\n  {thm.statement}")
        if thm.proof:
            print("  proof: " + "; ".join(thm.proof))
    if not args.json:
        print(f"({len(shown)} of {len(theorems)} theorems)")
    return 0


def _generate(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.benchmark import (
        TEST_SEED,
        TEST_SIZE,
        BenchmarkError,
        generate,
        generate_train,
    )
    from burnqed.data.sets import held_out_hashes
    from burnqed.data.theorems import save_theorems
    from burnqed.embedded.repl.verify import new_checker

    checker = None if args.no_verify else new_checker(config.data.verify_timeout_s)
    try:
        if args.split == "test":
            size = args.size or TEST_SIZE
            seed = TEST_SEED if args.seed is None else args.seed
            with _progress(f"generating test ({size})", size) as tick:
                theorems = generate(
                    "test", size, seed, checker=checker, verify=not args.no_verify,
                    max_attempts=config.data.max_attempts, progress=tick,
                )  # fmt: skip
        else:
            size = args.size or config.data.train_size
            seed = config.data.train_seed if args.seed is None else args.seed
            with _progress(f"generating train ({size})", size) as tick:
                theorems = generate_train(
                    size, seed, checker=checker, verify=not args.no_verify, held_out=held_out_hashes(),
                    max_attempts=config.data.max_attempts, progress=tick,
                )  # fmt: skip
    except BenchmarkError as exc:
        print(f"burnqed data generate: {exc}", file=sys.stderr)
        return 1
    save_theorems(args.output, theorems)
    print(f"wrote {len(theorems)} theorems ({args.split}, seed {seed}) to {args.output}")
    return 0


def _automation_share(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.automation import automation_share
    from burnqed.data.theorems import TheoremSetError

    try:
        theorems = _resolve(args.name, config)
    except TheoremSetError as exc:
        print(f"burnqed data automation-share: {exc}", file=sys.stderr)
        return 1
    if args.limit:
        theorems = theorems[: args.limit]
    tactics = args.tactics.split(",") if args.tactics else config.data.automation_tactics
    with _progress(f"automation on {args.name}", len(theorems)) as tick:
        result = automation_share(theorems, tactics, timeout_s=config.data.verify_timeout_s, progress=tick)
    print(json.dumps({"set": args.name, **result.model_dump()}, indent=2, ensure_ascii=False))
    return 0


def _import(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.leandojo import LeanDojoError, load_leandojo, write_pairs
    from burnqed.data.theorems import TheoremSetError, load_theorems, save_theorems

    if args.out.exists() and not args.force:
        print(f"burnqed data import: {args.out} exists (use --force to replace it)", file=sys.stderr)
        return 2
    try:
        if args.format == "minif2f":
            skipped: list[tuple[int, str]] = []
            theorems = load_theorems(args.file, split=args.split, skipped=None if args.strict else skipped)
            for lineno, reason in skipped:
                verb = "renamed" if reason.startswith("duplicate theorem name") else "skipped"
                print(f"{verb} {args.file}:{lineno}: {' '.join(reason.split())}", file=sys.stderr)
            if args.limit:
                theorems = theorems[: args.limit]
            save_theorems(args.out, theorems)
            splits: dict[str, int] = {}
            for thm in theorems:
                splits[thm.split or "-"] = splits.get(thm.split or "-", 0) + 1
            headers = len({thm.header for thm in theorems})
            per_split = ", ".join(f"{k} {v}" for k, v in sorted(splits.items()))
            dropped_count = sum(not r.startswith("duplicate theorem name") for _, r in skipped)
            dropped = f"; skipped {dropped_count} line(s) it cannot take (listed above; --strict refuses them)" if skipped else ""
            print(f"wrote {len(theorems)} theorems ({per_split}; {headers} distinct header(s)) to {args.out}{dropped}")
        else:
            pairs = load_leandojo(args.file, split=args.split, limit=args.limit or None)
            count = write_pairs(args.out, pairs)
            print(f"wrote {count} (state, tactic) pairs to {args.out}; train on them with "
                  f"`burnqed policy sft --pairs {args.out}` or iteration.extra_pairs")  # fmt: skip
    except (TheoremSetError, LeanDojoError) as exc:
        print(f"burnqed data import: {exc}", file=sys.stderr)
        return 1
    return 0


async def _world(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.minif2f_world import WORLD_FILES, WorldError, build_world
    from burnqed.lean.pool import LeanPool

    present = [name for name in WORLD_FILES if (args.out / name).exists()]
    if present and not args.force:
        print(f"burnqed data world: {args.out} already holds {', '.join(present)} (use --force to replace)",
              file=sys.stderr)  # fmt: skip
        return 2
    share = config.data.world_tune_share if args.tune_share is None else args.tune_share
    seed = config.data.world_tune_seed if args.tune_seed is None else args.tune_seed
    try:
        async with LeanPool(config.lean) as pool:
            record = await build_world(args.file, args.out, pool, tune_share=share, tune_seed=seed,
                                       pool_split=args.pool_split, test_split=args.test_split)  # fmt: skip
    except WorldError as exc:
        print(f"burnqed data world: {exc}", file=sys.stderr)
        return 1
    for verdict in record.left_out:
        print(f"left out {verdict.split or '-'}/{verdict.name}: {verdict.verdict}: {verdict.detail}", file=sys.stderr)
    read = ", ".join(f"{k} {v}" for k, v in record.read_total.items())
    print(f"read {read}; {len(record.left_out)} left out ({record.backend} backend); wrote to {args.out}: "
          f"pool.jsonl {len(record.pool)}, tune.jsonl {len(record.tune)}, test.jsonl {len(record.test)}, world.json")
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    data = sub.add_parser("data", parents=[parent], help="built-in theorem sets and the benchmark generator")
    dsub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)

    lst = dsub.add_parser("list", parents=[parent], help="list the built-in theorem sets")
    lst.set_defaults(handler=_list)

    show = dsub.add_parser("show", parents=[parent], help="print a built-in set (or a JSONL file)")
    show.add_argument("name", help="core | benchmark-test | benchmark-train | path/to/set.jsonl")
    show.add_argument("--limit", type=int, default=0, help="show only the first N theorems")
    show.add_argument("--json", action="store_true", help="one JSON object per line")
    show.set_defaults(handler=_show)

    gen = dsub.add_parser("generate", parents=[parent], help="generate a benchmark set with checked proofs")
    gen.add_argument("--split", choices=("train", "test"), default="train")
    gen.add_argument("--size", type=int, default=0, help="statements (default: data.train_size, or 300 for test)")
    gen.add_argument("--seed", type=int, default=None, help="seed (default: data.train_seed, or the fixed test seed)")
    gen.add_argument("--output", required=True, type=Path, help="JSON Lines file to write")
    gen.add_argument("--no-verify", action="store_true", help="skip checking the reference proofs")
    gen.set_defaults(handler=_generate)

    share = dsub.add_parser(
        "automation-share", parents=[parent], help="share of a set closed by one automation tactic alone"
    )
    # positional, because --set is the global config override
    share.add_argument("name", nargs="?", default="benchmark-test", help="built-in set name or JSONL path")
    share.add_argument("--tactics", default="", help="comma-separated (default: data.automation_tactics)")
    share.add_argument("--limit", type=int, default=0, help="only the first N theorems")
    share.set_defaults(handler=_automation_share)

    imp = dsub.add_parser(
        "import", parents=[parent], help="import the field's data: a miniF2F-style benchmark or LeanDojo tactic pairs"
    )
    imp.add_argument("file", type=Path, help="minif2f: a JSONL file; leandojo: a JSON/JSONL file or a dataset directory")
    imp.add_argument("--format", choices=("minif2f", "leandojo"), required=True)
    imp.add_argument("--split", help="keep one split (minif2f: valid/test; leandojo: train/val/test of a directory)")
    imp.add_argument("--limit", type=int, default=0, help="keep only the first N theorems / pairs")
    imp.add_argument("--out", type=Path, required=True, help="theorem set (minif2f) or pairs file (leandojo) to write")
    imp.add_argument("--force", action="store_true", help="replace --out if it exists")
    imp.add_argument(
        "--strict", action="store_true", help="minif2f: fail on the first line that cannot be imported (default: skip it, named)"
    )
    imp.set_defaults(handler=_import)

    world = dsub.add_parser(
        "world", parents=[parent],
        help="a miniF2F file's in-fragment statements as a world: pool (valid minus tuning), tuning and test files",
    )  # fmt: skip
    world.add_argument("file", type=Path, help="a miniF2F-style JSONL with both splits (e.g. DeepSeek-Prover-V1.5's)")
    world.add_argument("--out", type=Path, required=True, help="folder for pool.jsonl, tune.jsonl, test.jsonl, world.json")
    world.add_argument("--tune-share", type=float, help="share of the valid split for tuning (data.world_tune_share)")
    world.add_argument("--tune-seed", type=int, help="seed of the tuning split's rule (data.world_tune_seed)")
    world.add_argument("--pool-split", default="valid", help="the split that is the pool and the tuning split")
    world.add_argument("--test-split", default="test", help="the held-out split, never tuned on")
    world.add_argument("--force", action="store_true", help="replace the world's files in --out")
    world.set_defaults(handler=_world)
