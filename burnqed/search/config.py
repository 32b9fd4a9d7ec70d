"""Configuration of best-first proof search (and of the trajectory files it writes)."""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["RETIRED_KEYS", "SearchConfig"]

log = logging.getLogger(__name__)

RETIRED_KEYS = frozenset({"flush_interval_s"})
"""Keys that once existed: dropped with a warning, so reports and configs written before still load."""


class SearchConfig(BaseModel):
    """Budgets and scoring of the best-first search."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _drop_retired(cls, data: Any) -> Any:
        if isinstance(data, dict) and RETIRED_KEYS & data.keys():
            # flush_interval_s: the per-statement store commits each statement as it finishes
            log.warning("search: ignoring retired key(s) %s", ", ".join(sorted(RETIRED_KEYS & data.keys())))
            data = {k: v for k, v in data.items() if k not in RETIRED_KEYS}
        return data

    mode: Literal["step", "whole", "hybrid"] = Field(
        default="step",
        description="step: best-first over single tactics; whole: sample whole proofs at the root, each run tactic "
        "by tactic and checked as every proof (pass@k); hybrid: best-first where a whole-proof candidate's valid "
        "prefix enters the tree and the model continues from a frontier state with the proof so far",
    )
    whole_samples: int = Field(default=8, ge=1, description="whole mode: proofs sampled per statement (the k of pass@k)")
    correction_rounds: int = Field(
        default=0,
        ge=0,
        description="whole mode: each failed proof's Lean errors are fed back to the model this many times at most "
        "(in its preset's correction format), one new proof per round; each counts as a sample and its tactics as "
        "Lean calls",
    )
    num_candidates: int = Field(default=4, ge=1, description="policy candidates per expanded state")
    max_nodes: int = Field(default=100, ge=1, description="expanded states per theorem")
    max_depth: int = Field(default=12, ge=1, description="longest tactic sequence explored")
    max_lean_calls: int | None = Field(
        default=None, ge=1, description="tactic runs per theorem at most (a Lean-call budget equal across modes)"
    )
    # the node budget is the budget: a wall-clock limit that binds makes outcomes depend on machine load,
    # so it is only a safety cap, set high enough never to trigger in a normal search
    time_limit_s: float = Field(default=300.0, gt=0, description="wall-clock safety cap per theorem (not a budget)")
    energy_weight: float = Field(default=1.0, ge=0, description="λ in priority = logprob + λ·(−energy)")
    # the non-learned controls a head claim is measured against (burnqed.search.controls)
    priority_control: Literal["none", "connectives", "depth_bonus"] = Field(
        default="none", description="a non-learned priority in place of an energy head (none: the policy's order)"
    )
    depth_bonus: float = Field(
        default=1.0, ge=0, description="nats per step added to the priority under priority_control = depth_bonus"
    )
    automation_tactics: list[str] = Field(
        default_factory=lambda: ["omega", "simp", "norm_num", "decide", "rfl", "linarith"],
        description="tried on every expanded state besides the policy's candidates",
    )
    automation_log_prob: float = Field(
        default=-2.0, le=0, description="log-prob credited to an automation tactic (its priority cost)"
    )
    min_new_children: int = Field(
        default=2, ge=0, description="resample the policy when an expansion yields fewer new open states than this"
    )
    resample_rounds: int = Field(default=1, ge=0, description="extra policy rounds per expansion at most")
    resample_factor: int = Field(
        default=2, ge=2, description="each extra round asks for this many times more samples (fresh seeds)"
    )
    concurrency: int = Field(default=4, ge=1, description="theorems searched at once")
    lost_retries: int = Field(default=1, ge=0, description="re-searches of a theorem whose worker died")
    row_group_rows: int = Field(default=65536, ge=1, description="trajectory rows per row group of the merged output")
