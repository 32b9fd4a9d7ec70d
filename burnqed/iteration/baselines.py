"""The baselines an expert-iteration run must beat, evaluated on its own held-out set and budget.

- ``rules``: the rule-based automation policy alone (no model), ``eval_results/baseline_rules.json``;
- ``reference``: the base model fine-tuned on every reference proof the run could have used
  (the strongest policy that does not iterate), ``eval_results/baseline_reference.json``, its
  checkpoint in ``checkpoints/llm/baseline_reference``. "Available" means: with the curriculum,
  every statement of the unlabeled pool that carries a proof (whose proofs the iteration never
  reads; the seed is part of it); otherwise the training sets the iterations search (iteration
  0's, and with ``fresh_train_set`` every iteration's). ``iteration.baseline_reference_size``
  caps the count (evenly spaced; 0 = all). It is iteration 0's recipe on all of them:
  ``first_sft_epochs`` from the same base model (trained as long as the iterated policy's
  fine-tunings add up to, it came out peaked and weaker);
- ``reference_matched``: the reference policy at the iterations' search budget, compute-matched:
  ``matched_nodes`` = the held-out node budget × ``iteration.iterations`` per statement (k× nodes);
- ``supervised``: the upper bound, the same recipe on reference proofs of every depth the generator
  labels (the depth world's pool with ``labelled_depth`` = 6, statements the iteration only ever sees
  unlabelled), as many statements as the reference baseline's, evenly spaced over the graded pool,
  ``checkpoints/llm/baseline_supervised``.

The reference baselines sample at ``iteration.baseline_temperature`` and
``baseline_num_candidates`` when set (their own sampling, tuned on the tuning split), else as the
iterations do. Every arm is shown the same prompt: the whole rendered proof state, every goal
(burnqed.policy.prompts; only a state over the prompt budget is shortened, first goal kept).

Iteration 0 is a baseline too; it is already in the run. ``burnqed report`` pairs the last
iteration with all of them. The held-out set is only evaluated here, never searched for data or
trained on; a baseline whose report exists is not run again.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from burnqed.data.theorems import Theorem
from burnqed.interrupt import run_stoppable
from burnqed.iteration.config import IterationRunConfig, evaluation_search_config, matched_nodes, seeded_policy
from burnqed.iteration.data import even_subset, load_pairs_file, load_set, reference_pairs, save_pairs_file, training_set
from burnqed.iteration.errors import IterationDataError
from burnqed.iteration.layout import RunLayout
from burnqed.iteration.summaries import EvalSummary
from burnqed.policy.config import PolicyConfig
from burnqed.search.config import SearchConfig
from burnqed.search.protocols import ProofPool
from burnqed.search.results import SearchResult

if TYPE_CHECKING:
    from burnqed.search.evaluation import EvalReport

__all__ = [
    "BASELINES",
    "Baseline",
    "baseline_report_path",
    "baseline_search",
    "reference_theorems",
    "run_baselines",
    "supervised_theorems",
]

log = logging.getLogger(__name__)

Baseline = Literal["rules", "reference", "reference_matched", "supervised"]
BASELINES: tuple[Baseline, ...] = ("rules", "reference", "reference_matched", "supervised")
_POLICY_OF: dict[str, str] = {"reference": "reference", "reference_matched": "reference", "supervised": "supervised"}


def baseline_report_path(layout: RunLayout, name: str) -> Path:
    """``eval_results/baseline_<name>.json``."""
    return layout.eval_results_dir / f"baseline_{name}.json"


def reference_theorems(config: IterationRunConfig) -> list[Theorem]:
    """Every statement whose reference proof the run could have trained on (capped, evenly spaced)."""
    it = config.iteration
    if it.curriculum:
        from burnqed.iteration.curriculum import curriculum_pool

        theorems = [t for t in curriculum_pool(config) if t.proof]
    else:
        indices = range(it.iterations) if it.fresh_train_set else range(1)
        seen: dict[str, Theorem] = {}
        for index in indices:
            for t in training_set(config, index):
                if t.proof:
                    seen.setdefault(t.sha, t)
        theorems = list(seen.values())
    return even_subset(theorems, it.baseline_reference_size)


def supervised_theorems(config: IterationRunConfig) -> list[Theorem]:
    """The upper bound's statements: the curriculum pool with every depth labelled (capped like the reference's)."""
    it = config.iteration
    if not it.curriculum:
        return reference_theorems(config)
    from burnqed.data.depth import MAX_DEPTH
    from burnqed.iteration.curriculum import curriculum_pool

    labelled = config.model_copy(update={"iteration": it.model_copy(update={"labelled_depth": MAX_DEPTH})})
    # as many statements as the reference baseline trains on, evenly spaced over every depth: the bound
    # measures what labels at every depth give, not what more labelled statements give
    return even_subset([t for t in curriculum_pool(labelled) if t.proof], len(reference_theorems(config)))


def baseline_search(config: IterationRunConfig, name: str) -> SearchConfig:
    """A baseline's held-out search: the iterations', with the reference baselines' own candidates and, for
    ``reference_matched``, the compute-matched node budget."""
    search = evaluation_search_config(config)
    it = config.iteration
    if name in _POLICY_OF and it.baseline_num_candidates is not None:
        search = search.model_copy(update={"num_candidates": it.baseline_num_candidates})
    if name == "reference_matched":
        search = search.model_copy(update={"max_nodes": matched_nodes(config)})
    return search


def _baseline_policy(config: IterationRunConfig, name: str) -> PolicyConfig:
    policy = seeded_policy(config)
    temperature = config.iteration.baseline_temperature
    if name in _POLICY_OF and temperature is not None:
        policy = policy.model_copy(update={"temperature": temperature})
    return policy


async def run_baselines(
    config: IterationRunConfig,
    run_dir: str | Path,
    pool: ProofPool,
    *,
    names: tuple[Baseline, ...] = BASELINES,
    progress: Any = None,
) -> dict[str, EvalSummary]:
    """Evaluate each named baseline on the run's held-out set (skipping those already reported)."""
    layout = RunLayout(run_dir)
    it = config.iteration
    held_out = load_set(it.held_out_set, it.eval_size, config)
    out: dict[str, EvalSummary] = {}
    for name in names:
        path = baseline_report_path(layout, name)
        if path.is_file():
            from burnqed.search.evaluation import load_report

            report = load_report(path)
            out[name] = _summary(report, path)
            continue
        model_dir = await _reference_policy(config, layout, pool, _POLICY_OF[name]) if name in _POLICY_OF else None
        report = await _evaluate(config, layout, pool, held_out, name, model_dir, progress)
        out[name] = _summary(report, path)
        log.info("baseline %s: %d/%d held-out", name, report.solved, report.total)
    return out


async def _evaluate(
    config: IterationRunConfig,
    layout: RunLayout,
    pool: ProofPool,
    held_out: list[Theorem],
    name: str,
    model_dir: Path | None,
    progress: Any,
) -> EvalReport:
    """The baseline's held-out report, written to its path; resumable through its statement store."""
    from burnqed.runs import Local, StatementRun, run_statements
    from burnqed.search.components import open_components
    from burnqed.iteration.steps import write_held_out_report

    task = progress.add_task(f"baseline {name}: held-out", total=len(held_out)) if progress is not None else None

    def advance(_: SearchResult) -> None:
        if task is not None:
            progress.update(task, advance=1)

    search = baseline_search(config, name)
    started = time.perf_counter()
    async with open_components(
        _baseline_policy(config, name), config.paths, policy="none" if model_dir is None else "model", model_dir=model_dir
    ) as parts:
        run = StatementRun(held_out, search, Local(pool, parts), layout.baseline_store(name), finalize=False)
        ran = await run_statements(run, advance)
    report = write_held_out_report(
        ran, baseline_report_path(layout, name), label=f"baseline_{name}" if model_dir is not None else "automation",
        search=search, theorem_set=f"{config.iteration.held_out_set}[{len(held_out)}]", iteration=0, started=started,
    )  # fmt: skip
    return report


async def _reference_policy(config: IterationRunConfig, layout: RunLayout, pool: ProofPool, which: str) -> Path:
    """Fine-tune the base model on every available reference proof (``which`` = reference), or on those of every
    depth (supervised); kept across reruns."""
    from burnqed.policy.sft import sft_policy
    from burnqed.policy.tiny import ensure_tiny_model

    out = layout.checkpoints_llm / f"baseline_{which}"
    if (out / "config.json").is_file():
        return out
    pairs_file = layout.root / "data" / f"baseline_{which}_pairs.jsonl"
    if pairs_file.is_file():
        pairs = load_pairs_file(pairs_file)
    else:
        theorems = reference_theorems(config) if which == "reference" else supervised_theorems(config)
        pairs = list(dict.fromkeys(await reference_pairs(pool, theorems, concurrency=config.lean.num_workers)))
        if not pairs:
            raise IterationDataError(f"{which} baseline: no reference proof replayed")
        save_pairs_file(pairs_file, pairs)
    it = config.iteration
    base = Path(config.policy.model_dir) if config.policy.model_dir is not None else ensure_tiny_model(
        config.paths, config.policy.tiny)
    # iteration 0's recipe on every reference proof instead of the seed's: longer made it peaked
    # and weaker (24 epochs: 1 of 150 held-out against 14 at 12, docs/iteration.md)
    epochs = it.first_sft_epochs
    sft = config.policy.sft.model_copy(update={"epochs": epochs, "seed": it.seed})
    await run_stoppable(
        lambda check: sft_policy(base, pairs, out, sft, policy_config=config.policy, progress=lambda *_: check())
    )
    return out


def _summary(report: Any, path: Path) -> EvalSummary:
    return EvalSummary(solved=report.solved, total=report.total, solve_rate=report.solve_rate,
                       energy_head=None, reused_no_ebm=False, seconds=round(report.run_wall_s, 2), report=str(path))
