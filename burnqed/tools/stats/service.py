"""The logic of the stats tools: scores of a run that no LLM produced, and tool usage.

It reads the run directory the iteration runner writes (``trajectories/iter_N.parquet``,
``eval_results/iter_N.json`` with the energy head and ``iter_N_no_ebm.json`` without)
and the tool-call log. Training-set numbers come from the trajectories; the evaluation
reports are of the *held-out* set, which the coordinator must never see: they are only
returned when ToolsConfig.show_held_out is set (``burnqed serve stats --show-held-out``).
Otherwise the held-out fields are null and ``held_out_visible`` is false.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.iteration.layout import RunLayout
from burnqed.search.comparison import ComparisonError, PairedComparison, compare_pairs, compare_reports, pair_outcomes
from burnqed.tools.common.calllog import ToolCallLog
from burnqed.tools.common.errors import InvalidInput, Refused, StatsUnavailable

__all__ = [
    "EvalResult",
    "HeldOutScore",
    "IterationComparison",
    "IterationScores",
    "SolveCurve",
    "StatsService",
    "ToolUsage",
    "ToolUsageRow",
    "TrajectorySummaryResult",
]

_ITER_FILE = re.compile(r"^iter_(\d+)\.parquet$")
_EVAL_FILE = re.compile(r"^iter_(\d+)(_no_ebm)?\.json$")

Detail = Literal["summary", "full"]


class TrajectorySummaryResult(BaseModel):
    """Counts over one trajectory file."""

    model_config = ConfigDict(frozen=True)

    source: str = Field(description="which trajectories: iter_N or a job id")
    theorems: int
    proved: int
    solve_rate: float
    states: int
    positives: int
    negatives: int
    depth_histogram: dict[int, int]
    proof_lengths: dict[int, int]
    backends: list[str]

    def summary(self) -> str:
        """Short text for the model."""
        return (
            f"{self.source}: {self.proved}/{self.theorems} proved ({self.solve_rate:.1%}), "
            f"{self.states} states ({self.positives} positive, {self.negatives} negative)"
        )


class HeldOutScore(BaseModel):
    """One held-out evaluation (only when held-out results are visible)."""

    model_config = ConfigDict(frozen=True)

    label: str
    total: int
    solved: int
    solve_rate: float
    nodes_expanded: int
    backend: str
    outcomes: list[dict[str, object]] | None = Field(default=None, description="per theorem, with detail='full'")


class IterationScores(BaseModel):
    """What is known about one iteration."""

    model_config = ConfigDict(frozen=True)

    iteration: int
    train_theorems: int | None = None
    train_proved: int | None = None
    train_solve_rate: float | None = None
    held_out_visible: bool
    with_ebm: HeldOutScore | None = None
    no_ebm: HeldOutScore | None = None


class EvalResult(BaseModel):
    """The scores of one iteration."""

    model_config = ConfigDict(frozen=True)

    scores: IterationScores

    def summary(self) -> str:
        """Short text for the model."""
        return _scores_line(self.scores)


def _scores_line(s: IterationScores) -> str:
    parts = [f"iter_{s.iteration}:"]
    if s.train_solve_rate is not None:
        parts.append(f"train {s.train_proved}/{s.train_theorems} ({s.train_solve_rate:.1%})")
    if not s.held_out_visible:
        parts.append("held-out hidden")
    else:
        for score in (s.with_ebm, s.no_ebm):
            if score is not None:
                parts.append(f"held-out {score.label} {score.solved}/{score.total} ({score.solve_rate:.1%})")
    return " ".join(parts)


class IterationComparison(BaseModel):
    """Iteration b against iteration a, paired statement by statement (burnqed.search.comparison)."""

    model_config = ConfigDict(frozen=True)

    a: IterationScores
    b: IterationScores
    train: PairedComparison | None = Field(
        default=None,
        description="the training theorems both iterations searched: rates, paired interval, McNemar p (counts only)",
    )
    held_out: PairedComparison | None = Field(
        default=None,
        description="the held-out evaluations with the energy head, with the theorems that changed (only when visible)",
    )

    def summary(self) -> str:
        """Short text for the model."""
        text = f"iter_{self.a.iteration} → iter_{self.b.iteration}:"
        if self.train is not None:
            text += f" train {self.train.summary()}"
        if self.held_out is not None:
            text += f"; held-out {self.held_out.summary()}"
        elif not self.a.held_out_visible:
            text += "; held-out hidden"
        return text


class SolveCurve(BaseModel):
    """Scores per iteration, in order."""

    model_config = ConfigDict(frozen=True)

    points: list[IterationScores]
    note: str | None = Field(default=None, description="why there is nothing: a missing or empty run directory")

    def summary(self) -> str:
        """Short text for the model."""
        if not self.points:
            return "no iterations yet" + (f": {self.note}" if self.note else "")
        return "\n".join(_scores_line(p) for p in self.points)


class ToolUsageRow(BaseModel):
    """Calls of one tool."""

    model_config = ConfigDict(frozen=True)

    server: str
    tool: str
    calls: int
    errors: int
    p50_ms: float
    max_ms: float


class ToolUsage(BaseModel):
    """Tool calls from the call log."""

    model_config = ConfigDict(frozen=True)

    total_calls: int
    total_errors: int
    first: datetime | None = None
    last: datetime | None = None
    tools: list[ToolUsageRow]

    def summary(self) -> str:
        """Short text for the model."""
        rows = ", ".join(f"{r.tool} {r.calls}" + (f" ({r.errors} errors)" if r.errors else "") for r in self.tools)
        return f"{self.total_calls} calls, {self.total_errors} errors: {rows or 'none'}"


def run_dir_note(run_dir: Path) -> str | None:
    """Why a run directory holds nothing (missing, or empty), for a tool's answer; None when it has content.

    The path itself is not named (tool texts never show the server's paths); the server says it on
    stderr at start-up (``burnqed serve``).
    """
    if not run_dir.exists():
        return (
            "the run directory (paths.run_dir) does not exist: the server may point at the wrong place "
            "(a relative path in a config file is relative to that file; see the server's start-up line)"
        )
    if run_dir.is_dir() and not any(run_dir.iterdir()):
        return "the run directory (paths.run_dir) is empty: no run has written there yet"
    return None


class StatsService:
    """Reads a run directory and the tool-call log."""

    def __init__(
        self,
        run_dir: Path,
        call_log: Path,
        show_held_out: bool,
        jobs_dir: Path | None = None,
        held_out_sets: tuple[str, ...] = ("benchmark-test",),
    ) -> None:
        self.held_out_sets = frozenset(held_out_sets)
        self.run_dir = Path(run_dir)
        self.layout = RunLayout(self.run_dir)
        self.call_log = ToolCallLog(call_log)
        self.show_held_out = show_held_out
        self.jobs_dir = jobs_dir

    # ------------------------------------------------------------------ sources

    def _trajectory_path(self, iteration: int | None, job_id: str | None) -> tuple[str, Path]:
        if job_id is not None:
            if self.jobs_dir is None or not re.match(r"^j-[0-9T-]+[0-9a-f]+$", job_id):
                raise StatsUnavailable(f"no trajectories for job {job_id!r}")
            self._check_job_visible(job_id)
            return job_id, self.jobs_dir / f"{job_id}.parquet"
        if iteration is None:
            iterations = self.iterations()
            if not iterations:
                note = run_dir_note(self.run_dir)
                raise StatsUnavailable("no trajectories in this run yet" + (f": {note}" if note else ""))
            iteration = iterations[-1]
        return f"iter_{iteration}", self.layout.trajectories(iteration)

    def _check_job_visible(self, job_id: str) -> None:
        """A job over held-out theorems is not shown unless show_held_out (checked on read: the job
        may come from a server that could show it, or from the operator)."""
        import json

        if self.show_held_out or self.jobs_dir is None:
            return
        try:
            record = json.loads((self.jobs_dir / f"{job_id}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if not isinstance(record, dict):
            # trajectories without a record say nothing of what they searched: not shown
            raise StatsUnavailable(f"no trajectories for job {job_id!r}")
        spec = record.get("spec") if isinstance(record.get("spec"), dict) else {}
        summary = record.get("summary") if isinstance(record.get("summary"), dict) else {}
        if spec.get("held_out") or spec.get("theorem_set") in self.held_out_sets or (
            summary.get("theorem_set") in self.held_out_sets
        ):
            raise Refused("held_out", f"job {job_id} searched held-out theorems: this server may not show it")

    def iterations(self) -> list[int]:
        """Iterations with trajectories or evaluation results, ascending."""
        found: set[int] = set()
        traj = self.layout.trajectories_dir
        if traj.is_dir():
            for p in traj.iterdir():
                m = _ITER_FILE.match(p.name)
                if m:
                    found.add(int(m.group(1)))
        evals = self.layout.eval_results_dir
        if evals.is_dir():
            for p in evals.iterdir():
                m = _EVAL_FILE.match(p.name)
                if m:
                    found.add(int(m.group(1)))
        return sorted(found)

    def _summary(self, source: str, path: Path) -> TrajectorySummaryResult | None:
        from burnqed.trajectory.reader import TrajectoryReadError, trajectory_files
        from burnqed.trajectory.summary import summarize

        if not trajectory_files(path):
            return None
        try:
            s = summarize(path)
        except TrajectoryReadError as exc:
            raise StatsUnavailable(f"{source}: {exc}") from exc
        return TrajectorySummaryResult(
            source=source,
            theorems=s.theorems,
            proved=s.proved,
            solve_rate=s.proved / s.theorems if s.theorems else 0.0,
            states=s.states,
            positives=s.positives,
            negatives=s.negatives,
            depth_histogram=s.depth_histogram,
            proof_lengths=s.proof_lengths,
            backends=s.backends,
        )

    def _held_out(self, iteration: int, variant: str, detail: Detail) -> HeldOutScore | None:
        from burnqed.search.evaluation import load_report

        path = self.layout.eval_result(iteration, with_ebm=variant == "with_ebm")
        if not path.is_file():
            return None
        try:
            report = load_report(path)
        except ValueError as exc:
            raise StatsUnavailable(f"{path.name} is not a readable evaluation report") from exc
        return HeldOutScore(
            label=report.label or variant,
            total=report.total,
            solved=report.solved,
            solve_rate=report.solve_rate,
            nodes_expanded=report.budget.nodes_expanded,
            backend=report.backend,
            outcomes=[o.model_dump(mode="json") for o in report.outcomes] if detail == "full" else None,
        )

    def _train_comparison(self, a: int, b: int) -> PairedComparison | None:
        """The training theorems both iterations searched, paired by name; no names (the lists are long)."""
        from burnqed.trajectory.reader import TrajectoryReadError, trajectory_files
        from burnqed.trajectory.summary import solved_by_theorem

        paths = self.layout.trajectories(a), self.layout.trajectories(b)
        if not all(trajectory_files(p) for p in paths):
            return None
        try:
            solved_a, solved_b = (solved_by_theorem(p) for p in paths)
        except TrajectoryReadError as exc:
            raise StatsUnavailable(f"iter_{a}/iter_{b} trajectories: {exc}") from exc
        pairs = pair_outcomes(solved_a, solved_b, baseline=f"iter_{a}", candidate=f"iter_{b}")
        try:
            return compare_pairs(pairs).without_names()
        except ComparisonError:  # no training theorem in common
            return None

    def _held_out_comparison(self, a: int, b: int) -> PairedComparison | None:
        """The with-EBM held-out evaluations, paired; only when this server may show held-out results."""
        from burnqed.search.evaluation import load_report

        if not self.show_held_out:
            return None
        paths = self.layout.eval_result(a, with_ebm=True), self.layout.eval_result(b, with_ebm=True)
        if not all(p.is_file() for p in paths):
            return None
        try:
            report_a, report_b = (load_report(p) for p in paths)
        except ValueError as exc:
            raise StatsUnavailable("an evaluation report of these iterations is not readable") from exc
        try:
            return compare_reports(report_a, report_b, baseline=f"iter_{a}", candidate=f"iter_{b}", common_only=True)
        except ComparisonError:
            return None

    # ------------------------------------------------------------------ tools

    def trajectory_summary(self, iteration: int | None = None, job_id: str | None = None) -> TrajectorySummaryResult:
        """Counts over an iteration's trajectories (default: the latest) or a search job's."""
        if iteration is not None and job_id is not None:
            raise InvalidInput("give at most one of iteration and job_id")
        source, path = self._trajectory_path(iteration, job_id)
        result = self._summary(source, path)
        if result is None:
            raise StatsUnavailable(f"no trajectories for {source}")
        return result

    def scores(self, iteration: int, detail: Detail = "summary") -> IterationScores:
        """Training and (if visible) held-out scores of one iteration."""
        train = self._summary(f"iter_{iteration}", self.layout.trajectories(iteration))
        with_ebm = self._held_out(iteration, "with_ebm", detail) if self.show_held_out else None
        no_ebm = self._held_out(iteration, "no_ebm", detail) if self.show_held_out else None
        if train is None and with_ebm is None and no_ebm is None and iteration not in self.iterations():
            raise StatsUnavailable(f"no results for iteration {iteration} in this run")
        return IterationScores(
            iteration=iteration,
            train_theorems=train.theorems if train else None,
            train_proved=train.proved if train else None,
            train_solve_rate=train.solve_rate if train else None,
            held_out_visible=self.show_held_out,
            with_ebm=with_ebm,
            no_ebm=no_ebm,
        )

    def eval_result(self, iteration: int, detail: Detail = "summary") -> EvalResult:
        """The scores of one iteration."""
        return EvalResult(scores=self.scores(iteration, detail))

    def compare_iterations(self, a: int, b: int) -> IterationComparison:
        """Iteration b against iteration a: paired training comparison, and held-out when visible."""
        return IterationComparison(
            a=self.scores(a),
            b=self.scores(b),
            train=self._train_comparison(a, b),
            held_out=self._held_out_comparison(a, b),
        )

    def solve_curve(self) -> SolveCurve:
        """Scores of every iteration, in order (with a note when the run directory is missing or empty)."""
        points = [self.scores(i) for i in self.iterations()]
        return SolveCurve(points=points, note=None if points else run_dir_note(self.run_dir))

    def tool_usage(self, server: str | None = None, since: datetime | None = None) -> ToolUsage:
        """Calls per tool from the call log (optionally one server's, since a time)."""
        if since is not None and since.tzinfo is None:
            since = since.replace(tzinfo=UTC)  # the log is in UTC
        groups: dict[tuple[str, str], list[tuple[bool, float]]] = defaultdict(list)
        first: datetime | None = None
        last: datetime | None = None
        for rec in self.call_log.read():
            if server is not None and rec.server != server:
                continue
            if since is not None and rec.time < since:
                continue
            groups[(rec.server, rec.tool)].append((rec.ok, rec.duration_ms))
            first = rec.time if first is None else min(first, rec.time)
            last = rec.time if last is None else max(last, rec.time)
        rows = [
            ToolUsageRow(
                server=srv,
                tool=tool,
                calls=len(calls),
                errors=sum(1 for ok, _ in calls if not ok),
                p50_ms=round(statistics.median(ms for _, ms in calls), 3),
                max_ms=round(max(ms for _, ms in calls), 3),
            )
            for (srv, tool), calls in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ]
        return ToolUsage(
            total_calls=sum(r.calls for r in rows),
            total_errors=sum(r.errors for r in rows),
            first=first,
            last=last,
            tools=rows,
        )
