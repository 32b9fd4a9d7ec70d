"""The logic of the blueprint tools: read targets, change their status, schedule iterations.

Every change goes through burnqed.blueprint.BlueprintStore (file lock, atomic replace,
validation, statement locks). No tool here can register or edit a statement, so a locked
statement cannot change through MCP; the store would refuse it anyway (StatementLocked).
Status changes are for targets only: iterations belong to the daemon that runs them.
A target becomes done only through record_proof: the server reads the proof from a finished
search job's stored result and replays it against the locked statement through the
verification gate (burnqed.tools.blueprint.proof_gate); exhausted follows from a spent budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.blueprint import (
    MAX_ITERATION_INDEX,
    TARGET_KINDS,
    BlueprintConfig,
    BlueprintError,
    BlueprintStore,
    Entry,
    IterationSpec,
    UnknownLabel,
    iteration_index,
)
from burnqed.tools.common.errors import BlueprintToolError, InvalidInput, ProofRejected, Refused, ServiceUnavailable
from burnqed.tools.common.jobs import JobManager
from burnqed.tools.blueprint.proof_gate import ProofGate

__all__ = ["HELD_OUT_RESULTS", "BlueprintTools", "EntryView", "TargetList", "clean_note"]

Detail = Literal["summary", "full"]


class EntryView(BaseModel):
    """A blueprint entry as the tools show it."""

    model_config = ConfigDict(frozen=True)

    kind: str
    label: str
    status: str
    attempts: int
    budget: int | None = None
    uses: list[str] = Field(default_factory=list)
    statement_sha: str | None = None
    statement: str | None = Field(default=None, description="with detail='full' (get_target always)")
    file: str | None = None
    plan: dict[str, Any] | None = None
    results: dict[str, Any] | None = None
    notes: str | None = Field(default=None, description="with detail='full'")

    def summary(self) -> str:
        """Short text for the model."""
        budget = f"/{self.budget}" if self.budget is not None else ""
        text = f"{self.kind} {self.label}: {self.status}, attempts {self.attempts}{budget}"
        if self.statement:
            text += f"\n  {self.statement}"
        return text


# results an iteration records that are held-out figures: the agent never sees them
HELD_OUT_RESULTS = frozenset({"solve_rate", "solve_rate_no_ebm", "held_out", "held_out_no_ebm"})


# NUL and C0/C1 controls (tab and newline kept), ANSI escape sequences, zero-width and
# bidirectional-override characters: a note is read by people and by the next agent
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def clean_note(note: str | None) -> str | None:
    """A note without control, ANSI escape, zero-width or bidi-override characters."""
    if note is None:
        return None
    text = _INVISIBLE.sub("", _ANSI.sub("", note.replace("\r\n", "\n").replace("\t", " ")))
    return text.strip() or None


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def entry_view(entry: Entry, detail: Detail, hide: frozenset[str] = HELD_OUT_RESULTS) -> EntryView:
    """An Entry as an EntryView (statement and notes only with detail='full'; results
    named in ``hide`` left out)."""
    full = detail == "full"
    results = {k: v for k, v in entry.results.items() if k not in hide}
    return EntryView(
        kind=entry.kind,
        label=entry.label,
        status=entry.status,
        attempts=entry.attempts,
        budget=entry.budget,
        uses=list(entry.uses),
        statement_sha=entry.statement_sha,
        statement=entry.statement if full else None,
        file=entry.file,
        plan=entry.plan or None,
        results=results or None,
        notes=(entry.notes or None) if full else None,
    )


class TargetList(BaseModel):
    """Targets of the blueprint."""

    model_config = ConfigDict(frozen=True)

    targets: list[EntryView]
    counts: dict[str, int] = Field(description="targets per status")
    note: str | None = Field(default=None, description="why there is none: the BLUEPRINT file does not exist")

    def summary(self) -> str:
        """Short text for the model."""
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        lines = [f"{len(self.targets)} targets ({counts or 'none'})" + (f": {self.note}" if self.note else "")]
        lines += [t.summary().split("\n")[0] for t in self.targets[:50]]
        if len(self.targets) > 50:
            lines.append(f"… {len(self.targets) - 50} more")
        return "\n".join(lines)


class BlueprintTools:
    """Reads and changes one BLUEPRINT.md through its store."""

    def __init__(
        self,
        path: Path,
        config: BlueprintConfig,
        show_held_out: bool = False,
        *,
        gate: ProofGate | None = None,
        jobs_dir: Path | None = None,
        held_out_sets: Iterable[str] = (),
    ) -> None:
        self.store = BlueprintStore(path, config)
        self.held_out_sets = frozenset(held_out_sets)
        self.config = config
        self.hide = frozenset() if show_held_out else HELD_OUT_RESULTS
        self.gate = gate
        # read-only: the search server's job manager owns this directory
        self.jobs = JobManager(jobs_dir) if jobs_dir is not None else None

    def list_targets(self, status: str | None = None, detail: Detail = "summary") -> TargetList:
        """Targets, optionally of one status."""
        try:
            entries = self.store.list_targets(status)
            everything = self.store.list_targets() if status is not None else entries
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc
        counts: dict[str, int] = {}
        for entry in everything:
            counts[entry.status] = counts.get(entry.status, 0) + 1
        note = None
        if not everything and not self.store.path.exists():
            note = (
                "the BLUEPRINT file (blueprint.path) does not exist: the server may point at the wrong place "
                "(a relative path in a config file is relative to that file; see the server's start-up line)"
            )
        return TargetList(targets=[entry_view(e, detail, self.hide) for e in entries], counts=counts, note=note)

    def get_target(self, label: str) -> EntryView:
        """One entry, in full."""
        try:
            return entry_view(self.store.get(label), "full", self.hide)
        except UnknownLabel as exc:
            raise BlueprintToolError(str(exc)) from exc
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc

    def update_status(self, label: str, status: str, note: str | None = None) -> EntryView:
        """Change a target's status (attempt accounting by the blueprint rules); never to done
        (record_proof) nor exhausted (the budget decides)."""
        try:
            entry = self.store.get(label)
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc
        if entry.kind not in TARGET_KINDS:
            raise InvalidInput(
                f"{label} is {_article(entry.kind)} {entry.kind}: its status is set by the daemon that runs it"
            )
        if self.hide and entry.kind == "theorem_set" and (
            entry.label in self.held_out_sets or entry.meta.get("file") in self.held_out_sets
        ):
            # the held-out set is the daemon's yardstick: the agent neither reads nor steers it
            raise Refused("held_out", f"{label} is the held-out set: its status is the daemon's, never the agent's")
        if status == "done":
            raise InvalidInput(
                f"{label}: done is not set by hand; call record_proof(label, job_id) with the search job "
                "that proved it, and the server replays the proof"
            )
        if status == "exhausted":
            raise InvalidInput(f"{label}: exhausted follows when the attempts budget is spent; report failed")
        try:
            return entry_view(self.store.update_status(label, status, note=clean_note(note)), "full", self.hide)
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc

    async def record_proof(self, label: str, job_id: str) -> EntryView:
        """Mark a theorem or lemma done: take its proof from a finished search job's stored
        result, replay it against the locked statement through the gate, record it."""
        if self.gate is None or self.jobs is None:
            raise ServiceUnavailable("this server has no verification gate: proofs cannot be recorded here")
        try:
            entry = self.store.get(label)
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc
        if entry.kind not in {"theorem", "lemma"} or entry.statement is None:
            raise InvalidInput(
                f"{label} is {_article(entry.kind)} {entry.kind}: only a theorem or lemma has a proof to record"
            )
        if entry.status == "done":
            return entry_view(entry, "full", self.hide)
        locked = self.store.ledger.read().get(label) or entry.statement_sha
        if locked is None:
            raise BlueprintToolError(f"{label} has no locked statement hash")
        record = self.jobs.get(job_id)
        spec, summary = record.spec or {}, record.summary or {}
        if self.hide and (spec.get("held_out") or spec.get("theorem_set") in self.held_out_sets
                          or summary.get("theorem_set") in self.held_out_sets):
            raise Refused("held_out", f"job {job_id} searched held-out theorems: this server may not read it")
        result = self.jobs.full_result(job_id)
        outcome = next(
            (o for o in result.get("outcomes", []) if isinstance(o, dict) and o.get("name") == label), None
        )
        if outcome is None:
            raise InvalidInput(f"job {job_id} did not search {label}")
        if outcome.get("statement_sha") != locked:
            raise ProofRejected(f"job {job_id} searched another statement under the name {label} (hash differs from the lock)")
        proof = outcome.get("proof")
        if not outcome.get("proved") or not isinstance(proof, list) or not all(isinstance(t, str) for t in proof):
            raise ProofRejected(f"job {job_id} did not prove {label} ({outcome.get('reason', 'no proof')})")
        record = await self.gate.verify(label, entry.statement, locked, proof, source=f"job {job_id}")
        try:
            return entry_view(self.store.record_proof(record), "full", self.hide)
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc

    def schedule_iteration(self, spec: IterationSpec) -> EntryView:
        """Add an iteration entry (status todo) for the daemon to run. The agent names a
        training set from the allow-list and bounded sizes; what is evaluated (the held-out
        set and its size) is the daemon's, never the agent's."""
        self._check_agent_spec(spec)
        spec = spec.model_copy(update={"note": clean_note(spec.note)})
        try:
            return entry_view(self.store.schedule_iteration(spec), "full", self.hide)
        except BlueprintError as exc:
            raise BlueprintToolError(str(exc)) from exc

    def _check_agent_spec(self, spec: IterationSpec) -> None:
        cfg = self.config
        allowed = [name for name in cfg.agent_train_sets if name not in self.held_out_sets]
        if spec.train_set is not None and spec.train_set in self.held_out_sets:
            raise Refused("held_out", f"train_set {spec.train_set!r} is held out: it is never training data")
        if spec.train_set is not None and spec.train_set not in allowed:
            raise InvalidInput(
                f"train_set {spec.train_set!r} is not allowed: name one of {', '.join(allowed) or '(none)'} "
                "(held-out sets and file paths are never training data)"
            )
        if spec.label is not None:
            index = iteration_index(spec.label)
            if index is None:
                raise Refused(
                    "label",
                    f"{spec.label!r} is not a canonical iteration label: iter_N with N from 0 to "
                    f"{MAX_ITERATION_INDEX}, no leading zeros (or leave label out)",
                )
            try:
                following = self.store.read().next_iteration_index()
            except BlueprintError as exc:
                raise BlueprintToolError(str(exc)) from exc
            if index > following:
                raise Refused("label", f"{spec.label} skips ahead: the next iteration is iter_{following}")
        if spec.attempts_budget is not None and spec.attempts_budget > cfg.iteration_attempts_budget:
            raise Refused(
                "budget",
                f"attempts_budget {spec.attempts_budget} is past the operator's cap ({cfg.iteration_attempts_budget})",
            )
        if spec.eval_set is not None or spec.eval_size is not None:
            raise InvalidInput(
                "eval_set and eval_size are not the agent's to choose: the daemon evaluates its own held-out set"
            )
        for name, value, limit in (
            ("train_size", spec.train_size, cfg.agent_max_train_size),
            ("max_nodes", spec.max_nodes, cfg.agent_max_nodes),
            ("num_candidates", spec.num_candidates, cfg.agent_max_candidates),
        ):
            if value is not None and value > limit:
                raise Refused("budget", f"{name} {value} is too large (at most {limit})")
