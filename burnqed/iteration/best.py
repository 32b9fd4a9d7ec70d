"""The best checkpoint of an expert-iteration run: the iteration whose held-out evaluation solved most.

``burnqed prove`` uses it by default, so a statement is searched with what the run learnt
rather than with the untrained tiny model. Only evaluated iterations count: a checkpoint
without a held-out report has no claim to be the best.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from burnqed.files import json_object_problem
from burnqed.iteration.errors import CheckpointUnreadable
from burnqed.iteration.layout import RunLayout

__all__ = ["BestCheckpoint", "best_checkpoint"]


class BestCheckpoint(BaseModel):
    """Where the best policy (and, when it was evaluated with one, energy head) of a run is."""

    model_config = ConfigDict(frozen=True)

    run_dir: Path
    iteration: int
    model_dir: Path
    ebm_dir: Path | None
    solve_rate: float

    def describe(self) -> str:
        """One line for people: which run, which iteration, how it did."""
        head = "with its energy head" if self.ebm_dir is not None else "without an energy head"
        return (
            f"the best checkpoint of {self.run_dir}: iteration {self.iteration} "
            f"({self.solve_rate:.1%} held-out, {head})"
        )


def best_checkpoint(run_dir: str | Path) -> BestCheckpoint | None:
    """The evaluated iteration with the highest held-out solve rate (ties: the later one); None if none."""
    from burnqed.search.evaluation import load_report

    layout = RunLayout(run_dir)
    if not layout.eval_results_dir.is_dir():
        return None
    best: BestCheckpoint | None = None
    index = 0
    while layout.llm(index).exists() or layout.eval_result(index, False).exists():
        model = layout.policy(index)  # a search-first iteration 0 searched with the base model
        for with_ebm in (False, True):
            path = layout.eval_result(index, with_ebm)
            if not path.is_file() or not (model / "config.json").is_file():
                continue  # not evaluated, or its checkpoint is gone: no candidate
            # a file that is there but unreadable is named, never passed over: the best
            # checkpoint would silently become another one (or "none")
            try:
                report = load_report(path)
            except (OSError, ValueError, ValidationError) as exc:
                raise CheckpointUnreadable(
                    f"{path} (iteration {index}'s held-out report) is unreadable or damaged ({_first_line(exc)}); "
                    f"restore it from a copy, or give prove --model DIR (a checkpoint of {layout.root})"
                ) from exc
            _check_config(model / "config.json")
            head = layout.ebm(index) if with_ebm and report.ebm else None
            if head is not None and not head.is_dir():
                head = None
            if best is None or report.solve_rate >= best.solve_rate:
                best = BestCheckpoint(
                    run_dir=Path(run_dir), iteration=index, model_dir=model, ebm_dir=head,
                    solve_rate=report.solve_rate,
                )  # fmt: skip
        index += 1
    return best


def _check_config(path: Path) -> None:
    """CheckpointUnreadable unless the checkpoint's ``config.json`` reads as a JSON object."""
    why = json_object_problem(path)
    if why is not None:
        raise CheckpointUnreadable(
            f"{path} is unreadable or damaged ({why}); restore the checkpoint {path.parent} from a copy, "
            "or give prove --model DIR"
        )


def _first_line(exc: BaseException) -> str:
    """``exc`` on one line: its first line, with its kind (a pydantic error spans many)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
