"""`burnqed report RUN`: the held-out results of expert-iteration runs, with honest statistics.

For each run directory (one seed) and each iteration N, read ``eval_results/iter_N_no_ebm.json``
and ``iter_N.json`` (EvalReports) and compute:

- the solve rate without and with the energy head, each with a bootstrap interval;
- Δ vs iteration 0: iteration N's no-EBM report paired with iteration 0's no-EBM report on
  the same statements (difference in points, paired bootstrap interval, exact McNemar p);
- the energy-head ablation: iteration N with against without the head, same statements and
  budget (skipped where no head was trained: the with-EBM report is then a copy).

With several run dirs a pooled row per iteration concatenates the pairs of every seed.
Other reports in eval_results named ``iter_N_<suffix>.json`` (re-evaluations) become extra
rows, paired against ``iter_0_<suffix>.json`` when it exists, else against iteration 0's
no-EBM report when the statements match. ``run_report`` builds the ``RunReport`` model,
``render_tables`` the rich tables and ``write_chart`` a PNG; nothing here prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.iteration.errors import EvalReportMissing, ReportError, StatementSetMismatch
from burnqed.iteration.layout import RunLayout
from burnqed.iteration.statistics import (
    PairedComparison,
    PairedOutcomes,
    bootstrap_rate,
    compare_pairs,
    pair_reports,
    pool_pairs,
)
from burnqed.search.evaluation import EvalReport, load_report

__all__ = ["EvalRow", "RateCell", "RunReport", "render_tables", "run_report", "write_chart"]

POOLED = "pooled"
_MAIN = re.compile(r"^iter_(\d+)(_no_ebm)?\.json$")
_EXTRA = re.compile(r"^iter_(\d+)_(.+)\.json$")
# search budgets that must match for the with/without-EBM ablation to be at equal budget
_BUDGET_KEYS = ("max_nodes", "num_candidates", "max_depth", "time_limit_s")


class RateCell(BaseModel):
    """One evaluation's solve rate on the statements inside the fragment."""

    model_config = ConfigDict(frozen=True)

    solved: int
    n: int = Field(description="statements inside the fragment")
    rate: float
    ci_lo: float = Field(description="bootstrap interval of the rate (fraction)")
    ci_hi: float
    report: str = Field(description="the EvalReport file (several, joined by ', ', when pooled)")


class EvalRow(BaseModel):
    """One iteration of one run (or pooled over runs), or one extra report."""

    model_config = ConfigDict(frozen=True)

    seed: str = Field(description='the run (its directory name), or "pooled"')
    iteration: int
    name: str = Field(description='"iter_N" for the iteration rows, the file stem for extra rows')
    evaluated: bool
    no_ebm: RateCell | None = None
    ebm: RateCell | None = None
    ebm_evaluated: bool = Field(default=False, description="a with-EBM report exists (iter_N.json)")
    energy_head: bool = Field(default=False, description="the with-EBM evaluation used an energy head")
    vs_iter0: PairedComparison | None = Field(default=None, description="no-EBM of N against the baseline of iteration 0")
    ebm_ablation: PairedComparison | None = Field(default=None, description="with against without the head")
    notes: list[str] = Field(default_factory=list)


class RunReport(BaseModel):
    """Everything `burnqed report` shows."""

    model_config = ConfigDict(frozen=True)

    runs: list[str] = Field(description="the run directories, one per seed")
    seeds: list[str] = Field(description="their labels in the rows")
    iterations: list[int]
    rows: list[EvalRow] = Field(description="per iteration: one row per seed, then the pooled row")
    extra: list[EvalRow] = Field(default_factory=list, description="other eval reports (re-evaluations)")
    resamples: int
    seed: int
    level: float
    chart: str | None = None


class _Run:
    """The eval reports of one run directory."""

    def __init__(self, path: Path, label: str) -> None:
        self.path = path
        self.label = label
        self.layout = RunLayout(path)
        self.main: dict[tuple[int, bool], EvalReport] = {}
        self.extra: dict[str, tuple[int, EvalReport | str]] = {}
        directory = self.layout.eval_results_dir
        if not path.is_dir():
            raise EvalReportMissing(str(path), "no such run directory")
        files = sorted(directory.glob("iter_*.json")) if directory.is_dir() else []
        for file in files:
            main = _MAIN.match(file.name)
            if main:
                self.main[(int(main.group(1)), main.group(2) is None)] = _load(file)
            elif extra := _EXTRA.match(file.name):
                try:
                    self.extra[file.stem] = (int(extra.group(1)), load_report(file))
                except (ValueError, ValidationError) as exc:
                    self.extra[file.stem] = (int(extra.group(1)), f"not an eval report: {_first_line(exc)}")
        baseline = self.layout.eval_result(0, False)
        if not self.main:
            raise EvalReportMissing(str(baseline), "missing (no held-out evaluation in this run)")
        if (0, False) not in self.main:
            raise EvalReportMissing(str(baseline), "missing (iteration 0 without the energy head is the baseline)")

    @property
    def last(self) -> int:
        return max(index for index, _ in self.main)

    def file(self, index: int, with_ebm: bool) -> str:
        return str(self.layout.eval_result(index, with_ebm))


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _load(path: Path) -> EvalReport:
    try:
        return load_report(path)
    except (ValueError, ValidationError) as exc:
        raise EvalReportMissing(str(path), f"not an eval report ({_first_line(exc)})") from exc


def _inside(report: EvalReport) -> list[bool]:
    return [o.proved for o in report.outcomes if o.reason != "outside_fragment"]


class _Stats:
    """The bootstrap settings, applied alike to every cell and comparison."""

    def __init__(self, resamples: int, seed: int, level: float) -> None:
        self.resamples, self.seed, self.level = resamples, seed, level

    def cell(self, solved: list[bool], report: str) -> RateCell | None:
        if not solved:
            return None
        rate, lo, hi = bootstrap_rate(solved, resamples=self.resamples, seed=self.seed, level=self.level)
        return RateCell(solved=sum(solved), n=len(solved), rate=rate, ci_lo=lo, ci_hi=hi, report=report)

    def compare(self, pairs: PairedOutcomes | None) -> PairedComparison | None:
        if pairs is None or not pairs.a:
            return None
        return compare_pairs(pairs, resamples=self.resamples, seed=self.seed, level=self.level)


def _budget_note(without: EvalReport, with_: EvalReport) -> str | None:
    a, b = without.search.model_dump(), with_.search.model_dump()
    differ = [f"{k} {a[k]} vs {b[k]}" for k in _BUDGET_KEYS if a.get(k) != b.get(k)]
    return "budgets differ (no EBM vs EBM): " + ", ".join(differ) if differ else None


def _pair(a: EvalReport, b: EvalReport, baseline: str, candidate: str, notes: list[str]) -> PairedOutcomes | None:
    try:
        pairs = pair_reports(a, b, baseline=baseline, candidate=candidate)
    except StatementSetMismatch as exc:
        notes.append(str(exc))
        return None
    if not pairs.a:
        notes.append(f"{candidate}: no statement inside the fragment")
        return None
    return pairs


class _Seed:
    """The rows of one run, and the pairs the pooled rows concatenate."""

    def __init__(self, run: _Run, index: int, stats: _Stats) -> None:
        self.run = run
        self.vs0: PairedOutcomes | None = None
        self.ablation: PairedOutcomes | None = None
        self.no_ebm: list[bool] = []
        self.ebm: list[bool] = []
        without = run.main.get((index, False))
        with_ = run.main.get((index, True))
        notes: list[str] = []
        name = f"iter_{index}"
        if without is None and with_ is None:
            self.row = EvalRow(seed=run.label, iteration=index, name=name, evaluated=False, notes=["not evaluated"])
            return
        head = with_ is not None and with_.ebm is not None
        if without is None:
            notes.append(f"{Path(run.file(index, False)).name} not evaluated")
        elif index > 0:
            self.vs0 = _pair(run.main[(0, False)], without, "iter_0_no_ebm", f"{name}_no_ebm", notes)
        if with_ is None:
            notes.append(f"{Path(run.file(index, True)).name} not evaluated")
        elif not head:
            notes.append("no energy head in this iteration")
        elif without is not None:
            self.ablation = _pair(without, with_, f"{name}_no_ebm", name, notes)
            budget = _budget_note(without, with_)
            if budget:
                notes.append(budget)
            reorder = _reorder_note(without)
            if reorder:
                notes.append(reorder)
        self.no_ebm = _inside(without) if without is not None else []
        self.ebm = _inside(with_) if with_ is not None and head else []
        self.row = EvalRow(
            seed=run.label,
            iteration=index,
            name=name,
            evaluated=True,
            no_ebm=stats.cell(self.no_ebm, run.file(index, False)) if without is not None else None,
            ebm=stats.cell(_inside(with_), run.file(index, True)) if with_ is not None else None,
            ebm_evaluated=with_ is not None,
            energy_head=head,
            vs_iter0=stats.compare(self.vs0),
            ebm_ablation=stats.compare(self.ablation),
            notes=notes,
        )


def _reorder_note(without: EvalReport) -> str | None:
    """Why the head may not matter: it only reorders the frontier, and searches that empty it explore everything."""
    unsolved = [o for o in without.outcomes if not o.proved and o.reason != "outside_fragment"]
    if not unsolved:
        return None
    emptied = sum(o.reason == "exhausted" for o in unsolved)
    return (
        f"the head only reorders the frontier: {emptied} of {len(unsolved)} unsolved searches emptied it "
        "within the node budget, where order cannot change the outcome"
    )


def _pooled_row(index: int, seeds: list[_Seed], stats: _Stats) -> EvalRow:
    name = f"iter_{index}"
    evaluated = [s for s in seeds if s.row.evaluated]
    notes = [f"{len(evaluated)} of {len(seeds)} runs evaluated"] if len(evaluated) < len(seeds) else []
    vs0 = [s.vs0 for s in seeds if s.vs0 is not None]
    ablation = [s.ablation for s in seeds if s.ablation is not None]
    if index > 0 and 0 < len(vs0) < len(seeds):
        notes.append(f"Δ vs iteration 0 pools {len(vs0)} of {len(seeds)} runs")
    if 0 < len(ablation) < len(seeds):
        notes.append(f"EBM ablation pools {len(ablation)} of {len(seeds)} runs")
    no_ebm = [x for s in seeds for x in s.no_ebm]
    ebm = [x for s in seeds for x in s.ebm]
    files = ", ".join
    return EvalRow(
        seed=POOLED,
        iteration=index,
        name=name,
        evaluated=bool(evaluated),
        no_ebm=stats.cell(no_ebm, files(s.run.file(index, False) for s in seeds if s.no_ebm)),
        ebm=stats.cell(ebm, files(s.run.file(index, True) for s in seeds if s.ebm)),
        ebm_evaluated=any(s.row.ebm_evaluated for s in seeds),
        energy_head=bool(ebm),
        vs_iter0=stats.compare(pool_pairs(vs0, baseline="iter_0_no_ebm", candidate=f"{name}_no_ebm") if vs0 else None),
        ebm_ablation=stats.compare(pool_pairs(ablation, baseline=f"{name}_no_ebm", candidate=name) if ablation else None),
        notes=notes if evaluated else ["not evaluated", *notes],
    )


def _extra_row(run: _Run, stem: str, index: int, loaded: EvalReport | str, stats: _Stats) -> EvalRow:
    file = str(run.layout.eval_results_dir / f"{stem}.json")
    if isinstance(loaded, str):
        return EvalRow(seed=run.label, iteration=index, name=stem, evaluated=False, notes=[loaded])
    notes: list[str] = []
    suffix = stem.split("_", 2)[2]
    cell = stats.cell(_inside(loaded), file)
    vs0: PairedOutcomes | None = None
    partner = f"iter_0_{suffix}"
    found = run.extra.get(partner)
    if partner != stem and found is not None and isinstance(found[1], EvalReport):
        vs0 = _pair(found[1], loaded, partner, stem, notes)
    else:
        try:
            vs0 = pair_reports(run.main[(0, False)], loaded, baseline="iter_0_no_ebm", candidate=stem)
        except StatementSetMismatch:
            notes.append(f"baseline of the iter_N_{suffix} reports" if partner == stem else
                         f"no baseline with the same statements (neither {partner}.json nor iter_0_no_ebm.json)")
    return EvalRow(
        seed=run.label,
        iteration=index,
        name=stem,
        evaluated=True,
        no_ebm=cell if loaded.ebm is None else None,
        ebm=cell if loaded.ebm is not None else None,
        ebm_evaluated=loaded.ebm is not None,
        energy_head=loaded.ebm is not None,
        vs_iter0=stats.compare(vs0),
        notes=notes,
    )


def _labels(paths: Sequence[Path]) -> list[str]:
    names = [p.resolve().name or str(p) for p in paths]
    if len(set(names)) == len(names):
        return names
    return [str(p) for p in paths]


def run_report(
    run_dirs: Sequence[str | Path], *, resamples: int = 10000, seed: int = 0, level: float = 0.95
) -> RunReport:
    """The report of one or more runs (each a seed of the same experiment).

    Raises EvalReportMissing (naming the file) when a run has no evaluation at all or lacks
    iteration 0's no-EBM report; iterations missing in some runs become "not evaluated" rows.
    """
    if not run_dirs:
        raise ReportError("no run directory given")
    paths = [Path(p) for p in run_dirs]
    stats = _Stats(resamples, seed, level)
    runs = [_Run(path, label) for path, label in zip(paths, _labels(paths), strict=True)]
    iterations = list(range(max(run.last for run in runs) + 1))
    rows: list[EvalRow] = []
    for index in iterations:
        seeds = [_Seed(run, index, stats) for run in runs]
        rows += [s.row for s in seeds]
        if len(runs) > 1:
            rows.append(_pooled_row(index, seeds, stats))
    extra = [
        _extra_row(run, stem, index, loaded, stats)
        for run in runs
        for stem, (index, loaded) in sorted(run.extra.items(), key=lambda kv: (kv[1][0], kv[0]))
    ]
    return RunReport(
        runs=[str(p) for p in paths],
        seeds=[run.label for run in runs],
        iterations=iterations,
        rows=rows,
        extra=extra,
        resamples=resamples,
        seed=seed,
        level=level,
    )


def _rate(cell: RateCell | None) -> str:
    return "—" if cell is None else f"{100 * cell.rate:.1f}% ({cell.solved}/{cell.n})"


def _diff(cmp: PairedComparison | None, missing: str = "—") -> tuple[str, str]:
    if cmp is None:
        return missing, ""
    return f"{cmp.diff_points:+.1f} [{cmp.ci_lo:+.1f}, {cmp.ci_hi:+.1f}] (-{cmp.b}/+{cmp.c})", _p(cmp.p_value)


def _p(p: float) -> str:
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def render_tables(report: RunReport) -> list[Any]:
    """The report as rich tables: the iterations, then the extra reports (when any)."""
    from rich.table import Table

    pct = round(100 * report.level)
    caption = (
        f"rates on the statements inside the fragment; Δ in points, [{pct}% paired bootstrap interval, "
        f"{report.resamples} resamples] (-lost/+gained statements); p: exact McNemar"
    )
    table = Table(title=f"held-out solve rate per iteration: {', '.join(report.runs)}", caption=caption)
    for column in ("iter", "run", "no EBM", "EBM", "Δ vs iter 0 (no EBM)", "p", "EBM − no EBM", "p ", "notes"):
        table.add_column(column, overflow="fold")
    for row in report.rows:
        if not row.evaluated:
            table.add_row(str(row.iteration), row.seed, "not evaluated", "", "", "", "", "", "; ".join(row.notes[1:]))
            continue
        vs0 = _diff(row.vs_iter0, "baseline" if row.iteration == 0 else "—")
        ablation = _diff(row.ebm_ablation, "—" if row.energy_head or not row.ebm_evaluated else "no head")
        ebm = _rate(row.ebm) if row.energy_head else "no head" if row.ebm_evaluated else "not evaluated"
        style = "bold" if row.seed == POOLED else None
        table.add_row(str(row.iteration), row.seed, _rate(row.no_ebm), ebm, *vs0, *ablation, "; ".join(row.notes),
                      style=style)
    tables: list[Any] = [table]
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
