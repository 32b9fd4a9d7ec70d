"""The pool: N Lean workers with fixed imports, lent out one proof at a time.

``start_proof`` / ``open_proof`` take a free worker (FIFO-fair, bounded by
``acquire_timeout_s`` → PoolExhausted) and return a ProofHandle that holds it until
closed. There is no pool-level run_tactic. A worker that died is replaced in the
background at once; a worker past ``max_requests_per_worker`` / ``max_worker_age_s`` is
recycled when its handle closes (only between proofs). Shutting the pool down kills
every child; children also die with this process (PR_SET_PDEATHSIG, see limits.py).
"""

from __future__ import annotations

import itertools
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType

import anyio
from anyio.abc import TaskGroup

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    InvalidInput,
    InvalidStatement,
    LeanError,
    LeanProcessDied,
    OutsideFragment,
    PoolClosed,
    PoolExhausted,
    UnknownHandle,
)
from burnqed.lean.groups import ImportGroups
from burnqed.lean.handle import ProofHandle, input_problem
from burnqed.lean.launch import LaunchSpec, build_launch
from burnqed.lean.results import PoolStatus, ProofVerdict
from burnqed.lean.final_check import FileRefused, compile_file, final_check_argv, process_file, refuse_file
from burnqed.lean.statement import (
    SNIPPET_NAME,
    LeanHeader,
    StatementError,
    TheoremDecl,
    assemble_file,
    is_theorem_form,
    parse_header,
    parse_theorem,
)
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

    def __init__(self, pool: LeanPool, statement: str | None, name: str | None, header: str | None) -> None:
        self._pool, self._statement, self._name, self._header = pool, statement, name, header
        self._handle: ProofHandle | None = None

    async def __aenter__(self) -> ProofHandle:
        self._handle = await self._pool.open_proof(self._statement, name=self._name, header=self._header)
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
        self._launch = build_launch(self.config)
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

        try:
            async with anyio.create_task_group() as tg:
                for worker in workers:
                    tg.start_soon(boot, worker)
        finally:
            for worker in workers:
                if worker.alive:
                    self._workers.add(worker)
                    self._idle.append(worker)
            if errors or not all(w.alive for w in workers):
                await self.aclose()
        if errors:
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

    async def _acquire(self) -> LeanWorker:
        """A free live worker, FIFO-fair, within acquire_timeout_s."""
        if self._closed:
            raise PoolClosed("the Lean pool is shut down")
        while self._idle and not self._waiters:
            worker = self._idle.popleft()
            if worker.alive:
                return worker
            self._replace(worker)
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
        if not worker.alive:
            self._replace(worker)
        elif worker.needs_recycling():
            log.info("recycling worker %d after %d requests / %.0fs", worker.id, worker.requests, worker.age_s)
            self._replace(worker)
        else:
            self._offer(worker)

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

    async def _start_replacement(self) -> None:
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
                self._offer(worker)
                return
            log.error("gave up replacing a Lean worker after %d attempts", self.config.restart_attempts)
        finally:
            self._starting -= 1
            if not self._workers and self._starting == 0:
                # nobody will ever hand these waiters a worker
                for waiter in self._waiters:
                    waiter.gone = True
                    waiter.event.set()
                self._waiters.clear()

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

    async def open_proof(
        self, statement: str | None = None, *, name: str | None = None, header: str | None = None
    ) -> ProofHandle:
        """Start a proof of ``statement`` or of constant ``name`` (copyFrom); close it yourself.

        A statement in theorem form, or one with a ``header`` (imports, ``open``, ``set_option``
        lines), starts through frontend.process; a header importing modules beyond
        ``lean.imports`` is served by a worker group started with those imports.
        """
        if (statement is None) == (name is None):
            raise InvalidInput("give exactly one of statement or name")
        text = statement if statement is not None else name
        problem = input_problem(text or "", self.config.max_input_chars)
        if problem is not None:
            raise InvalidInput(f"{'statement' if statement is not None else 'name'} refused: it {problem}")
        parsed = self._header(header)
        if parsed is not None and not set(parsed.imports) <= set(self.config.imports):
            if self._closed:
                raise PoolClosed("the Lean pool is shut down")
            group = await self._groups.get(parsed.imports)
            return await group.open_proof(statement, name=name, header=header)
        for attempt in range(2):
            worker = await self._acquire()
            handle = ProofHandle(self, worker, uuid.uuid4().hex[:12], statement, name, parsed)
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

    def start_proof(
        self, statement: str | None = None, *, name: str | None = None, header: str | None = None
    ) -> _ProofContext:
        """``async with pool.start_proof(statement) as proof:`` (or ``name=`` for copyFrom; ``header=`` see open_proof)."""
        return _ProofContext(self, statement, name, header)

    async def verify_proof(
        self, statement: str | None, tactics: Sequence[str], *, name: str | None = None, header: str | None = None
    ) -> ProofVerdict:
        """The replay gate: fresh handle, replay every tactic, no goals, root without sorry / mvars."""
        try:
            handle = await self.open_proof(statement, name=name, header=header)
        except (InvalidStatement, InvalidInput) as exc:
            return ProofVerdict(
                ok=False, reason=f"statement refused: {exc}", outside_fragment=isinstance(exc, OutsideFragment)
            )
        async with handle:
            state, goals, sorry = handle.state_id, handle.goals, False
            for step, tactic in enumerate(tactics):
                out = await handle.run_tactic(state, tactic)
                if not out.ok or out.next_state_id is None:
                    return ProofVerdict(
                        ok=False,
                        reason=f"step {step} {tactic!r}: {out.status.value}: {out.error_text[:500]}",
                        failed_step=step,
                        steps=step,
                    )
                state, goals, sorry = out.next_state_id, out.goals, sorry or out.has_sorry
            steps = len(tactics)
            if goals:
                return ProofVerdict(ok=False, reason=f"{len(goals)} goal(s) left after the last tactic", steps=steps)
            if sorry:
                return ProofVerdict(ok=False, reason="a tactic used sorry", steps=steps)
            printed = await handle.print_root(state)
            if printed.root_has_sorry:
                return ProofVerdict(ok=False, reason="the proof term contains sorry", steps=steps)
            if printed.root_has_mvar:
                return ProofVerdict(ok=False, reason="the proof term has unassigned metavariables", steps=steps)
        if statement is None:
            return ProofVerdict(ok=True, steps=steps, checked_by="replay")  # a constant's type has no file text
        return await self._final_check(statement, tactics, header, steps)

    async def _final_check(
        self, statement: str, tactics: Sequence[str], header: str | None, steps: int
    ) -> ProofVerdict:
        """The whole file the replayed proof makes: refused on sight, else compiled (pantograph) or kernel-checked."""
        parsed_header = parse_header(header) if header else LeanHeader()
        decl = parse_theorem(statement) if is_theorem_form(statement) else TheoremDecl("theorem", None, "", statement)
        text = assemble_file(parsed_header, decl, tactics)
        try:
            parsed = refuse_file(text, statement=decl, header=parsed_header)
        except FileRefused as exc:
            return ProofVerdict(ok=False, reason=f"final check: {exc}", steps=steps, file=text, checked_by="text")
        argv = final_check_argv(self.config)
        if argv is None and self.backend != "embedded":  # the command backend: its replay is all there is
            return ProofVerdict(ok=True, steps=steps, file=text, checked_by="replay")
        if argv is None:  # the embedded checker elaborates the file itself, every step kernel-checked
            # its library is loaded whatever the header imports, so a theorem named like one of its
            # lemmas (core's `Nat.add_zero`) would clash there though not in Lean: the name is a label
            kernel_text = assemble_file(parsed_header, decl, tactics, name=SNIPPET_NAME)
            worker = await self._acquire()
            try:
                verdict = await process_file(worker, kernel_text)
            finally:
                self._release(worker)
            return ProofVerdict(ok=verdict.ok, reason=verdict.reason, steps=steps, file=text, checked_by="kernel")
        verdict = await compile_file(text, parsed, self.config, argv)
        return ProofVerdict(
            ok=verdict.ok, reason=verdict.reason, steps=steps, file=text, checked_by="lean", axioms=verdict.axioms
        )
