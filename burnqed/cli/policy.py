"""Sub-commands of burnqed.policy: ``policy build-tiny``, ``policy pairs``, ``policy sft``, ``policy generate``, ``policy prompt``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig

__all__ = ["register", "resolve_base"]

NAMED_BASES = ("tiny", "smollm2-135m")


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    policy = sub.add_parser("policy", help="the policy model: build, fine-tune, sample")
    psub = policy.add_subparsers(dest="policy_command", metavar="ACTION", required=True)

    p = psub.add_parser("build-tiny", parents=[parent], help="build the offline tiny model (tokenizer + Llama)")
    p.add_argument("--output", type=Path, metavar="DIR", help="where to build it (default: paths.home/models/tiny)")
    p.add_argument("--force", action="store_true", help="rebuild even if the directory exists")
    p.set_defaults(handler=_build_tiny)

    p = psub.add_parser("pairs", parents=[parent], help="(state, tactic) pairs of a set's reference proofs, replayed in Lean")
    p.add_argument("--theorem-set", dest="theorem_set", required=True, metavar="NAME", help="a built-in theorem set")
    p.add_argument("--whole", action="store_true", help="pair each state with the rest of the proof (whole-proof model)")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="the first N statements only (0: all)")
    p.add_argument("--output", type=Path, required=True, metavar="FILE.jsonl", help="where the pairs go")
    p.set_defaults(handler=_pairs)

    p = psub.add_parser("sft", parents=[parent], help="fine-tune a policy on (state, tactic) pairs")
    p.add_argument("--pairs", type=Path, required=True, metavar="FILE", help=".jsonl {state, tactic} or trajectory .parquet")
    p.add_argument("--base", default="tiny", metavar="DIR|NAME", help=f"model directory or one of {', '.join(NAMED_BASES)}")
    p.add_argument("--output", type=Path, required=True, metavar="DIR", help="where the fine-tuned model goes")
    p.add_argument("--epochs", type=int, help="policy.sft.epochs")
    p.add_argument("--lr", type=float, help="policy.sft.learning_rate")
    p.add_argument("--batch-size", type=int, help="policy.sft.batch_size")
    p.add_argument("--lora", action="store_true", default=None, help="train LoRA adapters (needs burnqed[lora])")
    p.set_defaults(
        handler=_sft,
        config_overrides=lambda a: {
            "policy.sft.epochs": a.epochs,
            "policy.sft.learning_rate": a.lr,
            "policy.sft.batch_size": a.batch_size,
            "policy.sft.lora": a.lora,
        },
    )

    p = psub.add_parser("generate", parents=[parent], help="sample tactics for proof states")
    p.add_argument("states", nargs="+", metavar="STATE", help="rendered proof state, e.g. 'n : ℕ\\n⊢ n + 0 = n'")
    p.add_argument("--model", default=None, metavar="DIR|NAME", help="model directory (default: policy.model_dir or tiny)")
    p.add_argument("-n", type=int, default=4, help="samples per state")
    p.add_argument("--temperature", type=float, help="policy.temperature (0 = greedy)")
    p.add_argument("--format", dest="prompt_format", choices=["plain", "deepseek-v2"], help="policy.prompt_format")
    p.add_argument("--preset", metavar="NAME", help="policy.preset (see `burnqed policy prompt --list`)")
    p.set_defaults(
        handler=_generate,
        config_overrides=lambda a: {
            "policy.temperature": a.temperature,
            "policy.prompt_format": a.prompt_format,
            "policy.preset": a.preset,
        },
    )

    p = psub.add_parser(
        "prompt", parents=[parent], help="print exactly what a model preset sends for a state (and theorem)"
    )
    p.add_argument("--preset", metavar="NAME", help="the preset (default: policy.preset); --list shows them")
    p.add_argument("--list", action="store_true", help="list the presets (name, kind, tokens, stop, source) and exit")
    p.add_argument("--state", default="", metavar="STATE", help="rendered proof state ('\\n' reads as a newline)")
    p.add_argument("--theorem", metavar="STATEMENT", help="the theorem's statement (a proposition or theorem form)")
    p.add_argument("--name", default="theorem", metavar="NAME", help="the theorem's name (default: theorem)")
    p.add_argument("--header", metavar="TEXT", help="the file header (imports, open); default: the preset's own")
    p.add_argument("--proof", action="append", default=[], metavar="TACTIC", help="a tactic of the proof so far (repeat)")
    p.add_argument("--tokenizer", type=Path, metavar="DIR", help="a tokenizer whose chat template renders chat presets")
    p.set_defaults(handler=_prompt)


def _prompt(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.data.theorems import Theorem
    from burnqed.policy.presets import PRESETS, PresetError, get_preset, render_prompt
    from burnqed.policy.types import PromptContext
    from burnqed.search.engine import prompt_context

    if args.list:
        for p in PRESETS.values():
            stop = ",".join(repr(s) for s in p.stop) or "EOS"
            print(f"{p.name}\t{p.kind}\t{'chat' if p.chat else 'completion'}\t{p.max_new_tokens}\t{stop}\t{p.source}")
        return 0
    unescape = lambda text: text.replace("\\n", "\n")  # noqa: E731 - a shell-typed newline
    state = unescape(args.state)
    try:
        preset = get_preset(args.preset or config.policy.preset_name)
        if args.theorem is not None:
            header = unescape(args.header) if args.header is not None else None
            theorem = Theorem(name=args.name, statement=unescape(args.theorem), header=header)
            ctx = prompt_context(theorem, state, [unescape(t) for t in args.proof])
        else:
            ctx = PromptContext(state=state, name=args.name, proof_so_far=tuple(unescape(t) for t in args.proof))
        tokenizer = None
        if args.tokenizer is not None:
            from burnqed.policy.openai_api import load_tokenizer

            tokenizer = load_tokenizer(args.tokenizer, trust_remote_code=config.policy.trust_remote_code)
        text = render_prompt(preset, ctx, tokenizer)
    except (PresetError, ValueError, OSError) as exc:
        print(f"burnqed policy prompt: {exc}", file=sys.stderr)
        return refusal_code(exc)
    sys.stdout.write(text)
    return 0


def refusal_code(exc: BaseException) -> int:
    """The README's exit-code scheme: 2 for an input refused before any work, 1 for work that failed."""
    from burnqed.files import DiskFull
    from burnqed.policy.errors import PolicyLoadError, SFTError
    from burnqed.policy.presets import PresetError

    if isinstance(exc, DiskFull):
        return 1
    if isinstance(exc, (PolicyLoadError, SFTError, PresetError, ValueError, FileNotFoundError, PermissionError)):
        return 2
    return 1


def resolve_base(spec: str | Path | None, config: BurnqedConfig) -> Path:
    """A model directory from a path or a name (``tiny``, ``smollm2-135m``), building it if needed."""
    if spec is None:
        spec = config.policy.model_dir or "tiny"
    if str(spec) == "tiny":
        from burnqed.policy.tiny import ensure_tiny_model

        return ensure_tiny_model(config.paths, config.policy.tiny)
    if str(spec) == "smollm2-135m":
        from burnqed.policy.smollm2 import ensure_smollm2

        return ensure_smollm2(config.paths)
    return Path(spec)


def _build_tiny(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.policy.tiny import build_tiny_model, tiny_corpus

    out = args.output or config.paths.tiny_model_dir
    if (Path(out) / "config.json").is_file() and not args.force:
        print(f"{out} already holds a model (use --force to rebuild)")
        return 0
    corpus = tiny_corpus(sets=config.policy.tiny.corpus_sets, home=config.paths.home)
    path = build_tiny_model(out, corpus, config=config.policy.tiny)
    print(path)
    return 0


def _pairs(args: argparse.Namespace, config: BurnqedConfig) -> int:
    import anyio

    from burnqed.data.sets import load_builtin
    from burnqed.data.theorems import TheoremSetError
    from burnqed.iteration.data import reference_pairs
    from burnqed.lean import LeanConfig, LeanPool
    from burnqed.lean.errors import LeanError

    async def replay(lean: LeanConfig, theorems: list[Any]) -> list[tuple[str, str]]:
        async with LeanPool(lean) as pool:
            return await reference_pairs(pool, theorems, concurrency=lean.num_workers, whole=args.whole)

    try:
        theorems = load_builtin(args.theorem_set, home=config.paths.home, config=config.data)
        theorems = theorems[: args.limit] if args.limit > 0 else theorems
        pairs = anyio.run(replay, config.lean, theorems)
        args.output.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps({"state": st, "tactic": t}, ensure_ascii=False) for st, t in pairs]
        args.output.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    except (TheoremSetError, LeanError, KeyError, OSError) as exc:
        print(f"burnqed policy pairs: {exc}", file=sys.stderr)
        return 1
    print(f"{len(pairs)} pairs from {len(theorems)} statements -> {args.output}")
    return 0


def _sft(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from burnqed.policy.errors import PolicyError
    from burnqed.policy.sft import load_pairs, sft_policy

    try:
        base = resolve_base(args.base, config)
        pairs = load_pairs(args.pairs)
        columns = [TextColumn("sft"), BarColumn(), TextColumn("{task.completed}/{task.total} loss {task.fields[loss]:.3f}")]
        with Progress(*columns, TimeRemainingColumn(), console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task("sft", total=None, loss=float("nan"))

            def tick(step: int, total: int, loss: float) -> None:
                progress.update(task, completed=step, total=total, loss=loss)

            report = sft_policy(base, pairs, args.output, config.policy.sft, policy_config=config.policy, progress=tick)
    except (PolicyError, OSError) as exc:
        print(f"burnqed policy sft: {exc}", file=sys.stderr)
        return refusal_code(exc)
    summary: dict[str, Any] = report.model_dump(exclude={"loss_curve"})
    summary["final_loss"] = report.final_loss
    print(json.dumps(summary, indent=2))
    return 0


def _generate(args: argparse.Namespace, config: BurnqedConfig) -> int:
    from burnqed.policy.errors import PolicyError
    from burnqed.policy.model import PolicyModel

    try:
        model = PolicyModel.load(resolve_base(args.model, config), config.policy)
        results = model.generate([s.replace("\\n", "\n") for s in args.states], args.n)
    except (PolicyError, OSError) as exc:
        print(f"burnqed policy generate: {exc}", file=sys.stderr)
        return refusal_code(exc)
    for state, cands in zip(args.states, results, strict=True):
        print(json.dumps({"state": state, "candidates": [c.model_dump(exclude={"answer"}) for c in cands]}, ensure_ascii=False))
    return 0
