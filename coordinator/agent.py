"""The coordinator's agent loop and brains (thin re-export of burnqed.coordination)."""

from __future__ import annotations

from burnqed.coordination.anthropic_brain import AnthropicBrain
from burnqed.coordination.brain import Brain, BrainOutcome, SessionContext
from burnqed.coordination.scripted_brain import ScriptedBrain
from burnqed.coordination.toolbox import Toolbox

__all__ = ["AnthropicBrain", "Brain", "BrainOutcome", "ScriptedBrain", "SessionContext", "Toolbox"]
