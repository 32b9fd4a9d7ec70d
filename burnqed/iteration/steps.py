"""The four steps of an expert iteration; each returns a JSON-able summary for its marker.

1. ``sft``: fine-tune the policy on (state, tactic) pairs — the replayed reference proofs
   (iteration 0, and every iteration with ``reference_pairs = "always"``) plus the proof
   paths of all earlier trajectories, plus the ``extra_pairs`` files (e.g. LeanDojo Mathlib
   pairs, read first so a missing file stops the step before any replay or training). With
   ``fresh_train_set`` the reference proofs are always iteration 0's: a later iteration's
   fresh set contributes only what search found. With ``curriculum`` the pairs are the seed
   set's reference proofs plus the shortest proof search found per pool statement
   (burnqed.iteration.curriculum), each line of the pairs file labelled with its source.
2. ``train_ebm``: train the energy head on all earlier trajectories over the new policy's
   embeddings (skipped, with the reason, when there is nothing to learn from yet).
3. ``search``: search the training theorems with the new policy (and energy head);
   resumable per theorem through the trajectory writer; with ``curriculum`` it records
   the band, the new pairs and the solve history (before its marker).
4. ``evaluate_no_ebm`` / ``evaluate``: the held-out theorems without and with the energy head.

Steps 3 and 4 run their statements through ``burnqed.runs.run_statements``: on the run's
pool, or with ``iteration.cluster`` on Ray Lean actors, committing each finished statement
to the step's store (``RUN/stores/iter_N_<step>/``), which a rerun resumes from wherever
the killed attempt ran; both write the same files.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from burnqed.data.theorems import Theorem
from burnqed.interrupt import run_stoppable
from burnqed.iteration.config import (
    IterationConfig,
    IterationRunConfig,
    evaluation_search_config,
    iteration_search_config,
)
from burnqed.iteration.curriculum import (
    CurriculumHistory,
    CurriculumSample,
    seed_set,
    seed_set_label,
    shortest_proof_pairs,
)
from burnqed.iteration.data import (
    extra_pairs,
    load_pairs_file,
    reference_pairs,
    save_pairs_file,
    training_set,
    training_set_label,
    trajectory_pairs,
)
from burnqed.iteration.errors import IterationDataError
from burnqed.iteration.layout import RunLayout, write_json_atomic
from burnqed.iteration.summaries import EBMSummary, EvalSummary, SearchSummary, SFTSummary, StepSummary
from burnqed.cluster.spec import ClusterSpec
from burnqed.runs.run import run_statements
from burnqed.runs.spec import Local, RunOutcome, RunStart, StatementRun
from burnqed.search.config import SearchConfig
from burnqed.search.evaluation import EvalReport
from burnqed.search.protocols import ProofPool, TacticGenerator
from burnqed.search.results import SearchResult

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = [
    "STEP_FUNCTIONS",
    "IterationContext",
    "evaluate_step",
    "search_step",
    "sft_step",
    "train_ebm_step",
    "write_held_out_report",
]

log = logging.getLogger(__name__)

# a trajectory file: iter_N.parquet
_TRAJECTORY_NAME = re.compile(r"^iter_([0-9]+)\.parquet$")


@dataclass(slots=True)
class IterationContext:
    """Everything a step needs: the configs, the run's paths, the pool and the theorem sets."""

    config: IterationRunConfig
    layout: RunLayout
    index: int
    pool: ProofPool
    train: list[Theorem]
    held_out: list[Theorem]
    progress: Progress | None = None
    summaries: dict[str, StepSummary] = field(default_factory=dict)
    sample: CurriculumSample | None = None  # the curriculum's band sample (train), when curriculum is on

    @property
    def it(self) -> IterationConfig:
        """The iteration config (plan overrides applied)."""
        return self.config.iteration

    @property
    def search(self) -> SearchConfig:
        """The search config with the iteration's budgets."""
        return iteration_search_config(self.config)

    @property
    def eval_search(self) -> SearchConfig:
        """The held-out evaluation's search config: the run's budget, whatever a plan did to the training search's."""
        return evaluation_search_config(self.config)

    def base_model(self) -> Path:
        """The policy every run starts from: policy.model_dir, else the tiny model (built if missing)."""
        if self.config.policy.model_dir is not None:
            return Path(self.config.policy.model_dir)
        from burnqed.policy.tiny import ensure_tiny_model

        return ensure_tiny_model(self.config.paths, self.config.policy.tiny)

    def policy_dir(self) -> Path:
        """The policy this iteration searches with: its fine-tuned checkpoint, or the one its sft step kept."""
        sft = self.summaries.get("sft")
        checkpoint = getattr(sft, "checkpoint", None)
        return Path(checkpoint) if checkpoint else self.layout.policy(self.index)

    def earlier_trajectories(self) -> list[Path]:
        """Trajectory files of iterations 0 … index-1 that exist."""
        from burnqed.trajectory.reader import trajectory_files

        # from the directory's listing, never range(index): the index comes from a blueprint label,
        # and a loop over it would block the event loop for as long as the label is large
        found: set[int] = set()
        directory = self.layout.trajectories_dir
        if directory.is_dir():
            for path in directory.iterdir():
                match = _TRAJECTORY_NAME.match(path.name)
                if match and int(match.group(1)) < self.index:
                    found.add(int(match.group(1)))
        paths = [self.layout.trajectories(i) for i in sorted(found)]
        return [p for p in paths if trajectory_files(p)]

    def ebm_dir(self) -> Path | None:
        """This iteration's energy head, if its training step produced one."""
        summary = self.summaries.get("train_ebm")
        return self.layout.ebm(self.index) if isinstance(summary, EBMSummary) and summary.trained else None

    def _bar(self, description: str, total: int) -> TaskID | None:
        return self.progress.add_task(description, total=total) if self.progress is not None else None

    def _advance(self, task: TaskID | None) -> None:
        if self.progress is not None and task is not None:
            self.progress.update(task, advance=1)

    def _resumed(self, task: TaskID | None, start: RunStart) -> None:
        """The bar starts at what an earlier attempt of the step committed."""
        if self.progress is not None and task is not None:
            self.progress.update(task, completed=start.done)


async def sft_step(ctx: IterationContext) -> SFTSummary:
    """Fine-tune the policy (checkpoints/llm/iter_N); search-first with no pair yet trains nothing (base/previous policy)."""
    from burnqed.policy.sft import sft_policy

    it, layout = ctx.it, ctx.layout
    search_first = it.search_first
    previous = layout.policy(ctx.index - 1) if search_first and ctx.index > 0 else layout.llm(ctx.index - 1)
    from_previous = ctx.index > 0 and it.sft_from == "previous"
    if from_previous and not (previous / "config.json").is_file():
        # never a silent restart from the base model: the iteration would not be what it says
        raise IterationDataError(
            f"iteration {ctx.index}: the previous policy {previous} is missing; restore it, or rerun "
            f"iteration {ctx.index - 1}'s fine-tuning (remove {layout.marker(ctx.index - 1, 'sft')}), "
            "or set iteration.sft_from = \"base\""
        )
    if from_previous and search_first and previous.resolve() == ctx.base_model().resolve():
        from_previous = False  # the previous iterations trained nothing: this is the first fine-tune
    pairs: list[tuple[str, str]] = []
    sources: dict[str, int] = {}
    origins: list[dict[str, Any]] | None = None
    # read before the reference replay and the training: a missing file fails the step at once
    # (in a thread: a Mathlib-sized file takes seconds to parse)
    extra = await anyio.to_thread.run_sync(extra_pairs, it.extra_pairs)
    if it.curriculum:
        pairs, sources, origins = await _curriculum_pairs(ctx)
    elif it.reference_pairs != "never" and (ctx.index == 0 or it.reference_pairs == "always"):
        # a missing reference proof ends the run only where the reference proofs are the only supervision
        ref = await _reference_pairs(ctx, required=not search_first and not extra)
        if ref or not search_first:
            sources["reference"] = len(ref)
        pairs += ref
    earlier = ctx.earlier_trajectories()
    if earlier and not it.curriculum:
        found = trajectory_pairs(earlier)
        sources["trajectories"] = len(found)
        pairs += found
    if it.extra_pairs:
        sources["extra"] = len(extra)
        if origins is not None:
            origins += [{"source": "extra"}] * len(extra)
        pairs += extra
    if origins is not None:
        first = dict(zip(reversed(pairs), reversed(origins), strict=True))  # the first source of a pair wins
        pairs = list(dict.fromkeys(pairs))
        origins = [first[p] for p in pairs]
    else:
        pairs = list(dict.fromkeys(pairs))
    if not pairs and search_first:
        # nothing found yet and no warm start: search with the policy as it is
        kept = previous if ctx.index > 0 and (previous / "config.json").is_file() else ctx.base_model()
        save_pairs_file(layout.pairs(ctx.index), [])
        return SFTSummary(
            base=str(kept), pairs=0, sources=sources, epochs=0, steps=0, checkpoint=str(kept), trained=False,
            reason="no proof found yet and no reference proof or extra pair: the iteration searches with "
            + ("the base model as it is" if kept == ctx.base_model() else "the previous policy"),
        )
    if not pairs:
        raise IterationDataError(f"iteration {ctx.index}: no (state, tactic) pairs to fine-tune on")
    save_pairs_file(layout.pairs(ctx.index), pairs, origins)
    base = previous if from_previous else ctx.base_model()
    epochs = it.sft_epochs if from_previous else it.first_sft_epochs
    sft = ctx.config.policy.sft.model_copy(update={"epochs": epochs, "seed": it.seed + ctx.index})
    task = ctx._bar(f"iter {ctx.index}: fine-tune ({len(pairs)} pairs)", 1)
    # training blocks for minutes: in a worker thread that stops at the next step when
    # cancelled (SIGTERM), so the loop keeps answering signals
    report = await run_stoppable(
        lambda check: sft_policy(
            base, pairs, layout.llm(ctx.index), sft, policy_config=ctx.config.policy,
            progress=lambda *_: check(),
        )
    )
    ctx._advance(task)
    return SFTSummary(
        base=str(base),
        pairs=len(pairs),
        sources=sources,
        reference_set=(
            seed_set_label(ctx.config) if it.curriculum
            else training_set_label(ctx.config, 0) if "reference" in sources else None
        ),
        reference_theorems=it.seed_size if it.curriculum else None,
        epochs=epochs,
        steps=report.steps,
        first_loss=report.epoch_losses[0],
        final_loss=report.final_loss,
        seconds=round(report.seconds, 2),
        checkpoint=str(layout.llm(ctx.index)),
    )


async def _curriculum_pairs(ctx: IterationContext) -> tuple[list[tuple[str, str]], dict[str, int], list[dict[str, Any]]]:
    """Curriculum supervision: the seed set's reference pairs plus the shortest proof the search
    found per statement in iterations 0 … N-1 (each pair with its source)."""
    path = ctx.layout.seed_pairs
    seeds = seed_set(ctx.config)
    if path.is_file():
        seed_pairs = load_pairs_file(path)
    else:
        seed_pairs = await reference_pairs(ctx.pool, seeds, concurrency=ctx.config.lean.num_workers)
        if not seed_pairs:
            raise IterationDataError("no reference proof of the curriculum seed set replayed")
        save_pairs_file(path, seed_pairs)
    pairs = list(seed_pairs)
    origins: list[dict[str, Any]] = [{"source": "seed"}] * len(seed_pairs)
    sources = {"seed_reference": len(seed_pairs)}
    earlier = ctx.earlier_trajectories()
    if earlier:
        found, found_origins = shortest_proof_pairs(earlier)
        sources["search"] = len(found)
        pairs += found
        origins += found_origins
    return pairs, sources, origins


async def _reference_pairs(ctx: IterationContext, *, required: bool = True) -> list[tuple[str, str]]:
    """The replayed reference proofs of the training set; with ``required``, none is an IterationDataError
    (otherwise, with extra pairs or search-first, none is a warning)."""
    path = ctx.layout.reference_pairs
    if path.is_file():
        return load_pairs_file(path)
    # fresh sets: only iteration 0's reference proofs are supervision; later sets' proofs are
    # what search must find (learning them directly would be extra labels, not expert iteration)
    fresh_later = ctx.it.fresh_train_set and ctx.index > 0
    theorems = training_set(ctx.config, 0) if fresh_later else ctx.train
    with_proofs = [t for t in theorems if t.proof]
    pairs = await reference_pairs(ctx.pool, with_proofs, concurrency=ctx.config.lean.num_workers) if with_proofs else []
    if not pairs:
        if required:
            raise IterationDataError("no reference proof of the training set replayed; statements without proofs: "
                                     "`burnqed iterate --theorems FILE` (iteration.start = \"search\")")
        log.warning("no reference proof of the training set replayed: training on extra pairs and found proofs")
    save_pairs_file(path, pairs)
    return pairs


async def train_ebm_step(ctx: IterationContext) -> EBMSummary:
    """Train the energy head on all earlier trajectories (checkpoints/ebm/iter_N), or say why not."""
    import pyarrow.compute as pc

    from burnqed.ebm.encoder import PolicyEncoder
    from burnqed.ebm.errors import EBMDataError
    from burnqed.ebm.trainer import train_energy_head
    from burnqed.policy.model import PolicyModel
    from burnqed.trajectory.reader import read_trajectories

    earlier = ctx.earlier_trajectories()
    if not earlier:
        return EBMSummary(trained=False, reason="no trajectories yet (iteration 0)")
    positives = sum(int(pc.sum(read_trajectories(p, ["label"]).column("label")).as_py() or 0) for p in earlier)
    if positives < ctx.it.ebm_min_positives:
        return EBMSummary(trained=False, reason=f"{positives} proof-path states < ebm_min_positives")
    model = await anyio.to_thread.run_sync(PolicyModel.load, ctx.policy_dir(), ctx.config.policy)
    encoder = PolicyEncoder(model)
    task = ctx._bar(f"iter {ctx.index}: energy head", 1)
    try:
        report = await train_energy_head(
            [str(p) for p in earlier], encoder, ctx.layout.ebm(ctx.index), ctx.config.ebm, cache_dir=ctx.layout.embeddings
        )
    except EBMDataError as exc:
        return EBMSummary(trained=False, reason=f"not enough contrastive data: {exc}")
    ctx._advance(task)
    return EBMSummary(
        trained=True,
        trajectories=[str(p) for p in earlier],
        positives=positives,
        train_groups=report.train_groups,
        val_top1=report.val_top1,
        train_top1=report.train_top1,
        final_loss=report.final_loss,
        seconds=round(report.seconds, 2),
        checkpoint=str(ctx.layout.ebm(ctx.index)),
    )


async def search_step(ctx: IterationContext) -> SearchSummary:
    """Search the training theorems; rows go to trajectories/iter_N.parquet (resumable per theorem)."""
    import pyarrow.compute as pc

    from burnqed.trajectory.reader import read_trajectories

    ebm = ctx.ebm_dir() if ctx.it.use_ebm else None
    path = ctx.layout.trajectories(ctx.index)
    started = time.perf_counter()
    on_ray = " on Ray" if ctx.it.cluster else ""
    task = ctx._bar(f"iter {ctx.index}: search {len(ctx.train)} training theorems{on_ray}", len(ctx.train))

    def advance(_: SearchResult) -> None:
        ctx._advance(task)

    async with _where(ctx, ebm, expert=True, search=ctx.search) as where:
        run = StatementRun(
            ctx.train, ctx.search, where, ctx.layout.store(ctx.index, "search"), trajectories=path, iteration=ctx.index
        )
        ran = await run_statements(run, advance, on_start=lambda start: ctx._resumed(task, start))
    invalid = sorted(r.theorem.name for r in ran.results if r.reason in ("invalid_statement", "outside_fragment"))
    if invalid:
        log.warning("iteration %d: the backend cannot elaborate %s: skipped", ctx.index, ", ".join(invalid[:10]))
    table = read_trajectories(path, ["theorem", "label"])
    total = len(pc.unique(table.column("theorem")))
    proved_names = pc.unique(table.filter(pc.equal(table.column("label"), 1)).column("theorem")).to_pylist()
    proved = len(proved_names)
    curriculum: dict[str, Any] = {}
    if ctx.sample is not None:
        # the history is written before the marker: a crash in between rewrites the same record
        history = CurriculumHistory.load(ctx.layout.curriculum_history)
        searched = {t.name for t in ctx.train}
        history.record(ctx.index, searched, set(proved_names) & searched).save(ctx.layout.curriculum_history)
        earlier = set(trajectory_pairs(ctx.earlier_trajectories()))
        curriculum = {
            "frontier": ctx.sample.frontier,
            "band": ctx.sample.band,
            "picked": ctx.sample.picked,
            "new_pairs": len(set(trajectory_pairs([path])) - earlier),
        }
    return SearchSummary(
        **curriculum,
        train_set=ctx.sample.label(ctx.config, ctx.index) if ctx.sample is not None else training_set_label(ctx.config, ctx.index),
        theorems=total,
        proved=proved,
        proved_rate=proved / total if total else 0.0,
        rows=table.num_rows,
        invalid_statements=invalid,
        energy_head=str(ebm) if ebm else None,
        seconds=round(time.perf_counter() - started, 2),
        trajectories=str(path),
    )


@asynccontextmanager
async def _where(
    ctx: IterationContext, ebm: Path | None, *, expert: bool, search: SearchConfig
) -> AsyncIterator[Local | ClusterSpec]:
    """Where a step's statements are searched: Ray Lean actors (``iteration.cluster``) loading the
    iteration's checkpoint, or the run's pool with the components opened here."""
    model_dir = ctx.policy_dir()
    if ctx.it.cluster:
        yield ClusterSpec.of(ctx.config, search=search, model_dir=model_dir, ebm=ebm)
        return
    from burnqed.search.components import open_components

    async with open_components(ctx.config.policy, ctx.config.paths, model_dir=model_dir, ebm=ebm) as parts:
        yield Local(ctx.pool, replace(parts, generator=_expert(ctx, parts.generator)) if expert else parts)


def _expert(ctx: IterationContext, generator: TacticGenerator | None) -> TacticGenerator | None:
    """The training search's generator: the policy, widened by the rules with ``iteration.expert_rules``."""
    if not ctx.it.expert_rules or generator is None:
        return generator
    from burnqed.search.expert import ExpertGenerator

    return ExpertGenerator(generator, rule_log_prob=ctx.search.automation_log_prob)


async def evaluate_step(ctx: IterationContext, with_ebm: bool) -> EvalSummary:
    """Evaluate the held-out theorems (eval_results/iter_N[_no_ebm].json)."""
    from burnqed.search.evaluation import load_report

    out = ctx.layout.eval_result(ctx.index, with_ebm)
    ebm = ctx.ebm_dir() if with_ebm else None
    if with_ebm and ebm is None:
        # no energy head yet: the with-EBM result is the no-EBM search, said so in the label
        without = load_report(ctx.layout.eval_result(ctx.index, False))
        report = without.model_copy(update={"label": "no_ebm (no energy head in this iteration)"})
        write_json_atomic(out, report.model_dump(mode="json"), indent=2)
        return _eval_summary(report, out, reused=True)
    if with_ebm and ctx.it.ebm_eval == "last" and ctx.index < ctx.it.iterations - 1:
        # the ablation is asked of the last iteration only: no iter_N.json, the report says "not evaluated"
        without_path = ctx.layout.eval_result(ctx.index, False)
        skipped = _eval_summary(load_report(without_path), without_path, reused=True)
        return skipped.model_copy(update={"ebm_skipped": True, "energy_head": None, "seconds": 0.0})
    task = ctx._bar(f"iter {ctx.index}: held-out {'with' if with_ebm else 'without'} EBM", len(ctx.held_out))
    started = time.perf_counter()
    # one manifest line per finished theorem, so a killed evaluation resumes where it stopped
    store = ctx.layout.store(ctx.index, "evaluate" if with_ebm else "evaluate_no_ebm")
    async with _where(ctx, ebm, expert=False, search=ctx.eval_search) as where:
        run = StatementRun(ctx.held_out, ctx.eval_search, where, store, finalize=False, iteration=ctx.index)
        ran = await run_statements(run, lambda _: ctx._advance(task), on_start=lambda start: ctx._resumed(task, start))
    report = write_held_out_report(
        ran, out, label=ran.label, search=ctx.eval_search, theorem_set=f"{ctx.it.held_out_set}[{len(ctx.held_out)}]",
        iteration=ctx.index, started=started,
    )  # fmt: skip
    return _eval_summary(report, out, reused=False).model_copy(update={"resumed_theorems": ran.skipped})


def write_held_out_report(
    ran: RunOutcome, out: Path, *, label: str, search: SearchConfig, theorem_set: str, iteration: int, started: float
) -> EvalReport:
    """A held-out run's EvalReport written to ``out``, then its store removed (an iteration's or a baseline's)."""
    from burnqed.search.evaluation import report_from_results

    report = report_from_results(
        ran.results,
        label=label,
        backend=ran.backend,
        search=search,
        policy=ran.policy_id,
        ebm=ran.ebm_id,
        iteration=iteration,
        theorem_set=theorem_set,
        run_wall_s=time.perf_counter() - started,
    )
    write_json_atomic(out, report.model_dump(mode="json"), indent=2)
    ran.store.finalize()  # after the report: a kill before this line resumes with every result kept
    return report


def _eval_summary(report: EvalReport, path: Path, reused: bool) -> EvalSummary:
    return EvalSummary(
        solved=report.solved,
        total=report.total,
        solve_rate=report.solve_rate,
        energy_head=report.ebm,
        reused_no_ebm=reused,
        seconds=round(report.run_wall_s, 2),
        report=str(path),
    )


async def _evaluate_no_ebm(ctx: IterationContext) -> EvalSummary:
    return await evaluate_step(ctx, with_ebm=False)


async def _evaluate_ebm(ctx: IterationContext) -> EvalSummary:
    return await evaluate_step(ctx, with_ebm=True)


STEP_FUNCTIONS = {
    "sft": sft_step,
    "train_ebm": train_ebm_step,
    "search": search_step,
    "evaluate_no_ebm": _evaluate_no_ebm,
    "evaluate": _evaluate_ebm,
}
