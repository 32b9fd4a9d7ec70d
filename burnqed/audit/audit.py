"""``burnqed audit``: check a run against its locked statements.

What it checks, for a run directory:

- the blueprint's statement locks (``check_locks`` with the lock ledger): a statement whose
  text no longer matches the hash recorded when it was registered;
- trajectories (``trajectories/*.parquet``) and eval results (``eval_results/*.json``):
  statement drift (a theorem whose statement hash differs from its lock), results whose
  backend is not recorded, claimed proofs that contain ``sorry`` / ``admit``;
- with ``replay``: every claimed proof of a locked statement is replayed through the
  configured Lean backend (fresh handle, root flags) and must pass the gate;
- every done theorem/lemma of the blueprint has its proof in the proof ledger (recorded by
  the verification gate against the locked statement); ``replay`` replays those too;
- the tool-call log, summarised per tool (calls, errors, latency); every call the trust
  boundary refused on purpose (held-out data, another client's handle or job, a label or a
  budget past the operator's caps, an unknown argument, a denied tactic …) is a
  ``boundary_refused`` violation naming the server, tool, rule and client that tried it.

Locked statements come from the blueprint's theorem/lemma entries and its ledger, and
from the shipped theorem sets (``core``, ``benchmark-test``), whose files are fixed.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.audit.config import AuditConfig
from burnqed.data.theorems import matches_lock, statement_sha
from burnqed.iteration.layout import RunLayout
from burnqed.lean.target import ProofTarget

__all__ = ["AuditReport", "LockedStatement", "Violation", "locked_statements", "run_audit"]

log = logging.getLogger(__name__)

_SORRY = re.compile(r"\b(sorry\w*|admit|admitGoal)\b|«\s*sorry\s*»")

ViolationKind = Literal[
    "statement_lock",
    "statement_drift",
    "sorry_in_proof",
    "backend_missing",
    "replay_failed",
    "done_without_proof",
    "boundary_refused",
    "unreadable",
]


class Violation(BaseModel):
    """One thing the audit refuses."""

    model_config = ConfigDict(frozen=True)

    kind: ViolationKind
    where: str
    theorem: str | None = None
    message: str


class LockedStatement(BaseModel):
    """A statement the run must not change, and where its lock comes from."""

    model_config = ConfigDict(frozen=True)

    name: str
    statement: str
    sha: str
    source: str
    header: str | None = None

    def accepts(self, sha: str) -> bool:
        """Whether a claim's statement hash is this lock's: equal, or both hashes (token and
        legacy) of the locked statement."""
        return sha == self.sha or (
            matches_lock(self.statement, sha, self.header) and matches_lock(self.statement, self.sha, self.header)
        )


class AuditReport(BaseModel):
    """The audit's findings."""

    model_config = ConfigDict(frozen=True)

    run_dir: str
    violations: list[Violation]
    warnings: list[str] = Field(default_factory=list)
    checked: dict[str, int] = Field(default_factory=dict)
    tool_usage: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """No violation."""
        return not self.violations


def locked_statements(config: AuditConfig, blueprint_path: Path) -> tuple[dict[str, LockedStatement], list[Violation]]:
    """The lock index (name → locked statement) and the blueprint's own lock violations."""
    from burnqed.blueprint import BlueprintStore
    from burnqed.blueprint.locks import LockLedger, check_ledger, check_locks, ledger_path
    from burnqed.data.sets import load_builtin

    index: dict[str, LockedStatement] = {}
    for set_name in ("core", "benchmark-test"):
        for thm in load_builtin(set_name, home=config.paths.home):
            index[thm.name] = LockedStatement(
                name=thm.name, statement=thm.statement, sha=thm.sha, source=set_name, header=thm.header
            )
    violations: list[Violation] = []
    if blueprint_path.is_file():
        store = BlueprintStore(blueprint_path, config.blueprint)
        blueprint = store.read()
        ledger_file = LockLedger(ledger_path(blueprint_path))
        ledger = ledger_file.read()
        for v in check_locks(blueprint, ledger) + check_ledger(blueprint, ledger_file):
            violations.append(Violation(kind="statement_lock", where=str(blueprint_path), theorem=v.label,
                                        message=f"{v.kind}: {v.message}"))
        for entry in blueprint.entries:
            if entry.kind in {"theorem", "lemma"} and entry.statement is not None:
                sha = ledger.get(entry.label) or entry.statement_sha or statement_sha(entry.statement)
                index[entry.label] = LockedStatement(name=entry.label, statement=entry.statement, sha=sha,
                                                     source="blueprint")
    return index, violations


def _check_claim(
    where: str, name: str, sha: str | None, proof: list[str] | None, locks: dict[str, LockedStatement]
) -> list[Violation]:
    found: list[Violation] = []
    lock = locks.get(name)
    if lock is not None and sha is not None and not lock.accepts(sha):
        found.append(Violation(kind="statement_drift", where=where, theorem=name,
                               message=f"statement hash {sha[:12]}… differs from its lock {lock.sha[:12]}… ({lock.source})"))
    if proof and any(_SORRY.search(t) for t in proof):
        found.append(Violation(kind="sorry_in_proof", where=where, theorem=name, message="claimed proof uses sorry/admit"))
    return found


def _audit_eval(path: Path, locks: dict[str, LockedStatement]) -> tuple[list[Violation], list[tuple[str, list[str], str]]]:
    """Violations of one eval result, and its proved claims (name, proof, where) for replay."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [Violation(kind="unreadable", where=str(path), message=str(exc))], []
    found: list[Violation] = []
    if not data.get("backend"):
        found.append(Violation(kind="backend_missing", where=str(path), message="eval result records no backend"))
    claims: list[tuple[str, list[str], str]] = []
    for outcome in data.get("outcomes", []):
        name = str(outcome.get("name"))
        proof = outcome.get("proof")
        found += _check_claim(str(path), name, outcome.get("statement_sha"), proof, locks)
        if outcome.get("proved") and proof:
            claims.append((name, list(proof), str(path)))
    return found, claims


def _audit_done_targets(
    config: AuditConfig, blueprint_path: Path, locks: dict[str, LockedStatement]
) -> tuple[list[Violation], list[tuple[str, list[str], str]]]:
    """A done theorem/lemma without a ledgered proof of its locked statement is a violation;
    the ledgered proofs are claims to replay."""
    from burnqed.blueprint import BlueprintStore

    if not blueprint_path.is_file():
        return [], []
    store = BlueprintStore(blueprint_path, config.blueprint)
    where = str(store.proofs.path)
    found: list[Violation] = []
    claims: list[tuple[str, list[str], str]] = []
    for entry in store.list_targets(status="done"):
        if entry.kind not in {"theorem", "lemma"}:
            continue
        record = store.proofs.find(entry.label, entry.proof_sha) if entry.proof_sha else None
        lock = locks.get(entry.label)
        if record is None:
            found.append(Violation(kind="done_without_proof", where=str(blueprint_path), theorem=entry.label,
                                   message="marked done, but no verified proof is recorded for it"))
        elif lock is not None and not lock.accepts(record.statement_sha):
            found.append(Violation(kind="done_without_proof", where=where, theorem=entry.label,
                                   message="its recorded proof was checked against another statement"))
        else:
            claims.append((entry.label, list(record.tactics), where))
    return found, claims


def _audit_trajectories(path: Path, locks: dict[str, LockedStatement]) -> tuple[list[Violation], int]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=["theorem", "statement_sha", "tactic", "label", "backend"])
    except (OSError, ValueError) as exc:
        return [Violation(kind="unreadable", where=str(path), message=str(exc))], 0
    found: list[Violation] = []
    rows = table.to_pylist()
    shas: dict[str, set[str]] = {}
    for row in rows:
        shas.setdefault(row["theorem"], set()).add(row["statement_sha"])
        if not row.get("backend"):
            found.append(Violation(kind="backend_missing", where=str(path), theorem=row["theorem"],
                                   message="trajectory row records no backend"))
            break
    for name, seen in shas.items():
        lock = locks.get(name)
        if lock is not None and not all(lock.accepts(sha) for sha in seen):
            found.append(Violation(kind="statement_drift", where=str(path), theorem=name,
                                   message=f"trajectory statement hash differs from its lock ({lock.source})"))
    for row in rows:
        if row["label"] == 1 and row.get("tactic") and _SORRY.search(row["tactic"]):
            found.append(Violation(kind="sorry_in_proof", where=str(path), theorem=row["theorem"],
                                   message="a proof-path tactic uses sorry/admit"))
    return found, len(rows)


async def _replay(
    config: AuditConfig, claims: Iterable[tuple[str, list[str], str]], locks: dict[str, LockedStatement]
) -> tuple[list[Violation], int, list[str]]:
    from burnqed.lean import LeanPool

    found: list[Violation] = []
    warnings: list[str] = []
    replayed = 0
    todo = [(n, p, w) for n, p, w in claims if n in locks]
    warnings += [f"{w}: {n}: no locked statement known, proof not replayed" for n, _, w in claims if n not in locks]
    if not todo:
        return found, 0, warnings
    async with LeanPool(config.lean) as pool:
        for name, proof, where in todo:
            verdict = await pool.verify_proof(ProofTarget.of(locks[name].statement, locks[name].header), proof)
            replayed += 1
            if not verdict.ok:
                found.append(Violation(kind="replay_failed", where=where, theorem=name,
                                       message=f"claimed proof fails replay on {pool.backend}: {verdict.reason}"))
    return found, replayed, warnings


async def run_audit(config: AuditConfig, run_dir: Path, *, replay: bool = False) -> AuditReport:
    """Audit one run directory (its BLUEPRINT.md, trajectories, eval results and tool-call log)."""
    layout = RunLayout(run_dir)
    blueprint_path = layout.blueprint
    locks, violations = locked_statements(config, blueprint_path)
    warnings: list[str] = []
    checked = {"locked_statements": len(locks), "trajectory_files": 0, "trajectory_rows": 0, "eval_results": 0,
               "claims": 0, "replayed": 0}
    for path in sorted(layout.trajectories_dir.glob("*.parquet")):
        found, rows = _audit_trajectories(path, locks)
        violations += found
        checked["trajectory_files"] += 1
        checked["trajectory_rows"] += rows
    found, claims = _audit_done_targets(config, blueprint_path, locks)
    violations += found
    for path in sorted(layout.eval_results_dir.glob("*.json")):
        found, proved = _audit_eval(path, locks)
        violations += found
        claims += proved
        checked["eval_results"] += 1
    checked["claims"] = len(claims)
    if replay and claims:
        found, replayed, notes = await _replay(config, claims, locks)
        violations += found
        warnings += notes
        checked["replayed"] = replayed
    usage = _tool_usage(config, run_dir)
    refusals = _boundary_refusals(config, run_dir)
    violations += refusals
    checked["boundary_refusals"] = len(refusals)
    return AuditReport(run_dir=str(run_dir), violations=violations, warnings=warnings, checked=checked,
                       tool_usage=usage)


def _call_log(config: AuditConfig, run_dir: Path) -> Path | None:
    from burnqed.tools.common.run_files import tool_call_log

    for candidate in (tool_call_log(RunLayout(run_dir).logs), tool_call_log(config.paths.logs_dir)):
        if candidate.is_file():
            return candidate
    return None


def _boundary_refusals(config: AuditConfig, run_dir: Path) -> list[Violation]:
    """One violation per (server, tool, rule, client) the trust boundary refused, with the count."""
    from burnqed.tools.common.calllog import ToolCallLog

    path = _call_log(config, run_dir)
    if path is None:
        return []
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for rec in ToolCallLog(path).read():
        if rec.refusal is None:
            continue
        key = (rec.server, rec.tool, rec.refusal, rec.client or "stdio")
        groups.setdefault(key, []).append(rec.time.isoformat())
    return [
        Violation(
            kind="boundary_refused",
            where=str(path),
            message=f"{server}.{tool} refused [{rule}] {len(times)}x for client {client} (first {times[0]})",
        )
        for (server, tool, rule, client), times in sorted(groups.items())
    ]


def _tool_usage(config: AuditConfig, run_dir: Path) -> dict[str, Any] | None:
    from burnqed.tools.stats.service import StatsService

    for candidate in [c for c in (_call_log(config, run_dir),) if c is not None]:
        if candidate.is_file():
            usage = StatsService(run_dir, candidate, show_held_out=True).tool_usage()
            return {"log": str(candidate), **usage.model_dump(mode="json")}
    return None
