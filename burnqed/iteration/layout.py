"""Where an expert-iteration run keeps its outputs, and the step markers that make it resumable.

Run directory::

    BLUEPRINT.md                      the run's iteration entries (status, attempts, results)
    checkpoints/llm/iter_N/           the fine-tuned policy of iteration N
    checkpoints/ebm/iter_N/           its energy head (absent when none could be trained)
    trajectories/iter_N.parquet       the training-set search of iteration N
    eval_results/iter_N.json          held-out evaluation with the energy head
    eval_results/iter_N_no_ebm.json   … and without it
    data/reference_pairs.jsonl        (state, tactic) pairs of the replayed reference proofs
    data/pairs_iter_N.jsonl           what iteration N fine-tuned on
    data/seed_pairs.jsonl             curriculum: pairs of the seed set's replayed reference proofs
    data/curriculum_history.json      curriculum: pool statements searched and proved per iteration
    cache/embeddings/                 state embeddings per encoder checkpoint
    stores/iter_N_<step>/             a search or evaluate step's statement store (manifest, and the search's
                                      shards): what a rerun resumes from, local or on Ray; removed when the
                                      step finishes (merged into trajectories/iter_N.parquet for the search)
    state/iter_N/<step>.json          a step's marker: written atomically when it finished
    iterate.jsonl                     one JSON line per step event (machine-read log)
    report.png                        `burnqed report`'s chart (solve rate per iteration, intervals)

The directory itself, its writer lock (run.lock) and logs/ are burnqed.rundir.RunDir's; the
other layers name their own files in it (burnqed.rundir lists them). Every reader and writer of
the iterations' files asks RunLayout for their paths.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from burnqed.files import append_line, write_json_atomic
from burnqed.rundir import RunDir

__all__ = ["ITERATION_MARKS", "STEPS", "RunLayout", "RunOutputError", "enclosing_run", "write_json_atomic"]


class RunOutputError(ValueError):
    """A command was asked to write a file that a run directory's iterations own."""

# the steps of one iteration, in order; each is skipped when its marker exists
STEPS: tuple[str, ...] = ("sft", "train_ebm", "search", "evaluate_no_ebm", "evaluate")

# what marks a directory as a run the iterations have written in (besides its lock)
ITERATION_MARKS: tuple[str, ...] = ("iterate.jsonl", "state")


class RunLayout(RunDir):
    """The iterations' paths in one run directory, and their step markers."""

    @property
    def blueprint(self) -> Path:
        """The run's BLUEPRINT.md."""
        return self.root / "BLUEPRINT.md"

    @property
    def reference_pairs(self) -> Path:
        """Cached pairs of the replayed reference proofs."""
        return self.root / "data" / "reference_pairs.jsonl"

    @property
    def seed_pairs(self) -> Path:
        """Curriculum: cached pairs of the seed set's replayed reference proofs."""
        return self.root / "data" / "seed_pairs.jsonl"

    @property
    def curriculum_history(self) -> Path:
        """Curriculum: which pool statements each iteration searched and proved."""
        return self.root / "data" / "curriculum_history.json"

    @property
    def embeddings(self) -> Path:
        """The embedding cache shared by the iterations' energy heads."""
        return self.root / "cache" / "embeddings"

    @property
    def log(self) -> Path:
        """The JSONL event log."""
        return self.root / "iterate.jsonl"

    @property
    def checkpoints_llm(self) -> Path:
        """The directory of the policy checkpoints (``iter_N`` inside)."""
        return self.root / "checkpoints" / "llm"

    @property
    def checkpoints_ebm(self) -> Path:
        """The directory of the energy-head checkpoints (``iter_N`` inside)."""
        return self.root / "checkpoints" / "ebm"

    @property
    def trajectories_dir(self) -> Path:
        """Where the iterations' trajectory files are."""
        return self.root / "trajectories"

    @property
    def eval_results_dir(self) -> Path:
        """Where the held-out evaluations are."""
        return self.root / "eval_results"

    def store(self, index: int, step: str) -> Path:
        """The statement store of iteration ``index``'s ``step`` (``search``, ``evaluate``, ``evaluate_no_ebm``)."""
        return self.root / "stores" / f"iter_{index}_{step}"

    def baseline_store(self, name: str) -> Path:
        """The statement store of baseline ``name``'s held-out evaluation."""
        return self.root / "stores" / f"baseline_{name}"

    @property
    def report_chart(self) -> Path:
        """`burnqed report`'s default PNG chart."""
        return self.root / "report.png"

    def owned_by_iterations(self, path: str | Path) -> bool:
        """True for a path under the directories only the run's iterations write (checkpoints,
        trajectories, eval results, step markers, statement stores, data)."""
        target = Path(path).resolve()
        root = self.root.resolve()
        owned = ("checkpoints", "trajectories", "eval_results", "state", "stores", "data", "cache")
        return any(target.is_relative_to(root / name) for name in owned)

    def llm(self, index: int) -> Path:
        """Policy checkpoint of iteration ``index``."""
        return self.checkpoints_llm / f"iter_{index}"

    def ebm(self, index: int) -> Path:
        """Energy-head checkpoint of iteration ``index``."""
        return self.checkpoints_ebm / f"iter_{index}"

    def trajectories(self, index: int) -> Path:
        """Trajectory file of iteration ``index``."""
        return self.trajectories_dir / f"iter_{index}.parquet"

    def pairs(self, index: int) -> Path:
        """The fine-tuning pairs of iteration ``index``."""
        return self.root / "data" / f"pairs_iter_{index}.jsonl"

    def eval_result(self, index: int, with_ebm: bool) -> Path:
        """Held-out evaluation of iteration ``index``, with or without the energy head."""
        return self.eval_results_dir / (f"iter_{index}.json" if with_ebm else f"iter_{index}_no_ebm.json")

    def marker(self, index: int, step: str) -> Path:
        """The marker of a step."""
        return self.root / "state" / f"iter_{index}" / f"{step}.json"

    def policy(self, index: int) -> Path:
        """The policy iteration ``index`` searched with: its fine-tuned checkpoint, or, where a search-first
        iteration had nothing to train on, the checkpoint its ``sft`` marker names (the base or the previous one)."""
        marker = self.read_marker(index, "sft") or {}
        checkpoint = marker.get("checkpoint")
        return Path(checkpoint) if isinstance(checkpoint, str) and checkpoint else self.llm(index)

    def read_marker(self, index: int, step: str) -> dict[str, Any] | None:
        """A finished step's summary, or None when the step has not finished."""
        try:
            value = json.loads(self.marker(index, step).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def write_marker(self, index: int, step: str, summary: dict[str, Any]) -> None:
        """Record a step as finished (temp file + fsync + rename: the marker is whole or absent)."""
        write_json_atomic(self.marker(index, step), summary, indent=2)

    def append_log(self, record: dict[str, Any]) -> None:
        """Append one event to iterate.jsonl."""
        append_line(self.log, json.dumps({"time": datetime.now(UTC).isoformat(), **record}, ensure_ascii=False, default=str))


def enclosing_run(path: str | Path, marks: Iterable[str] = ()) -> RunLayout | None:
    """The run directory ``path`` lies in (an ancestor with ``run.lock``, an ``iterate.jsonl``,
    ``state/`` or one of ``marks``, the files other layers name), or None."""
    return RunLayout.enclosing(path, (*ITERATION_MARKS, *marks))
