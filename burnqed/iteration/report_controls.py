"""The energy head beside its non-learned controls, for `burnqed report` (issue 42).

A head's gain over the policy's order counts only against what a rule anyone can write does
at the same budget (burnqed.search.controls: the remaining connective count, a depth bonus).
A control's evaluation is ``eval_results/iter_N_control_<name>.json``: iteration N's policy on
the held-out set with ``search.priority_control = <name>`` and no head (written by ``burnqed
eval``, docs/iteration.md). For each iteration with such reports the rows are: the head and
each control against iteration N without either (same statements and budget), and the head
against the best control (the control with the highest solve rate): the only comparison a
head claim stands on. Pooled rows pool the seeds by statement (burnqed.search.comparison).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from burnqed.iteration.report_cells import (
    POOLED, RateCell, Stats, budget_note, inside_names, inside_proved, pair_or_note,
)  # fmt: skip
from burnqed.search.comparison import PairedComparison, PairedOutcomes, pool_pairs
from burnqed.search.evaluation import EvalReport

__all__ = ["CONTROL_STEM", "ControlRow", "RunArms", "control_rows", "run_arms"]

CONTROL_STEM = re.compile(r"^iter_(\d+)_control_(.+)$")
HEAD = "head"
VS_BEST = "head vs best control"


class ControlRow(BaseModel):
    """The head, one control, or the head against the best control, for one iteration of one run (or pooled)."""

    model_config = ConfigDict(frozen=True)

    seed: str = Field(description='the run, or "pooled"')
    iteration: int
    arm: str = Field(description='"head", "control:<name>", or "head vs best control"')
    rate: RateCell | None = Field(default=None, description="the arm's solve rate (the head's, for the last row)")
    compared: PairedComparison | None = Field(
        default=None, description="the arm (B) against the policy's order alone (A); the last row: best control (A) vs head (B)"
    )
    best: bool = Field(default=False, description="the best control (highest solve rate)")
    notes: list[str] = Field(default_factory=list)


@dataclass
class RunArms:
    """One run's reports for one iteration: without either, with the head, with each control."""

    label: str
    without: EvalReport | None
    head: EvalReport | None
    controls: Mapping[str, EvalReport]
    pairs: dict[str, PairedOutcomes] = field(default_factory=dict)
    solved: dict[str, tuple[list[bool], list[str]]] = field(default_factory=dict)


def run_arms(
    label: str, main: Mapping[tuple[int, bool], EvalReport], extra: Mapping[str, tuple[int, EvalReport | str]]
) -> dict[int, RunArms]:
    """One run's arms per iteration that has control reports (``main``: (N, with head) → report)."""
    controls: dict[int, dict[str, EvalReport]] = {}
    for stem, (index, loaded) in extra.items():
        if (named := CONTROL_STEM.match(stem)) and isinstance(loaded, EvalReport):
            controls.setdefault(index, {})[named.group(2)] = loaded
    arms = {}
    for index, by_name in controls.items():
        with_ = main.get((index, True))
        arms[index] = RunArms(label=label, without=main.get((index, False)),
                              head=with_ if with_ is not None and with_.ebm is not None else None, controls=by_name)
    return arms


def _inside(report: EvalReport) -> tuple[list[bool], list[str]]:
    return inside_proved(report), inside_names(report)


def _rows_of_run(index: int, run: RunArms, stats: Stats) -> list[ControlRow]:
    rows: list[ControlRow] = []
    name = f"iter_{index}_no_ebm"
    arms = ([(HEAD, run.head)] if run.head is not None else []) + [
        (f"control:{c}", r) for c, r in sorted(run.controls.items())]
    for arm, report in arms:
        notes: list[str] = []
        pairs = None if run.without is None else pair_or_note(run.without, report, name, arm, notes, note_empty=False)
        if run.without is None:
            notes.append(f"{name} not evaluated")
        elif note := budget_note(run.without, report, f"{name} vs {arm}"):
            notes.append(note)
        if pairs is not None:
            run.pairs[arm] = pairs
        run.solved[arm] = _inside(report)
        solved, _ = run.solved[arm]
        rows.append(ControlRow(seed=run.label, iteration=index, arm=arm, rate=stats.cell(solved, arm),
                               compared=stats.compare(pairs), notes=notes))
    return _with_best(index, run.label, rows, run, stats)


def _with_best(index: int, seed: str, rows: list[ControlRow], run: RunArms | None, stats: Stats,
               pooled: PairedOutcomes | None = None) -> list[ControlRow]:
    controls = [r for r in rows if r.arm.startswith("control:") and r.rate is not None]
    head = next((r for r in rows if r.arm == HEAD), None)
    if not controls:
        return rows
    best = max(controls, key=lambda r: r.rate.rate if r.rate else 0.0)
    rows = [r.model_copy(update={"best": True}) if r is best else r for r in rows]
    if head is None:
        return rows
    notes: list[str] = []
    pairs = pooled
    if run is not None and run.head is not None:
        control = run.controls[best.arm.split(":", 1)[1]]
        pairs = pair_or_note(control, run.head, best.arm, HEAD, notes, note_empty=False)
        if note := budget_note(control, run.head, f"{best.arm} vs head"):
            notes.append(note)
        if pairs is not None:
            run.pairs[VS_BEST] = pairs
    return [*rows, ControlRow(seed=seed, iteration=index, arm=VS_BEST, rate=head.rate,
                              compared=stats.compare(pairs), notes=[f"best control: {best.arm}", *notes])]


def control_rows(per_run: Sequence[Mapping[int, RunArms]], stats: Stats) -> list[ControlRow]:
    """Per iteration with control reports (``run_arms`` of each run): per run, then pooled by statement."""
    iterations: dict[int, list[RunArms]] = {}
    for arms in per_run:
        for index, run in arms.items():
            iterations.setdefault(index, []).append(run)
    rows: list[ControlRow] = []
    for index, runs in sorted(iterations.items()):
        runs = [r for r in runs if r.controls]
        if not runs:
            continue
        for run in runs:
            rows += _rows_of_run(index, run, stats)
        if len(runs) < 2:
            continue
        pooled: list[ControlRow] = []
        arms = [a for a in dict.fromkeys(a for r in runs for a in r.solved)]
        for arm in arms:
            having = [r for r in runs if arm in r.solved]
            notes = [] if len(having) == len(runs) else [f"{len(having)} of {len(runs)} runs"]
            solved = [x for r in having for x in r.solved[arm][0]]
            names = [x for r in having for x in r.solved[arm][1]]
            parts = [r.pairs[arm] for r in having if arm in r.pairs]
            pairs = pool_pairs(parts, baseline=f"iter_{index}_no_ebm", candidate=arm) if parts else None
            pooled.append(ControlRow(seed=POOLED, iteration=index, arm=arm, rate=stats.cell(solved, arm, names),
                                     compared=stats.compare(pairs), notes=notes))
        # the best control pooled is the one with the highest pooled rate; the head is paired with it per run
        best_parts = []
        controls = [r for r in pooled if r.arm.startswith("control:") and r.rate is not None]
        if controls and any(r.arm == HEAD for r in pooled):
            best = max(controls, key=lambda r: r.rate.rate if r.rate else 0.0)
            for run in runs:
                control = run.controls.get(best.arm.split(":", 1)[1])
                if control is not None and run.head is not None:
                    found = pair_or_note(control, run.head, best.arm, HEAD, [], note_empty=False)
                    if found is not None:
                        best_parts.append(found)
        vs_best = pool_pairs(best_parts, baseline="best control", candidate=HEAD) if best_parts else None
        rows += _with_best(index, POOLED, pooled, None, stats, vs_best)
    return rows
