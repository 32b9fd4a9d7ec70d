"""The generation service: one model behind an async front that micro-batches.

Concurrent searches call ``await service.generate(states, n)``; requests wait in a bounded
queue (a full queue holds callers back: back-pressure), a dispatcher task gathers them
into micro-batches of at most ``max_batch_size`` states, waiting at most ``max_wait_s`` for
company, and runs each batch on the model. A synchronous model (``SyncPolicy``, e.g.
``PolicyModel``) runs on the one model thread, one batch at a time; it is the only thread
burnqed uses. An asynchronous model (``AsyncPolicy``: a server client, a model in a child
process) is awaited on the event loop, with up to its ``max_concurrency`` batches in
flight. A batch is gathered only when a slot is free, so batches grow while the model is
busy. A caller cancelled while its request is queued is skipped; one cancelled mid-batch
has its answer dropped.
"""

from __future__ import annotations

import inspect
import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from burnqed.policy.config import ServiceConfig
from burnqed.policy.errors import (
    PolicyError,
    PolicyGenerationError,
    ServiceClosed,
    ServiceNotRunning,
)
from burnqed.policy.types import PromptContext, TacticCandidate

if TYPE_CHECKING:
    import torch

__all__ = ["AsyncPolicy", "GenerationService", "ServiceStats", "SyncPolicy", "is_async_policy"]

log = logging.getLogger(__name__)


class SyncPolicy(Protocol):
    """What the service needs of a model (``PolicyModel`` is one)."""

    def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        """Candidates per state (a model that reads contexts also takes ``contexts=``)."""
        ...

    def encode(self, states: Sequence[str]) -> torch.Tensor:
        """One embedding row per state."""
        ...


class AsyncPolicy(Protocol):
    """A model the service awaits on the event loop (no thread): ``max_concurrency`` batches at once."""

    max_concurrency: int

    async def generate(self, states: Sequence[str], n: int) -> list[list[TacticCandidate]]:
        """Candidates per state."""
        ...

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """One embedding row per state."""
        ...


def is_async_policy(model: object) -> bool:
    """Whether ``model`` is awaited (AsyncPolicy) rather than run on the model thread."""
    return inspect.iscoroutinefunction(getattr(model, "generate", None))


@dataclass
class _Request:
    kind: Literal["generate", "encode"]
    states: list[str]
    n: int
    contexts: list[PromptContext] | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: BaseException | None = None
    cancelled: bool = False


@dataclass
class ServiceStats:
    """Counters since the service started."""

    requests: int = 0
    states: int = 0
    batches: int = 0
    cancelled: int = 0
    largest_batch: int = 0


class GenerationService:
    """Async, micro-batching front over one policy model; satisfies ``TacticGenerator``."""

    def __init__(
        self,
        model: SyncPolicy | AsyncPolicy,
        config: ServiceConfig | None = None,
        *,
        max_batch_size: int | None = None,
        max_wait_s: float | None = None,
        max_queue: int | None = None,
    ) -> None:
        """Limits: keyword arguments, else ``config``, else the model's ``PolicyConfig.service``."""
        defaults = config or getattr(getattr(model, "config", None), "service", None) or ServiceConfig()
        self.model = model
        self.max_batch_size = max_batch_size if max_batch_size is not None else defaults.max_batch_size
        self.max_wait_s = max_wait_s if max_wait_s is not None else defaults.max_wait_s
        self.max_queue = max_queue if max_queue is not None else defaults.max_queue
        if self.max_batch_size < 1 or self.max_queue < 1 or self.max_wait_s < 0:
            raise ValueError("max_batch_size and max_queue must be ≥ 1, max_wait_s ≥ 0")
        self.stats = ServiceStats()
        self._send: MemoryObjectSendStream[_Request] | None = None
        self._recv: MemoryObjectReceiveStream[_Request] | None = None
        self._group: TaskGroup | None = None
        self._carry: deque[_Request] = deque()
        self._limiter = anyio.CapacityLimiter(1)
        self._async = is_async_policy(model)
        # batches in flight: one on the model thread; an async model says how many it takes
        self._slots = anyio.Semaphore(max(1, int(getattr(model, "max_concurrency", 1))) if self._async else 1)
        self._closed = False

    async def __aenter__(self) -> Self:
        """Start the dispatcher."""
        if self._group is not None or self._closed:
            raise ServiceClosed("a GenerationService can be entered once")
        self._send, self._recv = anyio.create_memory_object_stream[_Request](self.max_queue)
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(self._dispatch)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        """Stop: queued requests fail with ServiceClosed; a batch on the model thread finishes first."""
        self._closed = True
        if self._group is None or self._send is None or self._recv is None:
            return None
        self._send.close()
        self._group.cancel_scope.cancel()
        try:
            return await self._group.__aexit__(exc_type, exc, tb)
        finally:
            pending = list(self._carry)
            self._carry.clear()
            while True:
                try:
                    pending.append(self._recv.receive_nowait())
                except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                    break
            self._recv.close()
            for req in pending:
                self._finish(req, error=ServiceClosed("the generation service shut down"))

    @property
    def fingerprint(self) -> str:
        """The model's checkpoint fingerprint (so the service can stand in for the model)."""
        return str(getattr(self.model, "fingerprint", ""))

    @property
    def hidden_size(self) -> int:
        """The model's embedding width."""
        return int(getattr(self.model, "hidden_size", 0))

    @property
    def queued(self) -> int:
        """Requests accepted but not yet on the model thread."""
        if self._send is None:
            return 0
        return self._send.statistics().current_buffer_used + len(self._carry)

    @property
    def waiting_to_enqueue(self) -> int:
        """Callers held back because the queue is full."""
        if self._send is None:
            return 0
        return self._send.statistics().tasks_waiting_send

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """Up to ``n`` de-duplicated candidates per state, best first."""
        if n < 1:
            raise ValueError("n must be at least 1")
        ctx = list(contexts) if contexts is not None else None
        result: list[list[TacticCandidate]] = await self._submit(_Request("generate", list(states), n, ctx))
        return result

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """State embeddings, (len(states), hidden_size)."""
        result: torch.Tensor = await self._submit(_Request("encode", list(states), 0))
        return result

    async def _submit(self, req: _Request) -> Any:
        if self._send is None:
            raise ServiceNotRunning("use the GenerationService inside `async with service:`")
        if self._closed:
            raise ServiceClosed("the generation service is closed")
        if not req.states:
            return self._empty(req.kind)
        try:
            await self._send.send(req)  # blocks while the queue is full: back-pressure
            await req.done.wait()
        except anyio.get_cancelled_exc_class():
            req.cancelled = True
            self.stats.cancelled += 1
            raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            raise ServiceClosed("the generation service is closed") from exc
        if req.error is not None:
            raise req.error
        return req.result

    def _empty(self, kind: str) -> Any:
        if kind == "generate":
            return []
        import torch

        return torch.zeros(0, self.hidden_size)

    async def _next(self) -> _Request | None:
        if self._carry:
            return self._carry.popleft()
        if self._recv is None:
            return None
        try:
            return await self._recv.receive()
        except anyio.EndOfStream:
            return None

    async def _dispatch(self) -> None:
        """Gather micro-batches of one kind (and one n) whenever the model has a free slot, and run them."""
        if self._recv is None or self._group is None:
            return
        while True:
            await self._slots.acquire()
            try:
                first = await self._next()
                if first is None:
                    self._slots.release()
                    return
                if first.cancelled:
                    self._slots.release()
                    continue
                batch = [first]
                try:
                    await self._gather(batch)
                except anyio.get_cancelled_exc_class():
                    self._carry.extendleft(reversed(batch))  # shutdown: __aexit__ refuses them
                    raise
            except BaseException:
                self._slots.release()
                raise
            self._group.start_soon(self._run_in_slot, batch)

    async def _run_in_slot(self, batch: list[_Request]) -> None:
        try:
            await self._run(batch)
        finally:
            self._slots.release()

    async def _gather(self, batch: list[_Request]) -> None:
        """Add compatible queued requests to ``batch`` until it is full or ``max_wait_s`` passed."""
        if self._recv is None:
            return
        first, size = batch[0], len(batch[0].states)
        with anyio.move_on_after(self.max_wait_s):
            while size < self.max_batch_size:
                try:
                    req = self._carry.popleft() if self._carry else await self._recv.receive()
                except anyio.EndOfStream:
                    return
                if req.cancelled:
                    continue
                if (req.kind, req.n) != (first.kind, first.n) or size + len(req.states) > self.max_batch_size:
                    self._carry.appendleft(req)  # starts the next batch
                    return
                batch.append(req)
                size += len(req.states)

    async def _run(self, batch: list[_Request]) -> None:
        batch = [r for r in batch if not r.cancelled]
        if not batch:
            return
        states = [s for r in batch for s in r.states]
        kind, n = batch[0].kind, batch[0].n
        contexts: list[PromptContext] | None = None
        if any(r.contexts is not None for r in batch):  # only models that read contexts are handed them
            contexts = [c for r in batch for c in (r.contexts or [PromptContext(state=s) for s in r.states])]
        self.stats.batches += 1
        self.stats.requests += len(batch)
        self.stats.states += len(states)
        self.stats.largest_batch = max(self.stats.largest_batch, len(states))
        try:
            # shielded: a batch on the model finishes and is delivered even at shutdown
            with anyio.CancelScope(shield=True):
                if self._async:
                    output = await self._acall(kind, states, n, contexts)
                else:
                    output = await anyio.to_thread.run_sync(self._call, kind, states, n, contexts, limiter=self._limiter)
        except PolicyError as exc:
            for req in batch:
                self._finish(req, error=exc)
            return
        except Exception as exc:  # noqa: BLE001 - any model failure is reported to every caller of the batch
            error = PolicyGenerationError(f"{kind} failed: {exc!r}")
            error.__cause__ = exc
            for req in batch:
                self._finish(req, error=error)
            return
        start = 0
        for req in batch:
            self._finish(req, result=output[start : start + len(req.states)])
            start += len(req.states)

    async def _acall(self, kind: str, states: list[str], n: int, contexts: list[PromptContext] | None = None) -> Any:
        """Awaits an AsyncPolicy on the event loop."""
        if kind == "generate":
            if contexts is not None:
                return await self.model.generate(states, n, contexts=contexts)  # type: ignore[call-arg,misc]
            return await self.model.generate(states, n)  # type: ignore[misc]
        return await self.model.encode(states)  # type: ignore[misc]

    def _call(self, kind: str, states: list[str], n: int, contexts: list[PromptContext] | None = None) -> Any:
        """Runs on the model thread."""
        if kind == "generate":
            if contexts is not None:
                return self.model.generate(states, n, contexts=contexts)  # type: ignore[call-arg]
            return self.model.generate(states, n)
        return self.model.encode(states)

    @staticmethod
    def _finish(req: _Request, *, result: Any = None, error: BaseException | None = None) -> None:
        req.result, req.error = result, error
        req.done.set()
