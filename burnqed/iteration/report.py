"""`burnqed report RUN`: the held-out results of expert-iteration runs, with honest statistics.

For each run directory (one seed) and each iteration N, read ``eval_results/iter_N_no_ebm.json``
and ``iter_N.json`` (EvalReports) and compute:

- the solve rate without and with the energy head, each with a bootstrap interval;
- Δ vs iteration 0: iteration N's no-EBM report paired with iteration 0's no-EBM report on
  the same statements (difference in points, paired bootstrap interval, exact McNemar p);
- the energy-head ablation: iteration N with against without the head, same statements and
  budget (skipped where no head was trained: the with-EBM report is then a copy).

Beside the ablation each row shows whether the budget binds (the share of unsolved searches
without the head that ended at the node budget rather than with an empty frontier: only there
can an ordering change an outcome) and the head's ranking quality on the held-out searches it
proved (AUC proof-path vs off-path states, top-1 among siblings; the policy's order beside it).

Baselines: reports named ``eval_results/baseline_<name>.json`` (written by
burnqed.iteration.baselines: the rule policy alone, a policy fine-tuned on every reference
proof available) and iteration 0 itself; the last evaluated iteration (no head) is paired
with each, and the best of them (highest solve rate) is marked.

With several run dirs a pooled row per iteration pools the seeds by statement: a statement
several seeds evaluated is one cluster (the interval resamples statements with all their
seeds' outcomes; the p-value is the exact sign-flip test on per-statement sums, see
burnqed.search.comparison), while statements only one seed holds simply add up.
Per-depth rows (``groups``): each arm's solve rate (every iteration without and with the
head, every baseline) on the statements of one depth (the theorem's ``depth:N`` tag; else its
``family:X`` tag), per run and pooled by statement. The tags come from the reports' outcomes;
reports written before outcomes carried tags are looked up in their built-in theorem set
(``theorem_set``, e.g. depth-test) by statement hash.

The head beside its controls (``controls``, burnqed.iteration.report_controls): reports named
``iter_N_control_<name>.json`` (a non-learned priority in place of the head) are paired with
iteration N without the head, and the head with the best control.

Splits (``splits``, burnqed.iteration.report_splits): per run, which held-out split each
evaluation used (``test``, ``tune``, or the run's own file), from its report's ``theorem_set``.

Other reports in eval_results named ``iter_N_<suffix>.json`` (re-evaluations) become extra
rows, paired against ``iter_0_<suffix>.json`` when it exists, else against iteration 0's
no-EBM report when the statements match. The statistics are ``burnqed.search.comparison``'s
(the one paired comparison). ``run_report`` builds the ``RunReport`` model,
burnqed.iteration.report_view the rich tables and the PNG; nothing here prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.iteration.errors import EvalReportMissing, ReportError
from burnqed.iteration.layout import RunLayout
from burnqed.iteration.report_cells import (
    POOLED, RateCell, Stats, budget_note, inside_names, inside_proved, pair_or_note,
)  # fmt: skip
from burnqed.iteration.report_controls import CONTROL_STEM, ControlRow, control_rows, run_arms
from burnqed.iteration.report_groups import GroupRow, group_rows
from burnqed.iteration.report_splits import SplitRow, split_rows
from burnqed.search.comparison import PairedComparison, PairedOutcomes, StatementSetMismatch, pair_reports, pool_pairs
from burnqed.search.evaluation import EvalReport, load_report
from burnqed.search.ranking import RankingQuality, merge_ranking

__all__ = ["POOLED", "BaselineRow", "BudgetBinding", "ControlRow", "EvalRow", "GroupRow", "RateCell", "RunReport",
           "SplitRow", "best_baseline_rows", "run_report"]

_MAIN = re.compile(r"^iter_(\d+)(_no_ebm)?\.json$")
_EXTRA = re.compile(r"^iter_(\d+)_(.+)\.json$")
_BASELINE = re.compile(r"^baseline_(.+)\.json$")


class BudgetBinding(BaseModel):
    """How the unsolved searches of an evaluation ended: at the node budget, or with an empty frontier."""

    model_config = ConfigDict(frozen=True)

    unsolved: int = Field(description="searched statements not proved")
    at_budget: int = Field(description="ended at the node budget (reason node_budget)")
    emptied: int = Field(description="ended with an empty frontier (reason exhausted)")
    share: float | None = Field(description="at_budget / unsolved: the budget binds when at least one half")
    new_per_expansion: float | None = Field(
        default=None, description="new open states per expanded state, over every search (the frontier's growth)"
    )

    @classmethod
    def of(cls, reports: Sequence[EvalReport]) -> BudgetBinding:
        """The counts over one or more reports."""
        unsolved = [o for r in reports for o in r.outcomes if not o.proved and o.reason != "outside_fragment"]
        at_budget = sum(o.reason == "node_budget" for o in unsolved)
        expanded = sum(r.budget.nodes_expanded for r in reports)
        return cls(unsolved=len(unsolved), at_budget=at_budget, emptied=sum(o.reason == "exhausted" for o in unsolved),
                   share=at_budget / len(unsolved) if unsolved else None,
                   new_per_expansion=sum(r.budget.children_new for r in reports) / expanded if expanded else None)


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
    budget: BudgetBinding | None = Field(default=None, description="how the unsolved searches without the head ended")
    ranking: RankingQuality | None = Field(
        default=None, description="the head's (and the policy's) ranking quality on the with-EBM evaluation"
    )
    notes: list[str] = Field(default_factory=list)


class BaselineRow(BaseModel):
    """One baseline of one run (or pooled), and the last iteration paired against it."""

    model_config = ConfigDict(frozen=True)

    seed: str = Field(description='the run, or "pooled"')
    name: str = Field(description='"iter_0", or the <name> of eval_results/baseline_<name>.json')
    description: str = Field(default="", description="what the baseline is (its report's label and policy)")
    rate: RateCell | None = None
    last: int = Field(description="the iteration compared (the last one evaluated without the head)")
    vs_last: PairedComparison | None = Field(default=None, description="baseline (A) against the last iteration (B)")
    best: bool = Field(default=False, description="the highest solve rate among this run's baselines")
    notes: list[str] = Field(default_factory=list)


class RunReport(BaseModel):
    """Everything `burnqed report` shows."""

    model_config = ConfigDict(frozen=True)

    runs: list[str] = Field(description="the run directories, one per seed")
    seeds: list[str] = Field(description="their labels in the rows")
    iterations: list[int]
    rows: list[EvalRow] = Field(description="per iteration: one row per seed, then the pooled row")
    extra: list[EvalRow] = Field(default_factory=list, description="other eval reports (re-evaluations)")
    baselines: list[BaselineRow] = Field(
        default_factory=list, description="per run (then pooled): iteration 0 and each baseline report vs the last iteration"
    )
    groups: list[GroupRow] = Field(
        default_factory=list, description="per depth (or family): per run, then pooled, each arm's solve rate"
    )
    controls: list[ControlRow] = Field(
        default_factory=list, description="the head beside its non-learned controls (iter_N_control_<name>.json)"
    )
    splits: list[SplitRow] = Field(default_factory=list, description="per run and held-out set: the split evaluated")
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
        self.baselines: dict[str, EvalReport | str] = {}
        directory = self.layout.eval_results_dir
        if not path.is_dir():
            raise EvalReportMissing(str(path), "no such run directory")
        files = sorted(directory.glob("iter_*.json")) if directory.is_dir() else []
        for file in sorted(directory.glob("baseline_*.json")) if directory.is_dir() else []:
            if named := _BASELINE.match(file.name):
                try:
                    self.baselines[named.group(1)] = load_report(file)
                except (ValueError, ValidationError) as exc:
                    self.baselines[named.group(1)] = f"not an eval report: {_first_line(exc)}"
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


class _Seed:
    """The rows of one run, and the pairs the pooled rows concatenate."""

    def __init__(self, run: _Run, index: int, stats: Stats) -> None:
        self.run = run
        self.vs0: PairedOutcomes | None = None
        self.ablation: PairedOutcomes | None = None
        self.no_ebm: list[bool] = []
        self.ebm: list[bool] = []
        self.no_ebm_names: list[str] = []
        self.ebm_names: list[str] = []
        self.without = run.main.get((index, False))
        self.ranking: RankingQuality | None = None
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
            self.vs0 = pair_or_note(run.main[(0, False)], without, "iter_0_no_ebm", f"{name}_no_ebm", notes)
            budget = budget_note(run.main[(0, False)], without, f"iter_0 vs {name}, no EBM")
            if budget:
                notes.append(budget)
        if with_ is None:
            notes.append(f"{Path(run.file(index, True)).name} not evaluated")
        elif not head:
            notes.append("no energy head in this iteration")
        elif without is not None:
            self.ablation = pair_or_note(without, with_, f"{name}_no_ebm", name, notes)
            budget = budget_note(without, with_)
            if budget:
                notes.append(budget)
            self.ranking = with_.ranking
        self.no_ebm = inside_proved(without) if without is not None else []
        self.ebm = inside_proved(with_) if with_ is not None and head else []
        self.no_ebm_names = inside_names(without) if without is not None else []
        self.ebm_names = inside_names(with_) if with_ is not None and head else []
        self.row = EvalRow(
            seed=run.label,
            iteration=index,
            name=name,
            evaluated=True,
            no_ebm=stats.cell(self.no_ebm, run.file(index, False)) if without is not None else None,
            ebm=stats.cell(inside_proved(with_), run.file(index, True)) if with_ is not None else None,
            ebm_evaluated=with_ is not None,
            energy_head=head,
            vs_iter0=stats.compare(self.vs0),
            ebm_ablation=stats.compare(self.ablation),
            budget=BudgetBinding.of([without]) if without is not None else None,
            ranking=self.ranking,
            notes=notes,
        )


def _pooled_row(index: int, seeds: list[_Seed], stats: Stats) -> EvalRow:
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
    withouts = [s.without for s in seeds if s.without is not None]
    rankings = [s.ranking for s in seeds if s.ranking is not None]
    return EvalRow(
        seed=POOLED,
        iteration=index,
        name=name,
        evaluated=bool(evaluated),
        no_ebm=stats.cell(no_ebm, files(s.run.file(index, False) for s in seeds if s.no_ebm),
                          [x for s in seeds for x in s.no_ebm_names]),
        ebm=stats.cell(ebm, files(s.run.file(index, True) for s in seeds if s.ebm),
                       [x for s in seeds for x in s.ebm_names]),
        ebm_evaluated=any(s.row.ebm_evaluated for s in seeds),
        energy_head=bool(ebm),
        vs_iter0=stats.compare(pool_pairs(vs0, baseline="iter_0_no_ebm", candidate=f"{name}_no_ebm") if vs0 else None),
        ebm_ablation=stats.compare(pool_pairs(ablation, baseline=f"{name}_no_ebm", candidate=name) if ablation else None),
        budget=BudgetBinding.of(withouts) if withouts else None,
        ranking=merge_ranking(rankings) if rankings else None,
        notes=notes if evaluated else ["not evaluated", *notes],
    )


def _extra_row(run: _Run, stem: str, index: int, loaded: EvalReport | str, stats: Stats) -> EvalRow:
    file = str(run.layout.eval_results_dir / f"{stem}.json")
    if isinstance(loaded, str):
        return EvalRow(seed=run.label, iteration=index, name=stem, evaluated=False, notes=[loaded])
    notes: list[str] = []
    suffix = stem.split("_", 2)[2]
    cell = stats.cell(inside_proved(loaded), file)
    vs0: PairedOutcomes | None = None
    partner = f"iter_0_{suffix}"
    found = run.extra.get(partner)
    if partner != stem and found is not None and isinstance(found[1], EvalReport):
        vs0 = pair_or_note(found[1], loaded, partner, stem, notes)
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


class _Baselines:
    """The baseline rows of one run, and the pairs the pooled rows concatenate."""

    def __init__(self, run: _Run, stats: Stats) -> None:
        self.rows: list[BaselineRow] = []
        self.pairs: dict[str, PairedOutcomes] = {}
        self.solved: dict[str, list[bool]] = {}
        self.solved_names: dict[str, list[str]] = {}
        self.descriptions: dict[str, str] = {}
        evaluated = [index for index, with_ebm in run.main if not with_ebm]
        self.last = max(evaluated)
        last = run.main[(self.last, False)]
        candidate = f"iter_{self.last}_no_ebm"
        found: list[tuple[str, EvalReport | str]] = []
        if self.last > 0:
            found.append(("iter_0", run.main[(0, False)]))
        found += sorted(run.baselines.items())
        rows: list[BaselineRow] = []
        for name, loaded in found:
            if isinstance(loaded, str):
                rows.append(BaselineRow(seed=run.label, name=name, last=self.last, notes=[loaded]))
                continue
            notes: list[str] = []
            description = _describe(name, loaded)
            self.descriptions[name] = description
            pairs = pair_or_note(loaded, last, name, candidate, notes)
            if pairs is not None:
                self.pairs[name] = pairs
            budget = budget_note(loaded, last, f"{name} vs {candidate}")
            if budget:
                notes.append(budget)
            solved = inside_proved(loaded)
            self.solved[name] = solved
            self.solved_names[name] = inside_names(loaded)
            rows.append(BaselineRow(
                seed=run.label, name=name, description=description,
                rate=stats.cell(solved, str(run.layout.eval_results_dir / f"baseline_{name}.json")
                                if name != "iter_0" else run.file(0, False)),
                last=self.last, vs_last=stats.compare(pairs), notes=notes,
            ))
        self.rows = _mark_best(rows)


_DESCRIPTIONS = {
    "iter_0": "iteration 0, no head",
    "rules": "the rule policy alone",
    "reference": "fine-tuned on every reference proof available",
    "reference_matched": "the reference policy at the iterations' total node budget (compute-matched)",
    "supervised": "upper bound: fine-tuned on reference proofs of every depth (not a baseline to beat)",
}
_BOUNDS = frozenset({"supervised"})  # reported beside the baselines, never the one to beat


def _describe(name: str, report: EvalReport) -> str:
    return _DESCRIPTIONS.get(name) or f"{report.label}, policy {Path(report.policy).name}"


def _mark_best(rows: list[BaselineRow]) -> list[BaselineRow]:
    rated = [r for r in rows if r.rate is not None and r.vs_last is not None and r.name not in _BOUNDS]
    if not rated:
        return rows
    best = max(rated, key=lambda r: (r.vs_last.rate_a if r.vs_last else 0.0, r.name != "iter_0"))
    return [r.model_copy(update={"best": True}) if r is best else r for r in rows]


def _pooled_baselines(runs: list[_Baselines], stats: Stats) -> list[BaselineRow]:
    names = [name for name in runs[0].pairs if all(name in b.pairs for b in runs[1:])]
    lasts = sorted({b.last for b in runs})
    rows = []
    for name in names:
        candidate = "last_no_ebm"
        pooled = pool_pairs([b.pairs[name] for b in runs], baseline=name, candidate=candidate)
        notes = [] if len(lasts) == 1 else [f"the runs' last iterations differ: {lasts}"]
        rows.append(BaselineRow(
            seed=POOLED, name=name, description=runs[0].descriptions.get(name, ""),
            rate=stats.cell([x for b in runs for x in b.solved[name]], name,
                            [x for b in runs for x in b.solved_names[name]]),
            last=lasts[-1], vs_last=stats.compare(pooled), notes=notes,
        ))
    return _mark_best(rows)


def _arms(run: _Run) -> list[tuple[str, EvalReport]]:
    arms: list[tuple[str, EvalReport]] = []
    for index in range(run.last + 1):
        if (without := run.main.get((index, False))) is not None:
            arms.append((f"iter_{index}_no_ebm", without))
        if (with_ := run.main.get((index, True))) is not None and with_.ebm is not None:
            arms.append((f"iter_{index}", with_))
    arms += [(f"baseline_{name}", r) for name, r in sorted(run.baselines.items()) if isinstance(r, EvalReport)]
    return arms


def _evaluations(run: _Run) -> list[tuple[str, EvalReport]]:
    extra = [(stem, r) for stem, (_, r) in sorted(run.extra.items()) if isinstance(r, EvalReport)]
    return [*_arms(run), *extra]


def best_baseline_rows(report: RunReport) -> list[BaselineRow]:
    """Per run (then pooled, when several): the baseline marked best, i.e. the one the last iteration must beat."""
    return [r for r in report.baselines if r.best]


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
    stats = Stats(resamples, seed, level)
    runs = [_Run(path, label) for path, label in zip(paths, _labels(paths), strict=True)]
    iterations = list(range(max(run.last for run in runs) + 1))
    rows: list[EvalRow] = []
    for index in iterations:
        seeds = [_Seed(run, index, stats) for run in runs]
        rows += [s.row for s in seeds]
        if len(runs) > 1:
            rows.append(_pooled_row(index, seeds, stats))
    per_run = [_Baselines(run, stats) for run in runs]
    baselines = [row for b in per_run for row in b.rows]
    if len(runs) > 1:
        baselines += _pooled_baselines(per_run, stats)
    extra = [
        _extra_row(run, stem, index, loaded, stats)
        for run in runs
        for stem, (index, loaded) in sorted(run.extra.items(), key=lambda kv: (kv[1][0], kv[0]))
        if not CONTROL_STEM.match(stem)
    ]
    return RunReport(
        runs=[str(p) for p in paths],
        seeds=[run.label for run in runs],
        iterations=iterations,
        rows=rows,
        extra=extra,
        baselines=baselines,
        groups=group_rows([(run.label, _arms(run)) for run in runs], stats),
        controls=control_rows([run_arms(run.label, run.main, run.extra) for run in runs], stats),
        splits=[row for run in runs for row in split_rows(run.label, _evaluations(run))],
        resamples=resamples,
        seed=seed,
        level=level,
    )
