"""The expert of expert iteration: the policy's samples widened by the rule-based tactics.

Expert iteration trains an apprentice (the policy) on what a stronger expert (search) finds.
On the training pool the search may be made stronger than the policy alone by also trying
the structural tactics the rules derive from a goal's shape (``intro`` with the binders'
names, destructuring a hypothesis, ``constructor``, ...): the proofs it finds are still
kernel-checked search results on unlabeled statements, and the held-out evaluation never
uses the rules, so what it measures is what the policy learnt.
"""

from __future__ import annotations

from collections.abc import Sequence

from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search.engine import normalize_tactic
from burnqed.search.protocols import TacticGenerator, propose
from burnqed.search.rules import RuleGenerator

__all__ = ["ExpertGenerator"]


class ExpertGenerator:
    """The policy's candidates first, then the rules' tactics it did not propose (log-prob ``rule_log_prob``)."""

    def __init__(self, policy: TacticGenerator, rules: RuleGenerator | None = None, *, rule_log_prob: float) -> None:
        """``rule_log_prob``: the priority cost credited to a rule tactic (like an automation tactic's)."""
        self.policy = policy
        self.rules = rules or RuleGenerator()
        self.rule_log_prob = rule_log_prob

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """Per state: the policy's up-to-``n`` candidates, then every rule tactic not among them."""
        sampled = await propose(self.policy, states, n, contexts)
        out: list[list[TacticCandidate]] = []
        for state, candidates in zip(states, sampled, strict=True):
            seen = {normalize_tactic(c.tactic) for c in candidates}
            extra = [
                TacticCandidate(tactic=t, log_prob=self.rule_log_prob)
                for t in self.rules.propose(state)
                if normalize_tactic(t) not in seen
            ]
            out.append([*candidates, *extra])
        return out
