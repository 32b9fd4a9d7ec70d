"""The ``RunReport`` of burnqed.iteration.report as rich tables and as a PNG chart (nothing here computes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from burnqed.iteration.report import POOLED, BudgetBinding, RateCell, RunReport
from burnqed.search.comparison import PairedComparison
from burnqed.search.ranking import RankingQuality

__all__ = ["render_tables", "write_chart"]


def _rate(cell: RateCell | None) -> str:
    return "—" if cell is None else f"{100 * cell.rate:.1f}% ({cell.solved}/{cell.n})"


def _rate_ci(cell: RateCell | None) -> str:
    if cell is None:
        return "—"
    return f"{_rate(cell)} [{100 * cell.ci_lo:.0f}, {100 * cell.ci_hi:.0f}]"


def _diff(cmp: PairedComparison | None, missing: str = "—") -> tuple[str, str]:
    if cmp is None:
        return missing, ""
    return f"{cmp.diff_points:+.1f} [{cmp.ci_lo:+.1f}, {cmp.ci_hi:+.1f}] (-{cmp.b}/+{cmp.c})", _p(cmp.p_value)


def _p(p: float) -> str:
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _binding(budget: BudgetBinding | None) -> str:
    if budget is None or budget.share is None:
        return "—"
    growth = "" if budget.new_per_expansion is None else f"; {budget.new_per_expansion:.2f} new states/expansion"
    return f"{budget.at_budget}/{budget.unsolved} ({100 * budget.share:.0f}%){growth}"


def _ranking(ranking: RankingQuality | None) -> str:
    if ranking is None or ranking.head is None:
        return "—"

    def num(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    head, policy = ranking.head, ranking.policy
    return (f"AUC {num(head.auc)} ({num(policy.auc)}), top-1 {num(head.top1)} ({num(policy.top1)}); "
            f"{ranking.theorems} proofs")


def render_tables(report: RunReport) -> list[Any]:
    """The report as rich tables: the iterations, then the extra reports (when any)."""
    from rich.table import Table

    pct = round(100 * report.level)
    caption = (
        f"rates on the statements inside the fragment; Δ in points, [{pct}% paired bootstrap interval, "
        f"{report.resamples} resamples] (-lost/+gained statements); p: exact McNemar; pooled rows: seeds pooled "
        "by statement (the interval resamples statements with every seed's outcomes, p: exact sign-flip test "
        "on per-statement sums)"
    )
    caption += (
        "; budget binds: unsolved searches (no EBM) that ended at the node budget, not with an empty frontier; "
        "ranking: AUC proof-path vs off-path states and top-1 among siblings, head (policy) on the proved with-EBM searches"
    )
    table = Table(title=f"held-out solve rate per iteration: {', '.join(report.runs)}", caption=caption)
    columns = ("iter", "run", "no EBM", "EBM", "Δ vs iter 0 (no EBM)", "p", "EBM − no EBM", "p ", "budget binds",
               "ranking", "notes")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in report.rows:
        if not row.evaluated:
            table.add_row(str(row.iteration), row.seed, "not evaluated", "", "", "", "", "", "", "",
                          "; ".join(row.notes[1:]))
            continue
        vs0 = _diff(row.vs_iter0, "baseline" if row.iteration == 0 else "—")
        ablation = _diff(row.ebm_ablation, "—" if row.energy_head or not row.ebm_evaluated else "no head")
        ebm = _rate(row.ebm) if row.energy_head else "no head" if row.ebm_evaluated else "not evaluated"
        style = "bold" if row.seed == POOLED else None
        table.add_row(str(row.iteration), row.seed, _rate(row.no_ebm), ebm, *vs0, *ablation, _binding(row.budget),
                      _ranking(row.ranking), "; ".join(row.notes), style=style)
    tables: list[Any] = [table]
    if report.splits:
        splits = Table(title="the held-out split each evaluation used",
                       caption="tune: the tuning split, where every choice is made; test: the test split, evaluated "
                               "once per final configuration; own: a file or another set")
        for column in ("run", "split", "theorem set", "evaluations"):
            splits.add_column(column, overflow="fold")
        for row in report.splits:
            splits.add_row(row.seed, row.split, row.theorem_set, ", ".join(row.evaluations))
        tables.append(splits)
    if report.baselines:
        base = Table(
            title="the last iteration (no EBM) against each baseline, same statements and node budget",
            caption="Δ = last iteration − baseline, in points [paired bootstrap interval] (-lost/+gained); "
                    "p: exact McNemar (pooled: exact sign-flip by statement); "
                    "* = the best baseline (highest solve rate), the one to beat",
        )
        for column in ("run", "baseline", "rate", "last", "Δ last − baseline", "p", "notes"):
            base.add_column(column, overflow="fold")
        for row in report.baselines:
            name = f"{'* ' if row.best else ''}{row.name}" + (f" ({row.description})" if row.description else "")
            base.add_row(row.seed, name, _rate(row.rate), f"iter_{row.last}", *_diff(row.vs_last),
                         "; ".join(row.notes), style="bold" if row.seed == POOLED else None)
        tables.append(base)
    if report.controls:
        controls = Table(
            title="the energy head beside its non-learned controls, same statements and node budget",
            caption="Δ: the arm against the policy's order alone (iteration N without head or control); "
                    "the last row: the head against the best control (*), the only comparison a head claim "
                    "stands on; p: exact McNemar (pooled: exact sign-flip by statement)",
        )
        for column in ("iter", "run", "arm", "rate", "Δ", "p", "notes"):
            controls.add_column(column, overflow="fold")
        for row in report.controls:
            controls.add_row(str(row.iteration), row.seed, f"{'* ' if row.best else ''}{row.arm}", _rate(row.rate),
                             *_diff(row.compared), "; ".join(row.notes),
                             style="bold" if row.seed == POOLED else None)
        tables.append(controls)
    if report.groups:
        arms = list(dict.fromkeys(arm for row in report.groups for arm in row.rates))
        depth = Table(
            title="solve rate per depth (family), every arm on the same statements",
            caption=f"rate ({100 * report.level:.0f}% bootstrap interval); pooled: seeds pooled by statement",
        )
        for column in ("run", "group", "statements", *arms):
            depth.add_column(column, overflow="fold")
        for row in report.groups:
            depth.add_row(row.seed, row.group, str(row.statements),
                          *(_rate_ci(row.rates.get(arm)) for arm in arms),
                          style="bold" if row.seed == POOLED else None)
        tables.append(depth)
    if report.extra:
        extra = Table(title="other evaluations in eval_results", caption="Δ against the baseline named in 'vs'")
        for column in ("iter", "run", "report", "rate", "EBM", "vs", "Δ", "p", "notes"):
            extra.add_column(column, overflow="fold")
        for row in report.extra:
            cell = row.ebm or row.no_ebm
            vs = row.vs_iter0.baseline if row.vs_iter0 else "—"
            extra.add_row(str(row.iteration), row.seed, row.name, _rate(cell) if row.evaluated else "unreadable",
                          "yes" if row.energy_head else "no", vs, *_diff(row.vs_iter0), "; ".join(row.notes))
        tables.append(extra)
    return tables


def write_chart(report: RunReport, path: str | Path) -> Path:
    """A PNG of the solve rate per iteration, bootstrap intervals as error bars (Agg backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure = Figure(figsize=(7, 4.5), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    series = [*report.seeds, POOLED] if len(report.seeds) > 1 else list(report.seeds)
    colours = [f"C{i}" for i in range(len(series) - (len(series) > 1))] + (["black"] if len(series) > 1 else [])
    width = 0.08
    for k, (label, colour) in enumerate(zip(series, colours, strict=True)):
        rows = [r for r in report.rows if r.seed == label and r.evaluated]
        for which, style, offset in (("no_ebm", "-o", -width / 2), ("ebm", "--s", width / 2)):
            points = [(r.iteration, getattr(r, which)) for r in rows
                      if getattr(r, which) is not None and (which == "no_ebm" or r.energy_head)]
            if not points:
                continue
            shift = offset + (k - (len(series) - 1) / 2) * width
            xs = [i + shift for i, _ in points]
            ys = [100 * c.rate for _, c in points]
            low = [100 * (c.rate - c.ci_lo) for _, c in points]
            high = [100 * (c.ci_hi - c.rate) for _, c in points]
            name = f"{label}, {'with' if which == 'ebm' else 'without'} EBM"
            axes.errorbar(xs, ys, yerr=[low, high], fmt=style, color=colour, capsize=3, label=name,
                          linewidth=2 if label == POOLED else 1.2)
    axes.set_xticks(report.iterations)
    axes.set_xlabel("iteration")
    axes.set_ylabel("held-out solve rate (%)")
    axes.set_title(f"held-out solve rate ({round(100 * report.level)}% bootstrap intervals)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(out, format="png")
    return out
