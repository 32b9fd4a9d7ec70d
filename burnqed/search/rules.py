"""A deterministic, rule-based tactic generator: the "automation only" policy.

It needs no model: rules over the first goal (its target and hypotheses) propose
structural tactics best first: ``intro`` with the binders' own names, destructuring of
∃ / ∧ / ∨ hypotheses, ``constructor``, ``left``/``right``, rewriting with an equation
hypothesis, ``exact h``. ``burnqed eval --policy none`` searches with it plus the
automation tactics (which close the leaves); tests use it as a deterministic policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from burnqed.policy.types import TacticCandidate

__all__ = ["Rule", "RuleGenerator", "default_rules", "first_goal", "intro_names", "is_connective", "split_top"]


class Rule(BaseModel):
    """When ``pattern`` matches the target (or a hypothesis' type), propose ``tactics``.

    In a tactic, ``{h}`` is the matching hypothesis' name, ``{w}`` / ``{hw}`` fresh names
    for an ∃-witness and its proof, ``{h1}`` / ``{h2}`` fresh names for the parts of ∧,
    and ``{intro}`` the names ``intro`` should give (the tactic is skipped when empty).
    """

    model_config = ConfigDict(frozen=True)

    pattern: str = ""
    tactics: list[str]
    on: Literal["target", "hypothesis", "target_is_hypothesis"] = "target"
    connective: str | None = None  # fire only when the formula is this connective at top level


def default_rules() -> list[Rule]:
    """Rules for propositional logic, quantifiers, equations and arithmetic goals."""
    return [
        Rule(pattern="", tactics=["exact {h}"], on="target_is_hypothesis"),
        Rule(pattern=r"^True$", tactics=["trivial"]),
        Rule(pattern=r"^(∀|¬)|→", tactics=["intro {intro}"]),
        Rule(pattern=r"^∃", tactics=["obtain ⟨{w}, {hw}⟩ := {h}"], on="hypothesis"),
        Rule(connective="∧", tactics=["obtain ⟨{h1}, {h2}⟩ := {h}"], on="hypothesis"),
        Rule(connective="∨", tactics=["rcases {h} with {h} | {h}"], on="hypothesis"),
        Rule(connective="↔", tactics=["constructor"]),
        Rule(connective="∧", tactics=["constructor"]),
        Rule(connective="∨", tactics=["left", "right"]),
        Rule(pattern=r"^[\w.'₀-₉]+ = [^∧∨→↔]+$", tactics=["rw [{h}]"], on="hypothesis"),
        Rule(pattern=r"^False$", tactics=["contradiction"], on="hypothesis"),
        Rule(pattern=r"=", tactics=["rfl", "ring"]),
        Rule(pattern=r"[<≤≥>≠]", tactics=["nlinarith", "positivity"]),
        Rule(pattern=r"", tactics=["assumption"]),
    ]


_HYP = re.compile(r"^(?P<names>[^:⊢]+?) : (?P<type>.+)$")
_OPEN, _CLOSE = "([{⟨", ")]}⟩"


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


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where no bracket is open."""
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i].strip())
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:].strip())
    return parts


def is_connective(formula: str, connective: str) -> bool:
    """``formula`` is ``A <connective> B`` at top level (not under a binder or an arrow)."""
    if formula.startswith(("∀", "∃", "¬")) or len(split_top(formula, "→")) > 1:
        return False
    return len(split_top(formula, f" {connective} ")) > 1


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 1
    while name in taken:
        name, k = f"{base}{k}", k + 1
    taken.add(name)
    return name


def _binder_names(binders: str) -> list[str]:
    """Names bound by ``(a b : T) {c : U}`` or ``a b : T`` or ``x``."""
    groups = re.findall(r"[({]([^(){}]*?)(?::[^(){}]*)?[)}]", binders)
    if not groups:
        groups = [binders.split(":", 1)[0]]
    return [n for g in groups for n in g.split() if n != "_"]


def intro_names(target: str, taken: set[str]) -> list[str]:
    """The names ``intro`` should give: leading ∀ binders, then one per top-level premise."""
    names: list[str] = []
    body = target
    while body.startswith("∀"):
        head = split_top(body[1:], ",")
        if len(head) < 2:
            break
        names.extend(_binder_names(head[0]))
        body = ",".join(head[1:]).strip()
    taken.update(names)
    if body.startswith("¬"):
        return [*names, _fresh("h", taken)]
    premises = split_top(body, "→")[:-1]
    names.extend(_fresh("h", taken) for _ in premises)
    return names


def _exists_names(htype: str, taken: set[str]) -> tuple[str, str]:
    match = re.match(r"^∃\s*\(?\s*([^\s,:()]+)", htype)
    base = match.group(1) if match else "w"
    witness = _fresh(base, taken)
    return witness, _fresh(f"h{witness}", taken)


class RuleGenerator:
    """Proposes tactics by rule (deterministic: the same state gives the same candidates)."""

    def __init__(self, rules: Sequence[Rule] | None = None, *, step_log_prob: float = -0.1) -> None:
        self.rules = list(rules) if rules is not None else default_rules()
        self.step_log_prob = step_log_prob
        self._compiled = [(rule, re.compile(rule.pattern)) for rule in self.rules]

    def propose(self, state: str) -> list[str]:
        """Every tactic the rules propose for ``state``, in rule order, without repeats."""
        hyps, target = first_goal(state)
        taken = {name for name, _ in hyps}
        tactics: list[str] = []
        for rule, regex in self._compiled:
            if rule.on == "target":
                if self._matches(rule, regex, target):
                    tactics.extend(self._fill(t, target, "", "", taken) for t in rule.tactics)
            else:
                for name, htype in hyps:
                    if "✝" in name:
                        continue
                    hit = htype == target if rule.on == "target_is_hypothesis" else self._matches(rule, regex, htype)
                    if hit:
                        tactics.extend(self._fill(t, target, name, htype, taken) for t in rule.tactics)
        return list(dict.fromkeys(t for t in tactics if t))

    @staticmethod
    def _matches(rule: Rule, regex: re.Pattern[str], formula: str) -> bool:
        if rule.connective is not None and not is_connective(formula, rule.connective):
            return False
        return regex.search(formula) is not None

    @staticmethod
    def _fill(template: str, target: str, name: str, htype: str, taken: set[str]) -> str:
        """The tactic with its placeholders filled ('' when it does not apply)."""
        scope = set(taken)
        text = template.replace("{h}", name)
        if "{intro}" in text:
            names = intro_names(target, scope)
            if not names:
                return ""
            text = text.replace("{intro}", " ".join(names))
        if "{w}" in text:
            witness, proof = _exists_names(htype, scope)
            text = text.replace("{w}", witness).replace("{hw}", proof)
        if "{h1}" in text:
            text = text.replace("{h1}", _fresh(f"{name}1", scope)).replace("{h2}", _fresh(f"{name}2", scope))
        return text

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        """Up to ``n`` candidates per state, log-prob ``step_log_prob`` × (rank + 1)."""
        return [
            [
                TacticCandidate(tactic=t, log_prob=self.step_log_prob * (rank + 1))
                for rank, t in enumerate(self.propose(state)[:n])
            ]
            for state in states
        ]
