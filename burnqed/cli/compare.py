"""``burnqed compare A.json B.json``: two eval reports paired statement by statement (registered with ``search``)."""

from __future__ import annotations

import argparse
import sys

from burnqed.config import BurnqedConfig

__all__ = ["add_bootstrap_flags", "compare_command"]


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_bootstrap_flags(parser: argparse.ArgumentParser) -> None:
    """``--resamples`` and ``--bootstrap-seed``, alike for ``burnqed compare`` and ``burnqed report``."""
    parser.add_argument("--resamples", type=_positive, default=10000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--bootstrap-seed", type=int, default=0, help="seed of the bootstrap resampling (default 0)")


def compare_command(args: argparse.Namespace, config: BurnqedConfig) -> int:
    """``burnqed compare A.json B.json``: B against A, a paired interval and McNemar p (burnqed.search.comparison)."""
    from rich.console import Console
    from rich.table import Table

    from burnqed.search.comparison import ComparisonError, compare_reports
    from burnqed.search.evaluation import load_report

    a, b = load_report(args.a), load_report(args.b)
    try:
        cmp = compare_reports(a, b, common_only=True, resamples=args.resamples, seed=args.bootstrap_seed)
    except ComparisonError as exc:
        print(f"burnqed compare: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(cmp.model_dump_json(indent=2))
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
    table.add_row(f"on the {cmp.n} paired", f"{cmp.rate_a:.1%}", f"{cmp.rate_b:.1%}")
    table.add_row("nodes (all)", str(a.budget.nodes_expanded), str(b.budget.nodes_expanded))
    table.add_row("only solved here", str(cmp.b), str(cmp.c))
    console.print(table)
    console.print(
        f"Δ solve rate (B − A): {cmp.diff_points:+.1f} points, {cmp.level:.0%} paired bootstrap interval "
        f"[{cmp.ci_lo:+.1f}, {cmp.ci_hi:+.1f}], exact McNemar p = {cmp.p_value:.3g} over {cmp.n} statements"
    )
    left_out = [f"{cmp.outside_fragment} outside the fragment"] if cmp.outside_fragment else []
    if cmp.not_paired:
        left_out.append(f"{cmp.not_paired} in only one report (or a different statement)")
    if left_out:
        console.print("left out: " + ", ".join(left_out))
    for title, names in (("only A", cmp.only_a or []), ("only B", cmp.only_b or [])):
        if names:
            console.print(f"{title}: {', '.join(names[:20])}{' …' if len(names) > 20 else ''}")
    return 0
