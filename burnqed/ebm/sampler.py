"""Contrastive groups from trajectory Parquet: one proof-path state against K dead ends.

Negatives come in three kinds, mixed by the configured ratios:

- hard: dead-end siblings of the positive (children of the same parent, label 0): the
  alternatives the search actually had to rank against the right step;
- medium: other dead ends of the same theorem;
- easy: dead ends of other theorems.

Easy negatives are drawn from other theorems' *dead ends*, not from their proof paths,
so a provable state is never pushed up merely for belonging to another theorem. A state
text that lies on a theorem's proof path anywhere is never used as that theorem's negative.
When a kind runs short its share passes to the next (hard → medium → easy → hard), and a
pool smaller than K is sampled with replacement.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict

from burnqed.ebm.config import EBMConfig
from burnqed.ebm.errors import EBMDataError
from burnqed.trajectory.schema import POSITIVE

__all__ = ["ContrastiveGroup", "ContrastiveSampler", "NegativeKind", "SamplerStats"]

NegativeKind = Literal["hard", "medium", "easy"]
_KINDS: tuple[NegativeKind, ...] = ("hard", "medium", "easy")
_COLUMNS = [
    "theorem",
    "node_id",
    "parent_id",
    "state",
    "depth",
    "remaining_depth",
    "label",
    "proof_complete",
    "iteration",
]


@dataclass(frozen=True, slots=True)
class ContrastiveGroup:
    """One positive state, its remaining proof depth, and K negatives with their kinds."""

    theorem: str
    positive: str
    remaining_depth: int
    negatives: tuple[str, ...]
    kinds: tuple[NegativeKind, ...]


class SamplerStats(BaseModel):
    """What the trajectories offer for contrastive training."""

    model_config = ConfigDict(frozen=True)

    theorems: int
    positives: int
    negatives: int
    positives_with_hard: int


@dataclass(slots=True)
class _Positive:
    theorem: str
    state: str
    remaining_depth: int
    hard: list[str]


def _read(source: Sequence[str | Path] | str | Path | pa.Table) -> list[pa.Table]:
    if isinstance(source, pa.Table):
        return [source]
    paths = [source] if isinstance(source, str | Path) else list(source)
    if not paths:
        raise EBMDataError("no trajectory files given")
    tables = []
    for path in paths:
        try:
            tables.append(pq.read_table(path, columns=_COLUMNS))
        except (OSError, pa.ArrowInvalid, KeyError) as exc:
            raise EBMDataError(f"cannot read trajectories {path}: {exc}") from exc
    return tables


class ContrastiveSampler:
    """Builds contrastive groups from trajectories (files, a directory, or a pyarrow Table)."""

    def __init__(
        self,
        source: Sequence[str | Path] | str | Path | pa.Table,
        config: EBMConfig | None = None,
    ) -> None:
        self.config = config or EBMConfig()
        self._tables = _read(source)
        self._positives: list[_Positive] = []
        # every dead end, grouped by theorem into one contiguous run of ``_negatives``
        self._negatives: list[str] = []
        self._range: dict[str, tuple[int, int]] = {}
        self._build()
        if not self._positives:
            raise EBMDataError("the trajectories hold no proof-path state with a negative to contrast it with")

    def _build(self) -> None:
        rows = defaultdict(list)  # search key -> rows; node ids are local to one search
        for index, table in enumerate(self._tables):
            for row in table.to_pylist():
                rows[(index, row["theorem"], row["iteration"])].append(row)
        positive_states: dict[str, set[str]] = defaultdict(set)
        for search in rows.values():
            for row in search:
                if row["label"] == POSITIVE:
                    positive_states[row["theorem"]].add(row["state"])
        negs: dict[str, dict[str, None]] = defaultdict(dict)  # theorem -> ordered set of dead ends
        found: dict[tuple[str, str], _Positive] = {}
        for search in rows.values():
            theorem = search[0]["theorem"]
            own_positive = positive_states[theorem]
            children: dict[int | None, list[str]] = defaultdict(list)
            for row in search:
                if row["label"] != POSITIVE and row["state"] not in own_positive:
                    children[row["parent_id"]].append(row["state"])
                    negs[theorem][row["state"]] = None
            path = [r for r in search if r["label"] == POSITIVE]
            deepest = max((r["depth"] for r in path), default=0)
            for row in path:
                if row["proof_complete"] and not self.config.include_terminal:
                    continue
                remaining = row["remaining_depth"]
                if remaining is None:  # older writers: derive it from the path's depth
                    remaining = deepest - row["depth"]
                hard = children.get(row["parent_id"], []) if row["parent_id"] is not None else []
                key = (theorem, row["state"])
                if key in found:
                    entry = found[key]
                    entry.remaining_depth = min(entry.remaining_depth, remaining)
                    entry.hard.extend(s for s in hard if s not in entry.hard)
                else:
                    found[key] = _Positive(theorem, row["state"], remaining, list(dict.fromkeys(hard)))
        for theorem in sorted(negs):
            start = len(self._negatives)
            self._negatives.extend(negs[theorem])
            self._range[theorem] = (start, len(self._negatives))
        total = len(self._negatives)
        for key in sorted(found):
            pos = found[key]
            lo, hi = self._range.get(pos.theorem, (0, 0))
            if total - (hi - lo) > 0 or hi > lo:  # something to contrast with
                self._positives.append(pos)

    def stats(self) -> SamplerStats:
        """Counts of theorems, usable positives and dead ends."""
        return SamplerStats(
            theorems=len({p.theorem for p in self._positives} | set(self._range)),
            positives=len(self._positives),
            negatives=len(self._negatives),
            positives_with_hard=sum(1 for p in self._positives if p.hard),
        )

    @property
    def theorems(self) -> list[str]:
        """Theorems with at least one usable positive, sorted."""
        return sorted({p.theorem for p in self._positives})

    def states(self) -> list[str]:
        """Every distinct state a group can contain (for filling an embedding cache)."""
        return list(dict.fromkeys([p.state for p in self._positives] + self._negatives))

    def subset(self, theorems: Iterable[str]) -> ContrastiveSampler:
        """A sampler over the same trajectories restricted to ``theorems``."""
        keep = pa.array(sorted(set(theorems)), type=pa.string())
        tables = [t.filter(pc.is_in(t["theorem"], value_set=keep)) for t in self._tables]
        sub = ContrastiveSampler.__new__(ContrastiveSampler)
        sub.config = self.config
        sub._tables = tables
        sub._positives, sub._negatives, sub._range = [], [], {}
        sub._build()
        if not sub._positives:
            raise EBMDataError("no usable positive among the selected theorems")
        return sub

    def split(self, fraction: float, seed: int = 0) -> tuple[ContrastiveSampler, ContrastiveSampler | None]:
        """(train, held-out) samplers split by theorem; held-out is None when too few theorems."""
        names = self.theorems
        n_val = round(len(names) * fraction)
        if fraction <= 0 or n_val < 1 or len(names) - n_val < 1:
            return self, None
        random.Random(seed).shuffle(names)
        return self.subset(names[n_val:]), self.subset(names[:n_val])

    def _quota(self) -> list[int]:
        c, k = self.config, self.config.num_negatives
        total = c.hard_ratio + c.medium_ratio + c.easy_ratio
        hard = round(k * c.hard_ratio / total)
        medium = min(k - hard, round(k * c.medium_ratio / total))
        return [hard, medium, k - hard - medium]

    def _easy(self, theorem: str, n: int, rng: random.Random) -> list[str]:
        """Up to n distinct dead ends of other theorems (all runs but the theorem's own)."""
        lo, hi = self._range.get(theorem, (0, 0))
        size = len(self._negatives) - (hi - lo)
        if size <= 0 or n <= 0:
            return []
        picks = rng.sample(range(size), min(size, n))
        return [self._negatives[i if i < lo else i + (hi - lo)] for i in picks]

    def _group(self, pos: _Positive, rng: random.Random) -> ContrastiveGroup:
        lo, hi = self._range.get(pos.theorem, (0, 0))
        hard_set = set(pos.hard)
        pools: dict[NegativeKind, list[str]] = {
            "hard": pos.hard,
            "medium": [s for s in self._negatives[lo:hi] if s not in hard_set],
        }
        chosen: list[tuple[str, NegativeKind]] = []
        carry = 0
        for kind, want in zip(_KINDS, self._quota(), strict=True):
            want += carry
            if kind == "easy":
                picked = self._easy(pos.theorem, want, rng)
            else:
                pool = pools[kind]
                picked = rng.sample(pool, min(want, len(pool)))
            chosen += [(s, kind) for s in picked]
            carry = want - len(picked)
        if carry:  # easy ran short: back to the unused hard and medium states
            for kind in ("hard", "medium"):
                rest = [s for s in pools[kind] if (s, kind) not in chosen]
                picked = rng.sample(rest, min(carry, len(rest)))
                chosen += [(s, kind) for s in picked]
                carry -= len(picked)
        if carry:  # fewer distinct negatives than K: repeat some
            chosen += [rng.choice(chosen) for _ in range(carry)]
        rng.shuffle(chosen)
        return ContrastiveGroup(
            theorem=pos.theorem,
            positive=pos.state,
            remaining_depth=pos.remaining_depth,
            negatives=tuple(s for s, _ in chosen),
            kinds=tuple(k for _, k in chosen),
        )

    def groups(self, epoch: int = 0) -> list[ContrastiveGroup]:
        """One group per positive, shuffled; deterministic for (config.seed, epoch)."""
        rng = random.Random(self.config.seed * 1_000_003 + epoch)
        order = list(self._positives)
        rng.shuffle(order)
        return [self._group(p, rng) for p in order]

    def __len__(self) -> int:
        """Groups per epoch."""
        return len(self._positives)
