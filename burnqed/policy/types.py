"""Value types the policy hands to the search."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["TacticCandidate"]


class TacticCandidate(BaseModel):
    """One proposed tactic with its summed token log-probability."""

    model_config = ConfigDict(frozen=True)

    tactic: str
    log_prob: float
