"""What an iteration learns from and is measured on: theorem sets, subsets and (state, tactic) pairs.

Reference pairs come from replaying each reference proof through the Lean pool, so the
states are rendered exactly as the search will see them (``render_goals``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from burnqed.data.theorems import Theorem, load_theorems
from burnqed.iteration.config import IterationRunConfig
from burnqed.iteration.errors import IterationDataError
from burnqed.lean.errors import InvalidInput, InvalidStatement, LeanError
from burnqed.lean.protocol import render_goals
from burnqed.search.protocols import ProofPool

__all__ = [
    "even_subset",
    "extra_pairs",
    "load_pairs_file",
    "load_set",
    "reference_pairs",
    "save_pairs_file",
    "training_set",
    "training_set_label",
    "trajectory_pairs",
]

log = logging.getLogger(__name__)

Pair = tuple[str, str]


def training_set(config: IterationRunConfig, index: int) -> list[Theorem]:
    """The theorems iteration ``index`` searches: the configured set, or a fresh one per iteration.

    With ``iteration.fresh_train_set`` iteration N gets ``benchmark-train`` generated with
    seed ``data.train_seed + N`` (a deterministic function of N, so a resumed run gets the
    same set back). From N = 1 on the names carry the seed: the generator names every
    set's slots alike, and trajectories are grouped by theorem name (energy-head data).
    """
    it = config.iteration
    if not it.fresh_train_set:
        return load_set(it.train_set, it.train_size, config)
    if it.train_set != "benchmark-train":
        raise IterationDataError(f"fresh_train_set needs train_set = 'benchmark-train', not {it.train_set!r}")
    theorems = load_set(it.train_set, it.train_size, config, seed_offset=index)
    if index == 0:
        return theorems
    seed = config.data.train_seed + index
    return [t.model_copy(update={"name": f"s{seed}_{t.name}"}) for t in theorems]


def training_set_label(config: IterationRunConfig, index: int) -> str:
    """How a step's marker names the training set of iteration ``index`` (set, seed, size)."""
    it = config.iteration
    if it.train_set != "benchmark-train":
        return f"{it.train_set}[{it.train_size}]"
    offset = index if it.fresh_train_set else 0
    return f"benchmark-train[seed={config.data.train_seed + offset},n={it.train_size}]"


def load_set(name: str, size: int, config: IterationRunConfig, seed_offset: int = 0) -> list[Theorem]:
    """A theorem set by built-in name or .jsonl path, cut to ``size`` evenly spaced theorems (0 = all).

    ``benchmark-train`` is generated at exactly ``size`` (its slots are graded by difficulty),
    with seed ``data.train_seed + seed_offset``.
    """
    from burnqed.data.sets import BUILTIN_SETS, load_builtin

    if name == "benchmark-train" and size > 0:
        seed = config.data.train_seed + seed_offset
        data = config.data.model_copy(update={"train_size": size, "train_seed": seed})
        theorems = load_builtin(name, home=config.paths.home, config=data)
    elif name in BUILTIN_SETS:
        theorems = load_builtin(name, home=config.paths.home, config=config.data)
    else:
        theorems = load_theorems(name)
    if not theorems:
        raise IterationDataError(f"theorem set {name!r} is empty")
    return even_subset(theorems, size)


def even_subset(theorems: Sequence[Theorem], size: int) -> list[Theorem]:
    """``size`` theorems spread evenly over the list (graded sets keep every difficulty); 0 = all."""
    n = len(theorems)
    if size <= 0 or size >= n:
        return list(theorems)
    return [theorems[(i * n) // size] for i in range(size)]


async def reference_pairs(
    pool: ProofPool, theorems: Sequence[Theorem], concurrency: int = 4, *, whole: bool = False
) -> list[Pair]:
    """(state, tactic) pairs of every reference proof, replayed through the pool; broken proofs are skipped.

    ``whole``: each state on the path is paired with the rest of the proof from it, one tactic per
    line (what a whole-proof model in the ``plain`` format is trained on: whole and hybrid search).
    """
    results: dict[int, list[Pair]] = {}
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def replay(index: int, theorem: Theorem) -> None:
        if not theorem.proof:
            return
        pairs: list[Pair] = []
        async with limiter:
            try:
                async with pool.start_proof(theorem.target) as proof:
                    state_id, state = proof.state_id, render_goals(list(proof.goals))
                    for k, tactic in enumerate(theorem.proof):
                        out = await proof.run_tactic(state_id, tactic)
                        if out.next_state_id is None:
                            log.warning("reference proof of %s fails at %r; skipped", theorem.name, tactic)
                            return
                        pairs.append((state, "\n".join(theorem.proof[k:]) if whole else tactic))
                        state_id, state = out.next_state_id, render_goals(list(out.goals or []))
            except (InvalidStatement, InvalidInput) as exc:
                log.warning("reference proof of %s not replayed: %s", theorem.name, exc)
                return
            except LeanError as exc:
                log.warning("replay of %s lost its worker: %s", theorem.name, exc)
                return
        results[index] = pairs

    async with anyio.create_task_group() as tg:
        for index, theorem in enumerate(theorems):
            tg.start_soon(replay, index, theorem)
    pairs = [p for i in sorted(results) for p in results[i]]
    return list(dict.fromkeys(pairs))


def trajectory_pairs(paths: Sequence[Path]) -> list[Pair]:
    """(parent state, tactic) pairs on the proof paths of trajectory files, de-duplicated."""
    from burnqed.policy.sft import load_pairs

    pairs: list[Pair] = []
    for path in paths:
        pairs += load_pairs(path)
    return list(dict.fromkeys(pairs))


def extra_pairs(paths: Sequence[Path]) -> list[Pair]:
    """The pairs of ``iteration.extra_pairs`` files (read by ``load_pairs``), de-duplicated; a missing
    or unreadable file is an IterationDataError."""
    from burnqed.policy.errors import SFTError
    from burnqed.policy.sft import load_pairs

    pairs: list[Pair] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise IterationDataError(f"iteration.extra_pairs: {path} does not exist")
        try:
            found = load_pairs(path)
        except SFTError as exc:
            raise IterationDataError(f"iteration.extra_pairs: {exc}") from exc
        if not found:
            log.warning("iteration.extra_pairs: %s holds no pairs", path)
        pairs += found
    return list(dict.fromkeys(pairs))


def save_pairs_file(path: Path, pairs: Sequence[Pair], sources: Sequence[dict[str, Any]] | None = None) -> None:
    """Write pairs as JSON Lines (``state``, ``tactic``, and each pair's ``sources`` entry) atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for i, (state, tactic) in enumerate(pairs):
            extra = sources[i] if sources is not None else {}
            fh.write(json.dumps({"state": state, "tactic": tactic, **extra}, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def load_pairs_file(path: Path) -> list[Pair]:
    """Read pairs written by save_pairs_file."""
    return [
        (row["state"], row["tactic"])
        for row in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    ]
