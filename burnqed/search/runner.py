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
from burnqed.trajectory.writer import TrajectoryWriter

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
    writer: TrajectoryWriter | None = None,
    iteration: int = 0,
    on_result: ResultCallback | None = None,
) -> list[SearchResult]:
    """Search ``theorems`` with ``config.concurrency`` searches at once; results in input order.

    Each finished theorem's records go to ``writer`` at once (a theorem is written whole
    or not at all; an infrastructure outcome, ``lost`` or ``error``, writes none), then
    ``on_result`` is called. Theorems the writer already holds are
    skipped (``--resume``). On cancellation the finished results stay written; the
    caller finalises the writer.
    """
    search = BestFirstSearch(pool, generator, scorer, config)
    done = writer.done_theorems() if writer is not None else set()
    todo = [(i, t) for i, t in enumerate(theorems) if t.name not in done]
    if len(todo) < len(theorems):
        log.info("skipping %d theorems already searched", len(theorems) - len(todo))
    results: dict[int, SearchResult] = {}
    limiter = anyio.CapacityLimiter(config.concurrency)

    async def one(index: int, theorem: Theorem) -> None:
        async with limiter:
            result = await search.prove(theorem, iteration=iteration)
        results[index] = result
        if writer is not None and not result.infrastructure:
            # a lost worker's root row is no evidence about the theorem: no rows, so a resume
            # retries it and training never reads it as a failure
            writer.write(result.records)
        if on_result is not None:
            on_result(result)

    async with anyio.create_task_group() as tg:
        for index, theorem in todo:
            tg.start_soon(one, index, theorem)
    return [results[i] for i in sorted(results)]
