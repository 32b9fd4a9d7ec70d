"""How well a score ranks proof-path states above the states a search explored off the path.

Measured on the trajectories of proved searches (only they have a proof path), for two rankers:

- ``head``: the energy head, lower energy ranks first (the ``energy`` of each record; states
  the head never scored, e.g. the root and closed states, are left out);
- ``policy``: the search's order without the head, the cumulative policy log-prob of the
  tactics from the root (higher ranks first).

Per ranker: ``auc``, the probability that a proof-path state outranks an off-path state of
the same search (pairs within one theorem only, ties count one half: energies of different
statements are not on one scale), and ``top1``, the share of proof-path states that rank
first among their siblings (children of the same parent that the ranker scored), counted
over path states with at least one scored sibling.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from burnqed.trajectory.schema import POSITIVE, TrajectoryRecord

__all__ = ["RankerQuality", "RankingQuality", "ranking_quality", "merge_ranking"]


class RankerQuality(BaseModel):
    """AUC and top-1-among-siblings of one ranker, with the counts they rest on."""

    model_config = ConfigDict(frozen=True)

    auc: float | None = Field(default=None, description="P(proof-path state outranks an off-path one), same search")
    pairs: int = Field(default=0, description="(path, off-path) pairs the AUC counts")
    wins: float = Field(default=0.0, description="pairs the path state outranked (ties one half)")
    top1: float | None = Field(default=None, description="share of path states ranked first among their siblings")
    groups: int = Field(default=0, description="path states with at least one scored sibling")
    firsts: int = Field(default=0, description="of those, ranked first")


class RankingQuality(BaseModel):
    """Ranking quality of the energy head and of the policy on one evaluation's proved searches."""

    model_config = ConfigDict(frozen=True)

    theorems: int = Field(default=0, description="proved searches with a proof path of at least one scored state")
    positives: int = Field(default=0, description="proof-path states (root and closed states left out)")
    negatives: int = Field(default=0, description="off-path states of the same searches")
    head: RankerQuality | None = Field(default=None, description="None when no state carries an energy")
    policy: RankerQuality


def _cumulative(records: Sequence[TrajectoryRecord]) -> dict[int, float]:
    by_id = {r.node_id: r for r in records}
    out: dict[int, float] = {}

    def total(node_id: int) -> float:
        if node_id in out:
            return out[node_id]
        chain = []
        current: int | None = node_id
        while current is not None and current not in out:
            chain.append(current)
            current = by_id[current].parent_id if current in by_id else None
        acc = out[current] if current is not None else 0.0
        for nid in reversed(chain):
            acc += by_id[nid].log_prob or 0.0
            out[nid] = acc
        return out[node_id]

    for r in records:
        total(r.node_id)
    return out


def _one_ranker(searches: list[list[tuple[TrajectoryRecord, float]]]) -> RankerQuality:
    """``searches``: per proved search, its scored non-root open states with their score (higher ranks first)."""
    pairs, wins, groups, firsts = 0, 0.0, 0, 0
    for scored in searches:
        positives = [s for r, s in scored if r.label == POSITIVE]
        negatives = sorted(s for r, s in scored if r.label != POSITIVE)
        for p in positives:
            for n in negatives:
                wins += 1.0 if p > n else 0.5 if p == n else 0.0
            pairs += len(negatives)
        siblings: dict[int | None, list[tuple[TrajectoryRecord, float]]] = defaultdict(list)
        for r, s in scored:
            siblings[r.parent_id].append((r, s))
        for r, s in scored:
            if r.label != POSITIVE:
                continue
            others = [o for q, o in siblings[r.parent_id] if q.node_id != r.node_id]
            if not others:
                continue
            groups += 1
            firsts += all(s > o for o in others)
    return RankerQuality(
        auc=wins / pairs if pairs else None, pairs=pairs, wins=wins,
        top1=firsts / groups if groups else None, groups=groups, firsts=firsts,
    )


def _scored(
    records: Sequence[TrajectoryRecord], score: Callable[[TrajectoryRecord], float | None]
) -> list[tuple[TrajectoryRecord, float]]:
    out = []
    for r in records:
        if r.parent_id is None or r.proof_complete:
            continue
        s = score(r)
        if s is not None:
            out.append((r, s))
    return out


def ranking_quality(searches: Iterable[Sequence[TrajectoryRecord]]) -> RankingQuality:
    """Ranking quality over the trajectories of several searches (unproved ones are skipped)."""
    head: list[list[tuple[TrajectoryRecord, float]]] = []
    policy: list[list[tuple[TrajectoryRecord, float]]] = []
    theorems = positives = negatives = 0
    any_energy = False
    for records in searches:
        if not any(r.label == POSITIVE and r.proof_complete for r in records):
            continue
        cumulative = _cumulative(records)
        with_policy = _scored(records, lambda r: cumulative.get(r.node_id))
        if not any(r.label == POSITIVE for r, _ in with_policy):
            continue
        theorems += 1
        positives += sum(r.label == POSITIVE for r, _ in with_policy)
        negatives += sum(r.label != POSITIVE for r, _ in with_policy)
        policy.append(with_policy)
        with_head = _scored(records, lambda r: None if r.energy is None else -r.energy)
        any_energy = any_energy or bool(with_head)
        head.append(with_head)
    return RankingQuality(
        theorems=theorems, positives=positives, negatives=negatives,
        head=_one_ranker(head) if any_energy else None, policy=_one_ranker(policy),
    )


def _merge_one(parts: Sequence[RankerQuality]) -> RankerQuality:
    pairs = sum(p.pairs for p in parts)
    wins = sum(p.wins for p in parts)
    groups = sum(p.groups for p in parts)
    firsts = sum(p.firsts for p in parts)
    return RankerQuality(
        auc=wins / pairs if pairs else None, pairs=pairs, wins=wins,
        top1=firsts / groups if groups else None, groups=groups, firsts=firsts,
    )


def merge_ranking(parts: Sequence[RankingQuality]) -> RankingQuality:
    """The ranking quality of several evaluations together (their pairs and sibling groups summed)."""
    heads = [p.head for p in parts if p.head is not None]
    return RankingQuality(
        theorems=sum(p.theorems for p in parts),
        positives=sum(p.positives for p in parts),
        negatives=sum(p.negatives for p in parts),
        head=_merge_one(heads) if heads else None,
        policy=_merge_one([p.policy for p in parts]),
    )
