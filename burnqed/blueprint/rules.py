"""Validation of a blueprint and the status rules: transitions and attempt accounting.

Statuses: todo → running → partial / done / failed; exhausted when the attempts budget is
spent without success (never set directly before then). A target becomes done only with a
replayed proof (BlueprintStore.record_proof). An *attempt* is counted when one starts
(→ running) or when an outcome (partial, done, failed) is reported without a preceding
running; the outcome of a running attempt does not count twice, and neither does the restart
of an attempt a crash interrupted (counted as a crash: BlueprintStore.restart). When the
attempts reach the budget and the outcome is not done, the entry becomes exhausted. done and
exhausted are final (a bigger budget reopens an exhausted entry: BlueprintStore.set_budget).
"""

from __future__ import annotations

import json

from burnqed.blueprint.errors import InvalidTransition
from burnqed.blueprint.issue import Issue
from burnqed.blueprint.model import (
    ENTRY_KINDS,
    STATUSES,
    Blueprint,
    Entry,
    parse_attempts,
)

__all__ = ["ALLOWED", "FINAL", "OUTCOMES", "Issue", "transition", "validate"]

OUTCOMES: frozenset[str] = frozenset({"partial", "done", "failed"})
FINAL: frozenset[str] = frozenset({"done", "exhausted"})
# from-status -> allowed to-statuses
ALLOWED: dict[str, frozenset[str]] = {
    "todo": frozenset({"running", "partial", "done", "failed", "exhausted"}),
    # running → running is a restart after a crash: a new attempt
    "running": frozenset({"running", "todo", "partial", "done", "failed", "exhausted"}),
    "partial": frozenset({"running", "todo", "partial", "done", "failed", "exhausted"}),
    "failed": frozenset({"running", "todo", "partial", "done", "failed", "exhausted"}),
    "done": frozenset(),
    "exhausted": frozenset(),
}


def validate(blueprint: Blueprint) -> list[Issue]:
    """Every problem of the blueprint (an empty list means valid)."""
    issues: list[Issue] = []
    labels = set(blueprint.labels())

    def add(entry: Entry, message: str) -> None:
        issues.append(Issue(label=entry.label, message=message, line=blueprint.lines.get(entry.label)))

    for entry in blueprint.entries:
        if entry.kind not in ENTRY_KINDS:
            add(entry, f"unknown kind {entry.kind!r}")
        if entry.status not in STATUSES:
            add(entry, f"status {entry.status!r} is not one of {', '.join(STATUSES)}")
        try:
            attempts, budget = parse_attempts(entry.meta.get("attempts", "0"))
        except ValueError as exc:
            add(entry, str(exc))
        else:
            if budget is not None and attempts > budget:
                add(entry, f"attempts {attempts} exceed the budget {budget}")
            elif budget is not None and attempts >= budget and entry.status in {"todo", "partial", "failed"}:
                add(entry, f"budget {budget} spent but status is {entry.status} (should be exhausted)")
        for used in entry.uses:
            if used not in labels:
                add(entry, f"uses unknown label {used!r}")
            elif used == entry.label:
                add(entry, "uses itself")
        if entry.kind in {"theorem", "lemma"} and entry.statement is None:
            add(entry, f"a {entry.kind} needs a '## statement' section")
        for field in ("plan", "results"):
            raw = entry.meta.get(field)
            if raw:
                try:
                    ok = isinstance(json.loads(raw), dict)
                except ValueError:
                    ok = False
                if not ok:
                    add(entry, f"{field} is not a JSON object")
    issues += _cycles(blueprint)
    return issues


def _cycles(blueprint: Blueprint) -> list[Issue]:
    graph = {e.label: [u for u in e.uses if u != e.label] for e in blueprint.entries}
    state: dict[str, int] = {}  # 1 = on the stack, 2 = finished
    issues: list[Issue] = []
    for root in graph:
        if state.get(root):
            continue
        # iterative DFS so that deep chains do not hit the recursion limit
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = []
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            children = graph.get(node, [])
            if i < len(children):
                stack.append((node, i + 1))
                child = children[i]
                if child not in graph:
                    continue
                if state.get(child) == 1:
                    cycle = path[path.index(child) :] + [child]
                    issues.append(
                        Issue(label=child, message="dependency cycle: " + " → ".join(cycle),
                              line=blueprint.lines.get(child))
                    )
                elif not state.get(child):
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return issues


def transition(entry: Entry, status: str, count_attempt: bool = True) -> Entry:
    """The entry after a status change, with attempt accounting; raises InvalidTransition."""
    old = entry.status
    if status not in STATUSES:
        raise InvalidTransition(entry.label, old, status, f"unknown status; use one of {', '.join(STATUSES)}")
    if status not in ALLOWED.get(old, frozenset()):
        reason = "final status" if old in FINAL else "not allowed"
        raise InvalidTransition(entry.label, old, status, reason)
    attempts, budget = entry.attempts, entry.budget
    if status == "exhausted" and (budget is None or attempts < budget):
        spent = f"{attempts} of {budget}" if budget is not None else f"{attempts}, no budget"
        raise InvalidTransition(
            entry.label, old, status,
            f"exhausted follows from a spent attempts budget ({spent} used); report failed instead",
        )
    starts_attempt = status == "running" or (status in OUTCOMES and old != "running")
    if count_attempt and starts_attempt:
        if budget is not None and attempts >= budget:
            raise InvalidTransition(entry.label, old, status, f"attempts budget {budget} spent")
        attempts += 1
    new_status = status
    if budget is not None and attempts >= budget and status in {"partial", "failed", "todo"}:
        new_status = "exhausted"
    counter = f"{attempts} / {budget}" if budget is not None else str(attempts)
    return entry.with_meta(status=new_status, attempts=counter)
