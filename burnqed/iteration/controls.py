"""The head's non-learned controls, evaluated by the run itself (``iteration.head_controls``, issue 42).

A head's gain over the policy's order counts only against what a rule anyone can write does at
the same budget. For each name in ``head_controls`` (``connectives``: the remaining ∃/∧ count and
goals as the energy; ``depth_bonus``: nats per step added to the priority; burnqed.search.controls)
the last iteration's policy searches the held-out set with ``search.priority_control = <name>`` and
no head, at the held-out evaluation's budget and sampling, into
``eval_results/iter_N_control_<name>.json``, which ``burnqed report`` sets beside the head
(burnqed.iteration.report_controls). A control whose report exists is not run again; each is
resumable through its statement store (``stores/iter_N_control_<name>/``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from burnqed.iteration.config import IterationRunConfig, evaluation_search_config, seeded_policy
from burnqed.iteration.data import load_set
from burnqed.iteration.layout import RunLayout
from burnqed.iteration.summaries import EvalSummary, read_summary
from burnqed.search.config import SearchConfig
from burnqed.search.protocols import ProofPool
from burnqed.search.results import SearchResult

__all__ = ["control_report_path", "control_search", "run_controls"]

log = logging.getLogger(__name__)


def control_report_path(layout: RunLayout, index: int, name: str) -> Path:
    """``eval_results/iter_N_control_<name>.json``."""
    return layout.eval_results_dir / f"iter_{index}_control_{name}.json"


def control_search(config: IterationRunConfig, name: str) -> SearchConfig:
    """The held-out evaluation's search with the control in place of a head."""
    return evaluation_search_config(config).model_copy(update={"priority_control": name})


def _policy_dir(layout: RunLayout, index: int) -> Path:
    sft = read_summary(layout, index, "sft")
    checkpoint = getattr(sft, "checkpoint", None)
    return Path(checkpoint) if checkpoint else layout.policy(index)


async def run_controls(
    config: IterationRunConfig, run_dir: str | Path, pool: ProofPool, *, index: int | None = None, progress: Any = None
) -> dict[str, EvalSummary]:
    """Evaluate each of ``iteration.head_controls`` with iteration ``index``'s policy (default: the last)."""
    from burnqed.iteration.steps import write_held_out_report
    from burnqed.runs import Local, StatementRun, run_statements
    from burnqed.search.components import open_components
    from burnqed.search.evaluation import load_report

    layout = RunLayout(run_dir)
    it = config.iteration
    index = it.iterations - 1 if index is None else index
    held_out = load_set(it.held_out_set, it.eval_size, config)
    out: dict[str, EvalSummary] = {}
    for name in it.head_controls:
        path = control_report_path(layout, index, name)
        if not path.is_file():
            search = control_search(config, name)
            task = progress.add_task(f"control {name}: held-out", total=len(held_out)) if progress is not None else None

            def advance(_: SearchResult, task: Any = task) -> None:
                if task is not None:
                    progress.update(task, advance=1)

            started = time.perf_counter()
            async with open_components(seeded_policy(config), config.paths, model_dir=_policy_dir(layout, index)) as parts:
                store = layout.root / "stores" / f"iter_{index}_control_{name}"
                ran = await run_statements(StatementRun(held_out, search, Local(pool, parts), store, finalize=False,
                                                        iteration=index), advance)
            write_held_out_report(ran, path, label=f"control_{name}", search=search, iteration=index, started=started,
                                  theorem_set=f"{it.held_out_set}[{len(held_out)}]")
        report = load_report(path)
        out[name] = EvalSummary(solved=report.solved, total=report.total, solve_rate=report.solve_rate,
                                energy_head=None, reused_no_ebm=False, seconds=round(report.run_wall_s, 2),
                                report=str(path))
        log.info("control %s (iteration %d): %d/%d held-out", name, index, report.solved, report.total)
    return out
