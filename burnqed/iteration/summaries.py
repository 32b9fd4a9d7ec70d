"""What each iteration step reports: typed summaries, written as the step's marker.

A step returns its summary model; the runner adds the step's wall time, writes it as the
marker (``state/iter_N/<step>.json``) and reads it back through STEP_MODELS, so every
reader — the runner, the daemon, the demo — gets fields, not a dict to guess in. Unknown
keys of an older marker are ignored; a marker that does not validate is a step not done.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.iteration.layout import STEPS, RunLayout

__all__ = [
    "STEP_MODELS",
    "EBMSummary",
    "EvalSummary",
    "SFTSummary",
    "SearchSummary",
    "StepSummaries",
    "StepSummary",
    "read_summaries",
    "read_summary",
]


class StepSummary(BaseModel):
    """Fields every step reports."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    seconds: float = Field(default=0.0, description="the step's own measure of its work")
    step_seconds: float = Field(default=0.0, description="wall time of the step, set by the runner")


class SFTSummary(StepSummary):
    """Fine-tuning: what it learned from and how the loss went."""

    base: str
    pairs: int
    sources: dict[str, int] = Field(default_factory=dict, description="pairs per source (reference, trajectories, extra)")
    reference_set: str | None = None
    reference_theorems: int | None = Field(
        default=None, description="curriculum: statements whose reference proofs were trained on (the seed set)"
    )
    epochs: int
    steps: int
    first_loss: float | None = Field(default=None, description="None when nothing was trained")
    final_loss: float | None = Field(default=None, description="None when nothing was trained")
    checkpoint: str = Field(description="the policy this iteration searches with (the base or previous one when not trained)")
    trained: bool = Field(default=True, description="False: a search-first iteration had nothing to learn from yet")
    reason: str | None = Field(default=None, description="why nothing was trained")


class EBMSummary(StepSummary):
    """The energy head: trained, or why not."""

    trained: bool
    reason: str | None = None
    trajectories: list[str] = Field(default_factory=list)
    positives: int | None = None
    train_groups: int | None = None
    val_top1: float | None = None
    train_top1: float | None = None
    final_loss: float | None = None
    checkpoint: str | None = None


class SearchSummary(StepSummary):
    """The training-set search."""

    train_set: str
    theorems: int
    proved: int
    proved_rate: float
    rows: int
    energy_head: str | None = None
    trajectories: str
    frontier: int | None = Field(default=None, description="curriculum: the frontier level of the sample")
    band: dict[str, int] | None = Field(
        default=None, description="curriculum: pool statements per bucket before this iteration"
    )
    picked: dict[str, int] | None = Field(default=None, description="curriculum: sampled statements per bucket")
    new_pairs: int | None = Field(
        default=None, description="proof-path pairs of this search not found by an earlier iteration"
    )
    invalid_statements: list[str] = Field(
        default_factory=list, description="statements the backend could not elaborate (or express): reported, skipped"
    )


class EvalSummary(StepSummary):
    """One held-out evaluation (with or without the energy head)."""

    solved: int
    total: int
    solve_rate: float
    energy_head: str | None = None
    reused_no_ebm: bool = False
    ebm_skipped: bool = Field(
        default=False, description="iteration.ebm_eval = last and not the last iteration: no with-head evaluation"
    )
    report: str
    resumed_theorems: int = 0


STEP_MODELS: dict[str, type[StepSummary]] = {
    "sft": SFTSummary,
    "train_ebm": EBMSummary,
    "search": SearchSummary,
    "evaluate_no_ebm": EvalSummary,
    "evaluate": EvalSummary,
}


class StepSummaries(BaseModel):
    """The summaries of one iteration's finished steps."""

    model_config = ConfigDict(frozen=True)

    sft: SFTSummary | None = None
    train_ebm: EBMSummary | None = None
    search: SearchSummary | None = None
    evaluate_no_ebm: EvalSummary | None = None
    evaluate: EvalSummary | None = None

    def finished(self) -> list[str]:
        """The steps with a summary, in order."""
        return [step for step in STEPS if getattr(self, step) is not None]


def read_summary(layout: RunLayout, index: int, step: str) -> StepSummary | None:
    """A finished step's summary, or None (no marker, or one that does not validate)."""
    raw = layout.read_marker(index, step)
    if raw is None:
        return None
    try:
        return STEP_MODELS[step].model_validate(raw)
    except ValidationError:
        return None


def read_summaries(layout: RunLayout, index: int) -> StepSummaries:
    """Every finished step of iteration ``index``."""
    return StepSummaries(**{step: read_summary(layout, index, step) for step in STEPS})
