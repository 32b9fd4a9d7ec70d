"""The user's own theorems as the coordinator's targets (``burnqed coordinator start --theorems FILE``).

``own_targets`` carves the run's training and held-out sets (burnqed.iteration.targets),
registers every training statement in the BLUEPRINT as a theorem target (statement locked),
both sets as theorem_set targets, and points the scripted brain's probe at the ``targets``
set (burnqed.tools.search.tools.TARGETS_SET), so the agent's search jobs and the scheduled
iterations run on the user's statements. ``record_found_proofs`` records the proofs the
iterations' searches found as the targets' proofs, each through the same gate as the
agent's ``record_proof`` (burnqed.tools.blueprint.proof_gate.ProofGate).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TypeVar

from burnqed.coordination.config import CoordinationRunConfig

__all__ = ["own_targets", "record_found_proofs"]

C = TypeVar("C", bound=CoordinationRunConfig)

log = logging.getLogger(__name__)


def own_targets(config: C, run_dir: Path) -> C:
    """With ``iteration.theorems``: the run's sets carved and registered, the probe on them; else ``config``."""
    from burnqed.blueprint import BlueprintStore
    from burnqed.data.theorems import load_theorems
    from burnqed.iteration.targets import prepare_targets
    from burnqed.tools.search.tools import TARGETS_SET

    if config.iteration.theorems is None:
        return config
    config = prepare_targets(config, run_dir)
    store = BlueprintStore(config.blueprint.path, config.blueprint)
    train = load_theorems(config.iteration.train_set)
    store.register_target("theorem_set", "own_train", file=str(config.iteration.train_set),
                          note=f"your statements from {config.iteration.theorems}: searched by every iteration")
    store.register_target("theorem_set", "own_held_out", file=str(config.iteration.eval_set),
                          note="held-out statements: evaluated by the daemon; the agent never sees them")
    for theorem in train:
        store.register_target("theorem", theorem.name, statement=theorem.statement, file=str(config.iteration.train_set))
    coordinator = config.coordinator.model_copy(update={"probe_set": TARGETS_SET})
    return config.model_copy(update={"coordinator": coordinator})


async def record_found_proofs(config: CoordinationRunConfig, run_dir: Path) -> int:
    """Record each theorem target's shortest proof found in the run's trajectories through the proof gate;
    the number recorded (a proof the gate refuses is logged and left out)."""
    from burnqed.blueprint import BlueprintError, BlueprintStore
    from burnqed.iteration.layout import RunLayout
    from burnqed.tools.common.errors import ToolsError
    from burnqed.tools.blueprint.proof_gate import ProofGate
    from burnqed.trajectory.reader import proofs_in

    if config.iteration.theorems is None:
        return 0
    found: dict[str, list[str]] = {}
    directory = RunLayout(run_dir).trajectories_dir
    for path in sorted(directory.glob("iter_*.parquet")) if directory.is_dir() else []:
        for name, tactics in proofs_in(path).items():
            if name not in found or len(tactics) < len(found[name]):
                found[name] = tactics
    store = BlueprintStore(config.blueprint.path, config.blueprint)
    blueprint = store.read()
    todo = [
        e for e in blueprint.entries
        if e.kind == "theorem" and e.label in found and e.status != "done" and e.statement is not None
    ]  # fmt: skip
    if not todo:
        return 0
    recorded = 0
    ledger = store.ledger.read()
    async with ProofGate(config) as gate:
        for entry in todo:
            locked = ledger.get(entry.label) or entry.statement_sha
            if locked is None or entry.statement is None:
                continue
            try:
                record = await gate.verify(entry.label, entry.statement, locked, found[entry.label], source="iteration search")
                store.record_proof(record, note="proved by an iteration's search")
            except (ToolsError, BlueprintError) as exc:
                log.warning("the proof of %s found by an iteration was not recorded: %s", entry.label, exc)
                continue
            recorded += 1
    return recorded
