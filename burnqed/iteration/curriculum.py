"""The curriculum (``iteration.curriculum``): an unlabeled pool, a small seed, a difficulty band.

The pool is ``iteration.pool_size`` benchmark statements (``generate`` with the held-out
statements excluded by hash, graded over levels 1 … 6, cached under ``paths.home/data``).
Its reference proofs are not supervision: only the ``seed_size`` statements of the seed
set (easy levels) give reference pairs, so the untrained base model can propose tactics at
all; every other pair comes from a proof the search found (kernel-checked, ``proved``).

Each iteration N searches ``train_size`` pool statements chosen from a band by their solve
history before N (``RUN/data/curriculum_history.json``):

* ``untried``   never searched; eligible when its level is at most frontier + ``band_width``
* ``sometimes`` proved in some attempts, not in all
* ``failing``   searched, never proved, fewer than ``give_up_after`` attempts
* ``always``    proved every time (saturated: not searched again)
* ``never``     never proved in ``give_up_after`` or more attempts (too hard for now)

``explore_share`` of the sample is untried statements, the rest ``sometimes`` and
``failing`` ones (each side fills up from the other when short). The frontier is the
highest level whose attempted statements were proved at least ``frontier_rate`` of the
time (``start_level`` before any history). The sample is a function of (``iteration.seed``,
N, the history of iterations < N), so a resumed iteration searches the same statements.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.theorems import Theorem, load_theorems, save_theorems
from burnqed.files import write_json_atomic
from burnqed.iteration.config import IterationRunConfig, pool_seed
from burnqed.iteration.errors import IterationDataError

__all__ = [
    "BUCKETS",
    "CurriculumHistory",
    "CurriculumSample",
    "bucket_of",
    "curriculum_pool",
    "curriculum_sample",
    "frontier_level",
    "level_of",
    "pool_cache_path",
    "seed_set",
    "seed_set_label",
    "shortest_proof_pairs",
]

log = logging.getLogger(__name__)

BUCKETS: tuple[str, ...] = ("untried", "sometimes", "failing", "always", "never")

Pair = tuple[str, str]


# ---------------------------------------------------------------- the pool and the seed


def pool_cache_path(home: Path, size: int, seed: int) -> Path:
    """Where the curriculum pool of this size and generator seed is cached."""
    from burnqed.data.benchmark import GENERATOR_VERSION

    return Path(home) / "data" / f"curriculum-pool-v{GENERATOR_VERSION}-seed{seed}-n{size}.jsonl"


def _excluded_hashes(config: IterationRunConfig) -> set[str]:
    """The held-out benchmark's hashes and those of the configured evaluation set."""
    from burnqed.data.sets import BUILTIN_SETS, held_out_hashes, load_builtin

    excluded = set(held_out_hashes())
    if config.iteration.world == "depth":
        # both held-out splits, whichever is evaluated: the pool is the same for a tuning and a test run
        for split in ("depth-test", "depth-tune"):
            excluded |= {t.sha for t in load_builtin(split, home=config.paths.home)}
    for name in dict.fromkeys((config.iteration.eval_set, config.iteration.held_out_set)):
        if name in BUILTIN_SETS and name != "benchmark-train":
            excluded |= {t.sha for t in load_builtin(name, home=config.paths.home, config=config.data)}
        elif name not in BUILTIN_SETS:
            excluded |= {t.sha for t in load_theorems(name)}
    return excluded


def curriculum_pool(config: IterationRunConfig) -> list[Theorem]:
    """The unlabeled training pool (``pool_N`` names), generated once and cached.

    Drawn with the benchmark generator at ``iteration.pool_size`` and seed
    ``pool_seed(config)`` (``data.train_seed``, + ``iteration.seed`` with ``seed_scope = "all"``); statements of the held-out set (and of ``iteration.eval_set``) are
    excluded by hash, and the exclusion is checked again on every load.
    """
    from burnqed.data.benchmark import generate
    from burnqed.embedded.repl.verify import new_checker

    it = config.iteration
    excluded = _excluded_hashes(config)
    seed = pool_seed(config)
    path = pool_cache_path(config.paths.home, it.pool_size, seed)
    if it.world == "depth":
        from burnqed.data.depth import DEPTH_VERSION, depth_pool

        path = path.with_name(f"depth-pool-v{DEPTH_VERSION}-seed{seed}-n{it.pool_size}"
                              f"-labelled{it.labelled_depth}.jsonl")
    if path.is_file():
        theorems = load_theorems(path)
    elif it.world == "depth":
        theorems = depth_pool(it.pool_size, seed, labelled_depth=it.labelled_depth,
                              exclude=excluded, max_attempts=config.data.max_attempts)
        save_theorems(path, theorems)
    else:
        drawn = generate(
            "train", it.pool_size, seed, exclude=excluded,
            checker=new_checker(config.data.verify_timeout_s), max_attempts=config.data.max_attempts,
        )  # fmt: skip
        theorems = [t.model_copy(update={"name": f"pool_{i:04d}"}) for i, t in enumerate(drawn)]
        save_theorems(path, theorems)
    leaked = [t.name for t in theorems if t.sha in excluded]
    if leaked:
        raise IterationDataError(f"curriculum pool {path} holds held-out statements: {', '.join(leaked[:5])}")
    return theorems


def level_of(theorem: Theorem) -> int:
    """A generated statement's nominal level (its ``level:`` tag; 1 when it has none)."""
    for tag in theorem.tags:
        if tag.startswith("level:"):
            return int(tag.split(":", 1)[1])
    return 1


def seed_set(config: IterationRunConfig, pool: Sequence[Theorem] | None = None) -> list[Theorem]:
    """The ``seed_size`` pool statements whose reference proofs bootstrap the base model.

    Evenly spaced over the pool's statements of level ≤ ``seed_max_level`` (the pool is
    graded, so the seed covers each easy level alike).
    """
    from burnqed.iteration.data import even_subset

    it = config.iteration
    pool = curriculum_pool(config) if pool is None else pool
    easy = [t for t in pool if level_of(t) <= it.seed_max_level and t.proof]
    if len(easy) < it.seed_size:
        raise IterationDataError(
            f"curriculum seed: {len(easy)} pool statements of level ≤ {it.seed_max_level}, seed_size {it.seed_size}"
        )
    return even_subset(easy, it.seed_size)


def seed_set_label(config: IterationRunConfig) -> str:
    """How the sft marker names the seed set."""
    it = config.iteration
    return f"curriculum-seed[pool_seed={pool_seed(config)},n={it.seed_size},levels<={it.seed_max_level}]"


# ---------------------------------------------------------------- the solve history


class CurriculumHistory(BaseModel):
    """Per iteration: which pool statements were searched and which were proved."""

    model_config = ConfigDict(extra="ignore")

    searched: dict[str, list[str]] = Field(default_factory=dict, description="iteration (str) -> names searched")
    proved: dict[str, list[str]] = Field(default_factory=dict, description="iteration (str) -> names proved")

    @classmethod
    def load(cls, path: Path) -> CurriculumHistory:
        """The history file, or an empty history."""
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()

    def save(self, path: Path) -> None:
        """Write atomically (temp file, fsync, rename)."""
        write_json_atomic(path, self.model_dump(mode="json"), indent=1)

    def record(self, index: int, searched: Iterable[str], proved: Iterable[str]) -> CurriculumHistory:
        """This history with iteration ``index``'s outcome (replacing an earlier record of it)."""
        return CurriculumHistory(
            searched=self.searched | {str(index): sorted(set(searched))},
            proved=self.proved | {str(index): sorted(set(proved))},
        )

    def before(self, index: int) -> dict[str, list[bool]]:
        """Each statement's outcomes in iterations < ``index``, in iteration order."""
        outcomes: dict[str, list[bool]] = {}
        for key in sorted(self.searched, key=int):
            if int(key) >= index:
                continue
            won = set(self.proved.get(key, ()))
            for name in self.searched[key]:
                outcomes.setdefault(name, []).append(name in won)
        return outcomes


def bucket_of(outcomes: Sequence[bool], give_up_after: int) -> str:
    """The band bucket of a statement with these earlier outcomes (BUCKETS)."""
    if not outcomes:
        return "untried"
    wins = sum(outcomes)
    if wins == len(outcomes):
        return "always"
    if wins:
        return "sometimes"
    return "never" if len(outcomes) >= give_up_after else "failing"


def frontier_level(pool: Sequence[Theorem], outcomes: dict[str, list[bool]], config: IterationRunConfig) -> int:
    """The highest level whose attempts were proved at least ``frontier_rate`` of the time.

    ``start_level`` while nothing has been searched; never below it.
    """
    it = config.iteration
    tried: dict[int, list[bool]] = {}
    for t in pool:
        if t.name in outcomes:
            tried.setdefault(level_of(t), []).extend(outcomes[t.name])
    frontier = it.start_level
    for level in sorted(tried):
        results = tried[level]
        if results and sum(results) / len(results) >= it.frontier_rate:
            frontier = max(frontier, level)
    return frontier


class CurriculumSample(BaseModel):
    """The statements one iteration searches and the band they came from."""

    model_config = ConfigDict(frozen=True)

    theorems: list[Theorem]
    frontier: int
    band: dict[str, int] = Field(description="pool statements per bucket before this iteration (seed set excluded)")
    picked: dict[str, int] = Field(description="sampled statements per bucket")

    def label(self, config: IterationRunConfig, index: int) -> str:
        """How the search marker names the sample."""
        it = config.iteration
        return f"curriculum[pool={it.pool_size},iter={index},n={len(self.theorems)},frontier={self.frontier}]"


def curriculum_sample(config: IterationRunConfig, history: CurriculumHistory, index: int) -> CurriculumSample:
    """The pool statements iteration ``index`` searches (deterministic in seed, index and history < index)."""
    it = config.iteration
    pool = curriculum_pool(config)
    seeds = {t.name for t in seed_set(config, pool)}
    candidates = [t for t in pool if t.name not in seeds]
    outcomes = history.before(index)
    frontier = frontier_level(candidates, outcomes, config)
    buckets: dict[str, list[Theorem]] = {b: [] for b in BUCKETS}
    for t in candidates:
        buckets[bucket_of(outcomes.get(t.name, []), it.give_up_after)].append(t)
    rng = random.Random(f"curriculum:{it.seed}:{index}")
    near = [t for t in buckets["untried"] if level_of(t) <= frontier + it.band_width]
    far = [t for t in buckets["untried"] if level_of(t) > frontier + it.band_width]
    open_ = buckets["sometimes"] + buckets["failing"]
    size = it.train_size
    explore = min(len(near), round(size * it.explore_share))
    retry = min(len(open_), size - explore)
    explore = min(len(near), size - retry)  # too few open statements: explore more
    chosen = rng.sample(near, explore) + rng.sample(open_, retry)
    if len(chosen) < size and far:
        # the band is spent: the easiest untried statements beyond it
        far.sort(key=lambda t: (level_of(t), rng.random()))
        chosen += far[: size - len(chosen)]
    if not chosen:
        raise IterationDataError(
            f"iteration {index}: the curriculum band is empty (every pool statement saturated or given up)"
        )
    picked = {b: 0 for b in BUCKETS}
    names = {t.name for t in chosen}
    for b, members in buckets.items():
        picked[b] = sum(t.name in names for t in members)
    order = {t.name: i for i, t in enumerate(pool)}
    chosen.sort(key=lambda t: order[t.name])
    return CurriculumSample(
        theorems=chosen, frontier=frontier, band={b: len(v) for b, v in buckets.items()}, picked=picked
    )


# ---------------------------------------------------------------- what the search found


def shortest_proof_pairs(paths: Sequence[Path]) -> tuple[list[Pair], list[dict[str, Any]]]:
    """The proof-path pairs of trajectory files, one proof per statement: its shortest found.

    Ties go to the earliest iteration. Returns the pairs (de-duplicated) and, per pair, its
    source (``{"source": "search", "iteration", "theorem"}``).
    """
    from burnqed.trajectory.reader import read_trajectories

    best: dict[str, tuple[int, int, str, list[Pair]]] = {}
    for path in paths:
        table = read_trajectories(
            path, ["theorem", "statement_sha", "iteration", "node_id", "parent_id", "state", "tactic", "label", "depth"]
        )
        rows = table.to_pylist()
        states = {(r["theorem"], r["iteration"], r["node_id"]): r["state"] for r in rows}
        proofs: dict[tuple[str, int], list[tuple[int, Pair]]] = {}
        shas: dict[tuple[str, int], str] = {}
        for r in rows:
            if r["label"] == 1 and r["tactic"] and r["parent_id"] is not None:
                parent = states.get((r["theorem"], r["iteration"], r["parent_id"]))
                if parent is not None:
                    key = (r["theorem"], r["iteration"])
                    proofs.setdefault(key, []).append((r["depth"], (parent, r["tactic"])))
                    shas[key] = r["statement_sha"]
        for (theorem, iteration), steps in proofs.items():
            steps.sort(key=lambda s: s[0])
            candidate = (len(steps), iteration, theorem, [p for _, p in steps])
            sha = shas[(theorem, iteration)]
            if sha not in best or candidate[:2] < best[sha][:2]:
                best[sha] = candidate
    pairs: list[Pair] = []
    sources: list[dict[str, Any]] = []
    seen: set[Pair] = set()
    for _, iteration, theorem, steps in sorted(best.values(), key=lambda b: (b[1], b[2])):
        for pair in steps:
            if pair not in seen:
                seen.add(pair)
                pairs.append(pair)
                sources.append({"source": "search", "iteration": iteration, "theorem": theorem})
    return pairs, sources
