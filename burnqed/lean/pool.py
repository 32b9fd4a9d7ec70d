"""The pool: N Lean workers with fixed imports, lent out one proof at a time.

``start_proof`` / ``open_proof`` take a free worker (FIFO-fair, bounded by
``acquire_timeout_s`` → PoolExhausted) and return a ProofHandle that holds it until
closed.

A header's commands are the worker's (LeanWorker.take_header: goal.tactic elaborates in
the REPL's own scope, which only frontend.process with inheritEnv sets). A worker that took
one header is never given another (definitions cannot be taken back): it is replaced by a
fresh process, and idle workers that took the wanted header are lent first. There is no pool-level run_tactic. A worker that died is replaced in the
background at once; a worker past ``max_requests_per_worker`` / ``max_worker_age_s`` is
recycled when its handle closes (only between proofs): its replacement starts then, and
the old worker keeps serving until the replacement is ready, so recycling never leaves the
pool a worker short (on a loaded machine a start takes seconds). Shutting the pool down kills
every child; children also die with this process (PR_SET_PDEATHSIG, see limits.py).
"""

from __future__ import annotations

import functools
import itertools
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType

import anyio
import anyio.lowlevel
from anyio.abc import TaskGroup

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    InvalidInput,
    InvalidStatement,
    LeanError,
    LeanProcessDied,
    PoolClosed,
    PoolExhausted,
    UnknownHandle,
)
from burnqed.lean.groups import ImportGroups
from burnqed.lean.handle import ProofHandle, input_problem
from burnqed.lean.launch import LaunchSpec, prepare_launch
from burnqed.lean.replay import replay_proof
from burnqed.lean.results import PoolStatus, ProofVerdict
from burnqed.lean.statement import LeanHeader, StatementError, parse_header
from burnqed.lean.target import ProofTarget
from burnqed.lean.worker import LeanWorker

__all__ = ["LeanPool"]

log = logging.getLogger(__name__)


class _Waiter:
    """One queued acquirer; the releaser hands it a worker directly (FIFO fairness)."""

    __slots__ = ("event", "gone", "worker")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.worker: LeanWorker | None = None
        self.gone = False


class _ProofContext:
    """``async with pool.start_proof(...) as proof``: open on enter, close on exit."""

    def __init__(self, pool: LeanPool, target: ProofTarget) -> None:
        self._pool, self._target = pool, target
        self._handle: ProofHandle | None = None

    async def __aenter__(self) -> ProofHandle:
        self._handle = await self._pool.open_proof(self._target)
        return self._handle

    async def __aexit__(self, *exc_info: object) -> None:
        if self._handle is not None:
            await self._handle.close()


class LeanPool:
    """N worker processes of one backend and import set; ``async with LeanPool(config) as pool``.

    A proof whose header imports modules beyond ``lean.imports`` goes to a worker group of
    its own (burnqed.lean.groups), started on first use.
    """

    def __init__(self, config: LeanConfig) -> None:
        self.config = config
        self._launch: LaunchSpec | None = None
        self._workers: set[LeanWorker] = set()
        self._idle: deque[LeanWorker] = deque()
        self._waiters: deque[_Waiter] = deque()
        self._handles: dict[str, ProofHandle] = {}
        self._ids = itertools.count()
        self._starting = 0
        self._successors: set[LeanWorker] = set()  # workers serving on while their replacement starts
        self._restarts = 0
        self._retired_requests = 0
        self._tg: TaskGroup | None = None
        self._closed = False
        self._groups: ImportGroups[LeanPool] = ImportGroups(config, LeanPool)

    @property
    def backend(self) -> str:
        """``embedded``, ``pantograph`` or ``command``."""
        return self.config.backend

    @property
    def closed(self) -> bool:
        """The pool has been shut down."""
        return self._closed

    def worker_pids(self) -> list[int]:
        """Pids of the live worker processes, import groups included (each is also its process group id)."""
        own = [w.pid for w in self._workers if w.pid is not None]
        return sorted(own + [pid for group in self._groups.pools() for pid in group.worker_pids()])

    @property
    def import_groups(self) -> list[tuple[str, ...]]:
        """Import sets that have a worker group of their own now, least recently used first."""
        return self._groups.keys()

    def status(self) -> PoolStatus:
        """A snapshot: workers, idle, busy, starting, waiting, handles, restarts, requests (groups summed in)."""
        live = len(self._workers)
        own = PoolStatus(
            backend=self.backend,
            workers=live,
            idle=len(self._idle),
            busy=live - len(self._idle),
            starting=self._starting,
            waiting=sum(1 for w in self._waiters if not w.gone),
            open_handles=len(self._handles),
            restarts=self._restarts,
            requests=self._retired_requests + sum(w.requests for w in self._workers),
        )
        groups = [group.status() for group in self._groups.pools()]
        if not groups:
            return own
        counted = ("workers", "idle", "busy", "starting", "waiting", "open_handles", "restarts", "requests")
        return own.model_copy(
            update={field: getattr(own, field) + sum(getattr(g, field) for g in groups) for field in counted}
        )

    # ------------------------------------------------------------------ life cycle

    async def __aenter__(self) -> LeanPool:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Start all ``num_workers`` children concurrently; any start-up failure aborts the pool."""
        if self._tg is not None:
            raise LeanError("pool already started")
        self._launch = await prepare_launch(self.config)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._groups.bind(self._tg)
        workers = [self._new_worker() for _ in range(self.config.num_workers)]
        errors: list[BaseException] = []

        async def boot(worker: LeanWorker) -> None:
            try:
                await worker.start()
            except LeanError as exc:
                errors.append(exc)

        failed = False
        try:
            async with anyio.create_task_group() as tg:
                for worker in workers:
                    tg.start_soon(boot, worker)
        except BaseException:
            # cancelled mid-start (SIGTERM) with every child up: a failed __aenter__ gets no
            # __aexit__, so the task group entered above must be left here or scopes unwind out of order
            failed = True
            raise
        finally:
            for worker in workers:
                if worker.alive:
                    self._workers.add(worker)
                    self._idle.append(worker)
            if failed or errors or not all(w.alive for w in workers):
                await self.aclose()
        if errors:
            # a start cut short by a cancellation (SIGTERM) fails its workers: the cancellation,
            # not their LeanError, is what happened
            await anyio.lowlevel.checkpoint_if_cancelled()
            raise errors[0]
        log.info("lean pool up: %d %s workers", len(self._workers), self.backend)

    async def aclose(self) -> None:
        """Shut down: close handles (no requests), kill every child, stop replacements."""
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            await self._groups.aclose()
            for waiter in self._waiters:
                waiter.gone = True
                waiter.event.set()
            self._waiters.clear()
            for handle in list(self._handles.values()):
                worker = handle._detach()
                if worker is not None:
                    self._workers.add(worker)
            self._handles.clear()
            if self._tg is not None:
                self._tg.cancel_scope.cancel()
            workers = list(self._workers)
            self._workers.clear()
            self._idle.clear()
            async with anyio.create_task_group() as tg:
                for worker in workers:
                    tg.start_soon(worker.close)
        # outside the shield: the task group's scope must be the innermost one when it exits
        if self._tg is not None:
            await self._tg.__aexit__(None, None, None)

    def _new_worker(self) -> LeanWorker:
        return LeanWorker(self.config, worker_id=next(self._ids), launch=self._launch)

    # ------------------------------------------------------------------ lending workers

    def _pick_idle(self, scope: str | None) -> LeanWorker:
        """The idle worker to lend: one that already took ``scope``, else one that took no header, else the first."""
        if scope is not None:
            for wanted in (scope, ""):
                for worker in self._idle:
                    if worker.scope == wanted:
                        self._idle.remove(worker)
                        return worker
        return self._idle.popleft()

    async def _acquire(self, scope: str | None = None) -> LeanWorker:
        """A free live worker, FIFO-fair, within acquire_timeout_s (preferring one that took header ``scope``)."""
        if self._closed:
            raise PoolClosed("the Lean pool is shut down")
        while self._idle and not self._waiters:
            worker = self._pick_idle(scope)
            if worker.alive:
                return worker
            self._lost(worker)
        if not self._workers and self._starting == 0:
            raise PoolExhausted("no live Lean workers (replacements failed to start)")
        waiter = _Waiter()
        self._waiters.append(waiter)
        try:
            with anyio.fail_after(self.config.acquire_timeout_s):
                await waiter.event.wait()
        except BaseException as exc:
            waiter.gone = True
            if waiter in self._waiters:
                self._waiters.remove(waiter)  # a dead entry at the front would block idle workers
            handed, waiter.worker = waiter.worker, None
            if handed is not None:
                if isinstance(exc, TimeoutError):
                    return handed  # handed over just as the time-out fired: keep it
                self._release(handed)  # cancelled after the hand-over: give it back
            if isinstance(exc, TimeoutError):
                raise PoolExhausted(
                    f"no Lean worker became free within {self.config.acquire_timeout_s}s ({self.status()})"
                ) from exc
            raise
        if waiter.worker is None:
            if self._closed:
                raise PoolClosed("the Lean pool shut down while waiting for a worker")
            raise PoolExhausted("no live Lean workers (replacements failed to start)")
        return waiter.worker

    def _offer(self, worker: LeanWorker) -> None:
        """Give a free worker to the first live waiter, else make it idle."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if waiter.gone:
                continue
            waiter.worker = worker
            waiter.event.set()
            return
        self._idle.append(worker)

    def _release(self, worker: LeanWorker) -> None:
        """A handle gives its worker back: reuse, recycle or replace it."""
        if self._closed:
            return  # aclose() closes every worker, busy ones included
        if worker not in self._workers:
            self._spawn(worker.close)  # retired while its last proof ran: its replacement is serving
        elif not worker.alive:
            self._lost(worker)
        else:
            if worker.needs_recycling() and worker not in self._successors:
                log.info("recycling worker %d after %d requests / %.0fs", worker.id, worker.requests, worker.age_s)
                self._successors.add(worker)
                self._restarts, self._starting = self._restarts + 1, self._starting + 1
                self._spawn(functools.partial(self._start_replacement, worker))
            self._offer(worker)

    def _lost(self, worker: LeanWorker) -> None:
        """A dead worker: replaced, unless its replacement is starting already (it was being recycled)."""
        self._retire(worker) if worker in self._successors else self._replace(worker)

    def _retire(self, old: LeanWorker) -> None:
        """Take ``old`` out of the pool (its replacement is serving); closed now if idle, else when released."""
        self._successors.discard(old)
        self._workers.discard(old)
        self._retired_requests += old.requests
        if old in self._idle or not old.alive:
            if old in self._idle:
                self._idle.remove(old)
            self._spawn(old.close)

    def _forget(self, handle: ProofHandle) -> None:
        self._handles.pop(handle.id, None)

    def _spawn(self, func: Callable[[], Awaitable[None]]) -> None:
        """Run ``func`` in the pool's task group; its failures are logged, never raised into the owner."""
        if self._tg is not None:
            self._tg.start_soon(self._guarded, func)

    @staticmethod
    async def _guarded(func: Callable[[], Awaitable[None]]) -> None:
        try:
            await func()
        except Exception:
            # an exception here would cancel the task that owns the pool
            log.exception("background task %s of the Lean pool failed", getattr(func, "__name__", func))

    def _replace(self, old: LeanWorker) -> None:
        """Retire ``old`` and start a replacement in the background."""
        self._workers.discard(old)
        self._retired_requests += old.requests
        self._restarts += 1
        self._starting += 1
        self._spawn(old.close)
        self._spawn(self._start_replacement)

    async def _start_replacement(self, retiring: LeanWorker | None = None) -> None:
        try:
            for attempt in range(self.config.restart_attempts):
                if self._closed:
                    return
                worker = self._new_worker()
                try:
                    await worker.start()
                except LeanError as exc:
                    log.warning("replacement worker failed to start (attempt %d): %s", attempt + 1, exc)
                    await anyio.sleep(min(0.2 * 2**attempt, 2.0))
                    continue
                if self._closed:
                    await worker.close()
                    return
                self._workers.add(worker)
                if retiring is not None and retiring in self._workers:
                    self._retire(retiring)
                self._offer(worker)
                return
            log.error("gave up replacing a Lean worker after %d attempts", self.config.restart_attempts)
        finally:
            if retiring is not None:
                self._successors.discard(retiring)  # a failed start: recycling is tried again later
            self._starting -= 1
            if not self._workers and self._starting == 0:
                # nobody will ever hand these waiters a worker
                for waiter in self._waiters:
                    waiter.gone = True
                    waiter.event.set()
                self._waiters.clear()

    # ------------------------------------------------------------------ headers

    async def _fresh(self, old: LeanWorker) -> LeanWorker:
        """A new process in place of ``old`` (which took another header), started now for the caller."""
        self._workers.discard(old)
        self._retired_requests += old.requests
        self._restarts += 1
        await old.close()
        worker = self._new_worker()
        try:
            await worker.start()
        except BaseException:
            self._starting += 1  # the pool keeps its size: a replacement in the background
            self._spawn(self._start_replacement)
            raise
        self._workers.add(worker)
        return worker

    async def _enter_scope(self, worker: LeanWorker, header: LeanHeader | None) -> LeanWorker:
        """``worker`` (or a fresh one, when it took another header) with ``header``'s commands as its scope.

        On any failure the worker held is given back (and replaced when it may hold part of the header).
        """
        want = header.body if header is not None else ""
        if worker.scope == want:
            return worker
        try:
            if worker.scope:
                worker = await self._fresh(worker)
            await worker.take_header(want)
            return worker
        except BaseException:
            if worker.alive or worker in self._workers:
                self._release(worker)
            raise

    # ------------------------------------------------------------------ proofs

    def get_handle(self, handle_id: str) -> ProofHandle:
        """The open handle with this id (in this pool or one of its import groups), or UnknownHandle."""
        for handle in self.handles():
            if handle.id == handle_id:
                return handle
        raise UnknownHandle(f"no open proof handle {handle_id!r}")

    def handles(self) -> list[ProofHandle]:
        """The open handles, import groups included."""
        return [*self._handles.values(), *(h for group in self._groups.pools() for h in group.handles())]

    def _header(self, header: str | None) -> LeanHeader | None:
        if header is None:
            return None
        problem = input_problem(header, self.config.max_input_chars)
        if problem is not None:
            raise InvalidInput(f"header refused: it {problem}")
        try:
            return parse_header(header)
        except StatementError as exc:
            raise InvalidStatement("parsing", str(exc)) from exc

    async def open_proof(self, target: ProofTarget) -> ProofHandle:
        """Start a proof of ``target``: its statement, or its constant (copyFrom); close it yourself.

        A statement in theorem form, or one with a header (imports, ``open``, ``set_option``
        lines), starts through frontend.process; a header importing modules beyond
        ``lean.imports`` is served by a worker group started with those imports.
        """
        problem = input_problem(target.text, self.config.max_input_chars)
        if problem is not None:
            raise InvalidInput(f"{target.kind} refused: it {problem}")
        parsed = self._header(target.header)
        if parsed is not None and not set(parsed.imports) <= set(self.config.imports):
            if self._closed:
                raise PoolClosed("the Lean pool is shut down")
            group = await self._groups.get(parsed.imports)
            return await group.open_proof(target)
        scope = parsed.body if parsed is not None else ""
        for attempt in range(2):
            worker = await self._acquire(scope)
            try:
                worker = await self._enter_scope(worker, parsed)
            except LeanProcessDied:
                if attempt == 1:
                    raise
                continue
            handle = ProofHandle(self, worker, uuid.uuid4().hex[:12], target, parsed)
            try:
                await handle._open()
                break
            except LeanProcessDied:
                # an idle worker can die unnoticed (its exit not reaped yet): nothing of the
                # proof existed, so release it (the pool replaces it) and start once more
                returned = handle._detach()
                if returned is not None:
                    self._release(returned)
                if attempt == 1:
                    raise
            except BaseException:
                returned = handle._detach()
                if returned is not None:
                    self._release(returned)
                raise
        if self._closed:
            handle._detach()
            raise PoolClosed("the Lean pool shut down while opening a proof")
        self._handles[handle.id] = handle
        return handle

    def start_proof(self, target: ProofTarget) -> _ProofContext:
        """``async with pool.start_proof(ProofTarget.of(statement)) as proof:`` (see open_proof)."""
        return _ProofContext(self, target)

    async def verify_proof(
        self, target: ProofTarget, tactics: Sequence[str], *, file_text: str | None = None
    ) -> ProofVerdict:
        """The replay gate (burnqed.lean.replay), then the final check (of ``file_text`` as given, if any)."""
        return await replay_proof(self, target, tactics, file_text=file_text)
