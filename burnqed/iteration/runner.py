"""The expert-iteration runner: iterations 0 … N-1, each a sequence of resumable steps.

A step whose marker exists is not run again, so a crash or Ctrl-C resumes at the step
that did not finish (and the search step resumes at the theorem that did not finish).
The run's BLUEPRINT.md gets one ``iteration`` entry per iteration: running while it
runs (one attempt), done with its results, failed (an error) or partial (interrupted).
``run_pending`` executes the iterations a coordinator scheduled in a blueprint. With
``iteration.cluster`` Ray is started (or joined) once around the iterations.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import anyio
from pydantic import BaseModel, ConfigDict, Field

from burnqed.blueprint import BlueprintStore, Entry, IterationSpec, iteration_index
from burnqed.iteration.config import IterationRunConfig, iteration_search_config, seeded_policy
from burnqed.iteration.curriculum import CurriculumHistory, curriculum_sample
from burnqed.iteration.data import load_set, training_set
from burnqed.iteration.errors import IterationError
from burnqed.iteration.layout import STEPS, RunLayout
from burnqed.runs.ray import ray_session
from burnqed.iteration.steps import STEP_FUNCTIONS, IterationContext
from burnqed.iteration.targets import prepare_targets
from burnqed.iteration.summaries import StepSummaries, read_summaries, read_summary
from burnqed.search.protocols import ProofPool

__all__ = ["IterationReport", "IterationRunner", "StepHook", "apply_plan", "plan_fingerprint", "plan_of"]

# a config of this layer or of one above it (apply_plan keeps the caller's model)
C = TypeVar("C", bound=IterationRunConfig)

log = logging.getLogger(__name__)

# called with (iteration, step) before a step runs and with (iteration, "step:finished") after its
# work but before its marker is written; raising stops the run there (tests simulate crashes)
StepHook = Callable[[int, str], None]

# plan keys (IterationSpec.plan()) that map onto IterationConfig fields
_PLAN_KEYS = ("train_set", "train_size", "eval_set", "eval_size", "max_nodes", "num_candidates", "use_ebm")


class IterationReport(BaseModel):
    """What one iteration did: per-step summaries and the held-out solve rates."""

    model_config = ConfigDict(frozen=True)

    index: int
    label: str
    executed: list[str] = Field(description="steps run in this call")
    skipped: list[str] = Field(description="steps already finished earlier (markers)")
    steps: StepSummaries
    seconds: float

    @property
    def solve_rate(self) -> float | None:
        """Held-out solve rate with the energy head (the no-EBM rate when there was none)."""
        return self.steps.evaluate.solve_rate if self.steps.evaluate else None

    @property
    def solve_rate_no_ebm(self) -> float | None:
        """Held-out solve rate without the energy head."""
        return self.steps.evaluate_no_ebm.solve_rate if self.steps.evaluate_no_ebm else None

    def results(self) -> dict[str, Any]:
        """The compact results recorded in the blueprint entry (a JSON object)."""
        s = self.steps
        return {
            "solve_rate": self.solve_rate,
            "solve_rate_no_ebm": self.solve_rate_no_ebm,
            "held_out": s.evaluate_no_ebm.total if s.evaluate_no_ebm else None,
            "ebm_trained": s.train_ebm.trained if s.train_ebm else None,
            "train_proved": s.search.proved if s.search else None,
            "train_total": s.search.theorems if s.search else None,
            "sft_pairs": s.sft.pairs if s.sft else None,
            "sft_final_loss": s.sft.final_loss if s.sft else None,
        }


def apply_plan(config: C, plan: Mapping[str, Any] | None) -> C:
    """The config with a blueprint plan's fields (train_set, max_nodes, use_ebm, …) applied."""
    if not plan:
        return config
    updates = {k: plan[k] for k in _PLAN_KEYS if k in plan}
    # a plan may widen the training search (a stalled probe doubles max_nodes); the held-out
    # evaluation stays at the run's budget, or iterations would be compared at unequal budgets
    before = iteration_search_config(config)
    it = config.iteration
    if "max_nodes" in updates and it.eval_max_nodes is None:
        updates["eval_max_nodes"] = before.max_nodes
    if "num_candidates" in updates and it.eval_num_candidates is None:
        updates["eval_num_candidates"] = before.num_candidates
    iteration = type(config.iteration).model_validate(config.iteration.model_dump() | updates)
    return config.model_copy(update={"iteration": iteration})


def plan_of(config: IterationRunConfig, label: str, note: str | None = None) -> IterationSpec:
    """The IterationSpec that records a config's iteration settings in a blueprint entry."""
    it = config.iteration
    return IterationSpec(
        label=label,
        train_set=it.train_set,
        train_size=it.train_size,
        eval_set=it.eval_set,
        eval_size=it.eval_size or None,
        max_nodes=it.max_nodes,
        num_candidates=it.num_candidates,
        use_ebm=it.use_ebm,
        note=note,
    )


class IterationRunner:
    """Runs expert iterations in one run directory on one Lean pool."""

    def __init__(
        self,
        config: IterationRunConfig,
        run_dir: str | Path,
        pool: ProofPool,
        *,
        store: BlueprintStore | None = None,
        hook: StepHook | None = None,
        progress: Any = None,
    ) -> None:
        # the user's own theorems (iteration.theorems): the run's training and held-out files, carved here
        self.config = prepare_targets(config, run_dir)
        self.layout = RunLayout(run_dir)
        self.pool = pool
        self.store = store or BlueprintStore(self.layout.blueprint, config.blueprint)
        self.hook = hook
        self.progress = progress

    async def run(self, iterations: int | None = None) -> list[IterationReport]:
        """Iterations 0 … N-1 (N = ``iteration.iterations``); finished ones are only reported."""
        count = iterations if iterations is not None else self.config.iteration.iterations
        reports = []
        # Ray (iteration.cluster) once for the run, before an entry is touched: a missing Ray or
        # an unreachable cluster fails the command, not an iteration
        async with ray_session(self.config.cluster, enabled=self.config.iteration.cluster):
            for index in range(count):
                label = f"iter_{index}"
                entry = self.store.read().find(label)
                if entry is None:
                    entry = self.store.schedule_iteration(plan_of(self.config, label, note="burnqed iterate"))
                reports.append(await self.run_entry(entry))
        return reports

    async def run_pending(self) -> list[IterationReport]:
        """Every pending iteration entry of the store, in file order (the daemon's call)."""
        reports = []
        pending = self.store.pending_iterations()
        if not pending:
            return reports
        async with ray_session(self.config.cluster, enabled=self.config.iteration.cluster):
            for entry in pending:
                reports.append(await self.run_entry(entry))
        return reports

    async def run_entry(self, entry: Entry) -> IterationReport:
        """Run one blueprint iteration entry with status and results bookkeeping."""
        index = iteration_index(entry.label)
        if index is None:
            raise IterationError(f"{entry.label!r} is not an iteration label (iter_N)")
        if entry.status == "done":
            return self._finished_report(index, entry.label)
        if entry.status == "exhausted":
            raise IterationError(f"{entry.label} is exhausted ({entry.meta.get('attempts')}); `burnqed coordinator resume --extra-attempts N` reopens it")
        if entry.status == "failed" and entry.crashes > self.store.config.max_crash_restarts:
            # the crash budget stopped it: only the operator reopens it
            raise IterationError(
                f"{entry.label} crashed {entry.crashes} times and is failed; `burnqed coordinator resume` reopens it"
            )
        if entry.status == "running":
            # left running by a crash (SIGKILL, OOM): a crash, not a new attempt
            entry = self.store.restart(entry.label, note=f"resumed in {self.layout.root}")
            if entry.status != "running":
                raise IterationError(
                    f"{entry.label} crashed {entry.crashes} times and is now {entry.status}; "
                    "`burnqed coordinator resume` reopens it"
                )
        elif entry.status == "partial":
            # an interruption (SIGTERM, Ctrl-C) is not a new attempt either
            self.store.update_status(entry.label, "running", note="resumed after an interruption", count_attempt=False)
        else:
            self.store.update_status(entry.label, "running", note=f"started in {self.layout.root}")
        try:
            report = await self.run_iteration(index, plan=entry.plan, label=entry.label)
        except Exception as exc:
            self.store.update_status(entry.label, "failed", note=f"{type(exc).__name__}: {exc}"[:300])
            raise
        except BaseException:
            # Ctrl-C / cancellation: what finished is kept; the next run resumes
            self.store.update_status(entry.label, "partial", note="interrupted; rerun to resume")
            raise
        self.store.record_results(entry.label, report.results())
        self.store.update_status(entry.label, "done", note=_summary_line(report))
        return report

    async def run_iteration(
        self, index: int, plan: Mapping[str, Any] | None = None, label: str | None = None
    ) -> IterationReport:
        """The steps of iteration ``index`` that have not finished yet."""
        config = apply_plan(self.config, plan)
        it = config.iteration
        previous_threads = _set_torch_threads(it.torch_threads)
        try:
            # joins the run's Ray, or starts one for a lone call
            async with ray_session(config.cluster, enabled=config.iteration.cluster):
                return await self._steps(config, index, label)
        finally:
            _set_torch_threads(previous_threads)

    async def _steps(self, config: IterationRunConfig, index: int, label: str | None) -> IterationReport:
        it = config.iteration
        started = time.perf_counter()
        sample = None
        if it.curriculum:
            # a function of (seed, index, history before index): a resumed iteration gets the same sample
            history = CurriculumHistory.load(self.layout.curriculum_history)
            sample = await anyio.to_thread.run_sync(curriculum_sample, config, history, index)
        ctx = IterationContext(
            # the policy samples with policy.seed + iteration.seed (seed_scope 'all'), applied once here
            config=config.model_copy(update={"policy": seeded_policy(config)}),
            layout=self.layout,
            index=index,
            pool=self.pool,
            # in a worker thread: an uncached benchmark-train of train_size theorems takes seconds
            # to generate, and the loop must keep answering SIGTERM meanwhile
            train=sample.theorems
            if sample is not None
            else await anyio.to_thread.run_sync(training_set, config, index, abandon_on_cancel=True),
            held_out=await anyio.to_thread.run_sync(
                load_set, it.held_out_set, it.eval_size, config, abandon_on_cancel=True
            ),
            progress=self.progress,
            sample=sample,
        )
        executed: list[str] = []
        skipped: list[str] = []
        fingerprint = plan_fingerprint(config, ctx.train, ctx.held_out)
        for step in STEPS:
            done = read_summary(self.layout, index, step)
            if done is not None:
                made_for = (self.layout.read_marker(index, step) or {}).get("plan_fingerprint")
                if made_for is not None and made_for != fingerprint:
                    # a marker is valid only for the plan and the theorems it was made with
                    raise IterationError(
                        f"{self.layout.marker(index, step)} was made for another plan or other theorems than "
                        f"iteration {index}'s now (its BLUEPRINT.md entry was replaced?); use a new run "
                        f"directory, or remove {self.layout.root / 'state'} and the iteration outputs to start over"
                    )
                ctx.summaries[step] = done
                skipped.append(step)
                continue
            if self.hook is not None:
                self.hook(index, step)
            self.layout.append_log({"iteration": index, "step": step, "event": "start"})
            step_started = time.perf_counter()
            try:
                summary = await STEP_FUNCTIONS[step](ctx)
                if self.hook is not None:
                    # a crash here (work done, marker not yet written) must also resume cleanly
                    self.hook(index, f"{step}:finished")
            except BaseException as exc:
                self.layout.append_log({"iteration": index, "step": step, "event": "error", "error": repr(exc)[:500]})
                raise
            summary = summary.model_copy(update={"step_seconds": round(time.perf_counter() - step_started, 2)})
            record = summary.model_dump(mode="json") | {"plan_fingerprint": fingerprint}
            self.layout.write_marker(index, step, record)
            self.layout.append_log({"iteration": index, "step": step, "event": "done", "summary": record})
            ctx.summaries[step] = summary
            executed.append(step)
            log.info("iteration %d: %s done in %.1f s", index, step, summary.step_seconds)
        return IterationReport(
            index=index,
            label=label or f"iter_{index}",
            executed=executed,
            skipped=skipped,
            steps=StepSummaries(**ctx.summaries),
            seconds=round(time.perf_counter() - started, 2),
        )

    def _finished_report(self, index: int, label: str) -> IterationReport:
        steps = read_summaries(self.layout, index)
        return IterationReport(
            index=index, label=label, executed=[], skipped=steps.finished(), steps=steps, seconds=0.0
        )


def plan_fingerprint(config: IterationRunConfig, train: list[Any], held_out: list[Any]) -> str:
    """The identity of an iteration's work: its plan fields and the statements (name and hash)
    of its training and held-out sets; a step marker records it."""
    import hashlib
    import json

    plan = plan_of(config, "iter_0").plan()  # plan() leaves the label out
    value = {
        "plan": plan,
        "seed": config.iteration.seed,
        "train": [[t.name, t.sha] for t in train],
        "held_out": [[t.name, t.sha] for t in held_out],
    }
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def _set_torch_threads(threads: int) -> int:
    """Bound torch's CPU threads (oversubscribed threads on a small, shared CPU slow training ~10x); returns the old count."""
    import os

    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads or max(1, (os.cpu_count() or 2) // 2))
    return previous


def _summary_line(report: IterationReport) -> str:
    # the blueprint is read by the agent: training-side figures only (held-out ones are in
    # the entry's results, which the tools hide, and in eval_results/ for the operator)
    search = report.steps.search
    train = f"{search.proved}/{search.theorems} training theorems proved" if search and search.theorems else "no training search"
    return f"{train}; steps run: {', '.join(report.executed) or 'none'}"
