"""The search tree: explored states, duplicate detection, proof extraction and labelling."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from burnqed.trajectory.schema import NEGATIVE, POSITIVE, TrajectoryRecord

__all__ = ["SearchNode", "SearchTree", "state_key"]


@dataclass(slots=True)
class SearchNode:
    """One explored proof state."""

    node_id: int
    parent_id: int | None
    state_id: int | None
    state: str
    tactic: str | None
    depth: int
    log_prob: float | None
    cum_log_prob: float
    proof_complete: bool = False
    energy: float | None = None
    rejected: bool = False
    created: datetime = field(default_factory=lambda: datetime.now(UTC))


def state_key(state: str) -> str:
    """A rendered state with trailing spaces and blank lines dropped: states equal under it are one."""
    return "\n".join(line.rstrip() for line in state.strip().splitlines() if line.strip())


class SearchTree:
    """Nodes by id, with the set of rendered states seen (for duplicate pruning)."""

    def __init__(self) -> None:
        self.nodes: list[SearchNode] = []
        self._seen: set[str] = set()
        self._by_key: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def add_root(self, state: str, state_id: int | None) -> SearchNode:
        """The root (node 0) for the start state."""
        node = SearchNode(0, None, state_id, state, None, 0, None, 0.0)
        self.nodes.append(node)
        self._seen.add(state_key(state))
        self._by_key[state_key(state)] = 0
        return node

    def find(self, state: str) -> SearchNode | None:
        """The open node already holding ``state`` (None: not seen)."""
        node_id = self._by_key.get(state_key(state))
        return None if node_id is None else self.nodes[node_id]

    def add_child(
        self,
        parent: SearchNode,
        *,
        state: str,
        state_id: int | None,
        tactic: str,
        log_prob: float,
        proof_complete: bool,
    ) -> SearchNode | None:
        """A new child, or None when the state was seen before (solved states are never duplicates)."""
        if not proof_complete:
            key = state_key(state)
            if key in self._seen:
                return None
            self._seen.add(key)
            self._by_key[key] = len(self.nodes)
        node = SearchNode(
            node_id=len(self.nodes),
            parent_id=parent.node_id,
            state_id=state_id,
            state=state,
            tactic=tactic,
            depth=parent.depth + 1,
            log_prob=log_prob,
            cum_log_prob=parent.cum_log_prob + log_prob,
            proof_complete=proof_complete,
        )
        self.nodes.append(node)
        return node

    def path(self, node: SearchNode) -> list[SearchNode]:
        """Nodes from the root to ``node`` (inclusive)."""
        chain = [node]
        while chain[-1].parent_id is not None:
            chain.append(self.nodes[chain[-1].parent_id])
        chain.reverse()
        return chain

    def proof(self, node: SearchNode) -> list[str]:
        """The tactics leading from the root to ``node``."""
        return [n.tactic for n in self.path(node)[1:] if n.tactic is not None]

    def records(
        self,
        *,
        theorem: str,
        statement_sha: str,
        solved: SearchNode | None,
        backend: str,
        iteration: int,
    ) -> list[TrajectoryRecord]:
        """One labelled row per node: positive on the path to ``solved``, negative elsewhere."""
        on_path: dict[int, int] = {}
        if solved is not None:
            chain = self.path(solved)
            for node in chain:
                on_path[node.node_id] = solved.depth - node.depth
        rows: list[TrajectoryRecord] = []
        for node in self.nodes:
            remaining = on_path.get(node.node_id)
            rows.append(
                TrajectoryRecord(
                    theorem=theorem,
                    statement_sha=statement_sha,
                    node_id=node.node_id,
                    parent_id=node.parent_id,
                    state_id=node.state_id,
                    state=node.state,
                    tactic=node.tactic,
                    depth=node.depth,
                    remaining_depth=remaining,
                    label=POSITIVE if remaining is not None else NEGATIVE,
                    log_prob=node.log_prob,
                    energy=node.energy,
                    proof_complete=node.proof_complete,
                    iteration=iteration,
                    backend=backend,
                    timestamp=node.created,
                )
            )
        return rows
