"""What a run over a set of statements is: the statements, the search, where, and its store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from burnqed.cluster.spec import ClusterSpec
from burnqed.data.theorems import Theorem
from burnqed.search.components import Components
from burnqed.search.config import SearchConfig
from burnqed.search.protocols import ProofPool
from burnqed.search.results import SearchResult
from burnqed.search.store import StatementStore

if TYPE_CHECKING:
    from burnqed.cluster.campaign import CampaignReport

__all__ = ["Local", "ResultCallback", "RunOutcome", "RunStart", "StartCallback", "StatementRun"]


@dataclass(frozen=True, slots=True)
class Local:
    """Search on this process: an open pool and opened components (the caller owns both)."""

    pool: ProofPool
    components: Components


@dataclass(frozen=True, slots=True)
class StatementRun:
    """One run: ``theorems`` searched with ``search`` on ``where``, each committed to ``store``.

    ``store``: the StatementStore directory; a rerun with ``resume`` searches only what it
    lacks, whether the earlier attempt ran locally or on Ray. ``trajectories``: the Parquet
    output the store's shards are merged into (None: results only). ``finalize``: merge and
    remove the store when the run ends, however it ends; False leaves it to the caller
    (``RunOutcome.store.finalize()``), as an evaluation does after writing its report.
    """

    theorems: Sequence[Theorem]
    search: SearchConfig
    where: Local | ClusterSpec
    store: Path
    trajectories: Path | None = None
    resume: bool = True
    finalize: bool = True
    iteration: int = 0

    @property
    def on_cluster(self) -> bool:
        """Whether the statements go to Ray Lean actors."""
        return isinstance(self.where, ClusterSpec)


@dataclass(frozen=True, slots=True)
class RunStart:
    """Reported once the run's compute is up and its store open, before the first search."""

    total: int
    backend: str  # the Lean backend the searches run on
    done: int = 0  # already committed by an earlier attempt: not searched again
    lean_actors: int | None = None  # None: the local pool


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run gave."""

    # every committed result of the store for the theorems, in their order; those searched by this
    # run (locally) with their records, those an earlier attempt committed without
    results: list[SearchResult]
    searched: int  # statements this run searched
    skipped: int  # statements an earlier attempt had committed
    backend: str
    label: str
    policy_id: str
    ebm_id: str | None
    store: StatementStore
    cluster: CampaignReport | None = None  # the campaign's figures on Ray; None locally


ResultCallback = Callable[[SearchResult], None]
StartCallback = Callable[[RunStart], None]
