"""Value types the policy hands to the search."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from burnqed.policy.corrections import CorrectionTurn

__all__ = ["PromptContext", "TacticCandidate"]


class TacticCandidate(BaseModel):
    """One proposed tactic with its summed token log-probability."""

    model_config = ConfigDict(frozen=True)

    tactic: str
    log_prob: float
    answer: str | None = None  # the model's raw text, which a correction turn shows back to it

    # a candidate is its tactic and score: the raw text it came from is provenance, not identity
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TacticCandidate):
            return NotImplemented
        return (self.tactic, self.log_prob) == (other.tactic, other.log_prob)

    def __hash__(self) -> int:
        return hash((self.tactic, self.log_prob))


class PromptContext(BaseModel):
    """What a prompt may show besides the state: the theorem and the tactics applied on the path to it.

    ``declaration`` is the theorem under its name up to and including ``:= by`` (no header);
    ``header`` the file's imports/open/set_option lines (None: the theorem has none);
    ``proof_so_far`` the tactics from the root to ``state``, in order; ``want`` whether the
    search asks for the next tactic or for the rest of the proof (whole and hybrid search; the
    candidate's ``tactic`` then holds the remaining tactics, one top-level tactic per line block);
    ``corrections`` the failed rounds of a whole proof, fed back in the preset's correction format.
    """

    model_config = ConfigDict(frozen=True)

    state: str
    name: str = "theorem"
    declaration: str = ""
    header: str | None = None
    proof_so_far: tuple[str, ...] = ()
    want: Literal["tactic", "proof"] = "tactic"
    corrections: tuple[CorrectionTurn, ...] = ()
