"""Searching many theorems at once on a shared pool, policy and energy head."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import anyio

from burnqed.data.theorems import Theorem
from burnqed.search.config import SearchConfig
from burnqed.search.engine import BestFirstSearch
from burnqed.search.protocols import ProofPool, StateScorer, TacticGenerator
from burnqed.search.results import SearchResult
from burnqed.search.store import StatementStore

__all__ = ["ResultCallback", "search_theorems"]

log = logging.getLogger(__name__)

ResultCallback = Callable[[SearchResult], None]


async def search_theorems(
    pool: ProofPool,
    generator: TacticGenerator | None,
    scorer: StateScorer | None,
    theorems: Sequence[Theorem],
    config: SearchConfig,
    *,
    store: StatementStore | None = None,
    iteration: int = 0,
    on_result: ResultCallback | None = None,
) -> list[SearchResult]:
    """Search ``theorems`` with ``config.concurrency`` searches at once; results in input order.

    Each finished theorem is committed to ``store`` at once (its result and, when the store
    keeps trajectories, its rows, whole or not at all; an infrastructure outcome, ``lost`` or
    ``error``, writes no rows), then ``on_result`` is called. Theorems the store already holds
    are skipped (a resume). On cancellation the finished results stay committed; the caller
    finalises the store.
    """
    search = BestFirstSearch(pool, generator, scorer, config)
    done = store.done(theorems) if store is not None else set()
    todo = [(i, t) for i, t in enumerate(theorems) if t.name not in done]
    if len(todo) < len(theorems):
        log.info("skipping %d theorems already searched", len(theorems) - len(todo))
    results: dict[int, SearchResult] = {}
    limiter = anyio.CapacityLimiter(config.concurrency)

    async def one(index: int, theorem: Theorem) -> None:
        async with limiter:
            result = await search.prove(theorem, iteration=iteration)
        results[index] = result
        if store is not None:
            store.commit(result)
        if on_result is not None:
            on_result(result)

    async with anyio.create_task_group() as tg:
        for index, theorem in todo:
            tg.start_soon(one, index, theorem)
    return [results[i] for i in sorted(results)]
