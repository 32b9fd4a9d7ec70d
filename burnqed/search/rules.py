"""A deterministic, rule-based tactic generator: the "automation only" policy.

It needs no model: regular expressions over the first goal (its target and hypotheses)
propose structural tactics (intro, constructor, left/right, exact h, ...), best first,
with fixed log-probs. ``burnqed eval --policy none`` searches with it plus the
automation tactics; tests use it as a deterministic policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from burnqed.policy.types import TacticCandidate

__all__ = ["Rule", "RuleGenerator", "default_rules", "first_goal"]


class Rule(BaseModel):
    """When ``pattern`` matches the target (or a hypothesis' type), propose ``tactics``.

    ``{h}`` in a tactic is replaced by the matching hypothesis' name.
    """

    model_config = ConfigDict(frozen=True)

    pattern: str
    tactics: list[str]
    on: Literal["target", "hypothesis", "target_is_hypothesis"] = "target"


def default_rules() -> list[Rule]:
    """Rules for propositional logic, quantifiers and arithmetic goals."""
    return [
        Rule(pattern="", tactics=["exact {h}"], on="target_is_hypothesis"),
        Rule(pattern=r"^True$", tactics=["trivial"]),
        Rule(pattern=r"^(∀|¬)", tactics=["intro", "intros"]),
        Rule(pattern=r"→", tactics=["intro", "intros"]),
        Rule(pattern=r"↔", tactics=["constructor"]),
        Rule(pattern=r"∧", tactics=["constructor"]),
        Rule(pattern=r"∨", tactics=["left", "right"]),
        Rule(pattern=r"∧", tactics=["obtain ⟨{h}1, {h}2⟩ := {h}"], on="hypothesis"),
        Rule(pattern=r"^False$", tactics=["contradiction"], on="hypothesis"),
        Rule(pattern=r"=", tactics=["rfl", "ring"]),
        Rule(pattern=r"[<≤≥>≠]", tactics=["omega", "nlinarith", "positivity"]),
        Rule(pattern=r"", tactics=["assumption"]),
    ]


_HYP = re.compile(r"^(?P<names>[^:⊢]+?) : (?P<type>.+)$")


def first_goal(state: str) -> tuple[list[tuple[str, str]], str]:
    """The first goal of a rendered state: its hypotheses (name, type) and target."""
    block = state.split("\n\n", 1)[0]
    hyps: list[tuple[str, str]] = []
    target = block
    for line in block.splitlines():
        if line.startswith("⊢ "):
            target = line[2:]
        elif line.startswith("case "):
            continue
        else:
            match = _HYP.match(line)
            if match:
                for name in match["names"].split():
                    hyps.append((name, match["type"]))
    return hyps, target.strip()


class RuleGenerator:
    """Proposes tactics by rule (deterministic: the same state gives the same candidates)."""

    def __init__(self, rules: Sequence[Rule] | None = None, *, step_log_prob: float = -0.1) -> None:
        self.rules = list(rules) if rules is not None else default_rules()
        self.step_log_prob = step_log_prob
        self._compiled = [(rule, re.compile(rule.pattern)) for rule in self.rules]

    def propose(self, state: str) -> list[str]:
        """Every tactic the rules propose for ``state``, in rule order, without repeats."""
        hyps, target = first_goal(state)
        tactics: list[str] = []
        for rule, regex in self._compiled:
            if rule.on == "target":
                if regex.search(target):
                    tactics.extend(rule.tactics)
            elif rule.on == "target_is_hypothesis":
                for name, htype in hyps:
                    if htype == target and "✝" not in name:
                        tactics.extend(t.replace("{h}", name) for t in rule.tactics)
            else:
                for name, htype in hyps:
                    if regex.search(htype) and "✝" not in name:
                        tactics.extend(t.replace("{h}", name) for t in rule.tactics)
        return list(dict.fromkeys(tactics))

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        """Up to ``n`` candidates per state, log-prob ``step_log_prob`` × (rank + 1)."""
        return [
            [
                TacticCandidate(tactic=t, log_prob=self.step_log_prob * (rank + 1))
                for rank, t in enumerate(self.propose(state)[:n])
            ]
            for state in states
        ]
