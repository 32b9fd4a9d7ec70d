"""One Lean child process speaking Pantograph's JSON-lines protocol.

A worker writes exactly one JSON line per request and reads exactly one answer line,
always under a time-out. Whenever the pipe may be out of step — time-out, EOF, broken
pipe, an unparsable or over-long answer, or the caller being cancelled mid-request —
the whole process group is SIGKILLed before the error is raised, and the worker is dead
for good (the pool replaces it). ``{"error", "desc"}`` answers leave the pipe in step:
they raise LeanReplError and the worker stays usable.

Memory: while a request is in flight the child's resident memory is read every
``lean.memory_poll_s`` from /proc (RssAnon + RssShmem: its own heap, not the page cache
of the files it maps, which for a Mathlib worker is several GB of shared, reclaimable
.olean pages); over ``lean.memory_limit_mb`` the child is killed and the request fails as
LeanProcessDied naming the limit. This is how the field's REPL servers bound a worker
(polling and restarting); an address-space limit (RLIMIT_AS) is opt-in only
(``lean.address_space_limit_mb``), since mapping Mathlib's .olean files takes far more
address space than resident memory.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import anyio

from burnqed.child import PIPE_ERRORS, ChildProcess, resident_mb
from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    LeanError,
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanStartupError,
    LeanTimeout,
    statement_refused,
)
from burnqed.lean.launch import LaunchSpec, build_launch
from burnqed.lean.protocol import (
    FrontendProcess,
    FrontendProcessResult,
    OptionsSet,
    Request,
    decode_answer,
    encode_request,
)

__all__ = ["LeanWorker"]

log = logging.getLogger(__name__)

_READY = "ready."
_STDERR_TAIL_BYTES = 4096


class LeanWorker:
    """One child process; ``start()``, then ``request()`` one request at a time, then ``close()``."""

    def __init__(self, config: LeanConfig, *, worker_id: int = 0, launch: LaunchSpec | None = None) -> None:
        self.config = config
        self.id = worker_id
        self.launch = launch if launch is not None else build_launch(config)
        self.requests = 0
        self.started_at = 0.0
        self.death: str | None = None
        self.last_exchange_s = 0.0  # write → answer of the latest request (for the benchmark)
        # the header commands this process took with frontend.process inheritEnv: its REPL
        # environment and scope ("" = none); set once, since definitions cannot be taken back
        self.scope = ""
        self._child = ChildProcess(
            self.launch.argv,
            env=self.launch.env,
            cwd=self.launch.cwd,
            max_line_bytes=config.max_line_bytes,
            stderr_tail_bytes=_STDERR_TAIL_BYTES,
        )
        self._lock = anyio.Lock()
        self._memory_read_at = float("-inf")  # monotonic time of the last /proc read

    def __repr__(self) -> str:
        state = "dead" if self.death else "alive" if self._child.spawned else "new"
        return f"<LeanWorker {self.id} pid={self.pid} {state} requests={self.requests}>"

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id), once started."""
        return self._child.pid

    @property
    def alive(self) -> bool:
        """Started, not killed, and the process has not exited."""
        return self.death is None and self._child.running

    @property
    def age_s(self) -> float:
        """Seconds since the child became ready."""
        return time.monotonic() - self.started_at if self.started_at else 0.0

    def needs_recycling(self) -> bool:
        """Past max_requests_per_worker or max_worker_age_s (checked only between proofs)."""
        return self.requests >= self.config.max_requests_per_worker or self.age_s >= self.config.max_worker_age_s

    def stderr_tail(self) -> str:
        """The last few KB the child wrote to stderr (for error messages)."""
        return self._child.stderr_tail().strip()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Spawn the child, wait for ``ready.`` and set Lean's own time-out option."""
        if self._child.spawned:
            raise LeanError("worker already started")
        try:
            await self._child.spawn()
        except OSError as exc:
            raise LeanStartupError(f"cannot start {self.launch.program[:1]}: {exc}") from exc
        try:
            with anyio.fail_after(self.config.startup_timeout_s):
                await self._await_ready()
        except TimeoutError as exc:
            await self._kill(f"no `{_READY}` within {self.config.startup_timeout_s}s")
            raise LeanStartupError(
                f"{self.launch.backend} child printed no `{_READY}` within "
                f"{self.config.startup_timeout_s}s{self._tail_suffix()}"
            ) from exc
        except BaseException:
            await self._kill("start-up failed")
            raise
        self.started_at = time.monotonic()
        timeout_ms = int((self.config.read_timeout_s - self.config.repl_timeout_margin_s) * 1000)
        if timeout_ms > 0:
            # Lean interrupts itself a little before our read time-out, keeping the process usable
            try:
                await self.request(OptionsSet(timeout=timeout_ms))
            except LeanError as exc:
                await self._kill("options.set failed")
                raise LeanStartupError(f"options.set timeout failed: {exc}") from exc
        log.debug("worker %d ready (pid %s)", self.id, self.pid)

    async def _await_ready(self) -> None:
        while True:
            try:
                raw = await self._child.read_line()
            except PIPE_ERRORS as exc:
                await self._kill("exited during start-up")
                code = self._child.returncode
                raise LeanStartupError(
                    f"{self.launch.backend} child exited (status {code}) before `{_READY}`{self._tail_suffix()}"
                ) from exc
            except anyio.DelimiterNotFound as exc:
                raise LeanStartupError("start-up output line too long") from exc
            text = raw.decode("utf-8", "replace").strip()
            if text == _READY:
                return
            if text.startswith("{") and '"error"' in text:
                raise LeanStartupError(
                    f"{self.launch.backend} child failed to start: {text[:500]}{self._tail_suffix()}"
                )
            log.debug("worker %d start-up output: %s", self.id, text[:200])

    def _tail_suffix(self) -> str:
        tail = self.stderr_tail()
        return f"; stderr: {tail[-1000:]}" if tail else ""

    async def close(self) -> None:
        """End the child: an empty line asks it to exit; SIGKILL after shutdown_grace_s."""
        if not self._child.spawned:
            return
        with anyio.CancelScope(shield=True):
            if self.alive:
                self.death = "closed"
                await self._child.stop(self.config.shutdown_grace_s, goodbye=b"\n")
            await self._kill(self.death or "closed")

    async def _kill(self, reason: str) -> None:
        """SIGKILL the child's process group, reap it and close the pipes (idempotent)."""
        if self.death is None:
            self.death = reason
        await self._child.kill()

    # ------------------------------------------------------------------ the header

    async def take_header(self, commands: str) -> None:
        """Make a header's ``commands`` this process's REPL environment and scope, once.

        Pantograph's goal.tactic elaborates in the REPL's own scope (Repl.lean ``runCoreM``
        reads ``scope.openDecls`` and ``scope.opts``), which frontend.process replaces only
        with ``inheritEnv`` (Repl.lean 231-235): so ``open`` and the options tactics read from
        their options (``synthInstance.*``, ``pp.*``, ``maxRecDepth``) reach every tactic, and
        definitions are declared once. ``set_option maxHeartbeats`` does not: runCoreM keeps the
        start-up context's ``maxHeartbeats`` field (docs/lean.md, "What a header's options reach"). A refused header kills the process (part
        of it may be in its environment) and raises InvalidStatement.
        """
        if commands == self.scope:
            return
        if self.scope:
            raise LeanError(f"worker {self.id} took another header already; it takes one per process")
        try:
            result: FrontendProcessResult = await self.request(FrontendProcess(file=commands + "\n", inherit_env=True))
        except LeanReplError as exc:
            raise statement_refused(exc.error, f"header: {exc.desc}") from exc
        errors = [m.data for unit in result.units for m in unit.errors]
        if errors:
            await self.close()
            raise statement_refused("elab", ("header: " + "; ".join(errors))[:2000])
        self.scope = commands

    # ------------------------------------------------------------------ requests

    async def request(self, request: Request, *, timeout: float | None = None) -> Any:
        """Send one request and return its decoded answer.

        Raises LeanReplError for an ``{"error"}`` answer (the worker stays usable), and
        LeanTimeout / LeanProcessDied / LeanProtocolError after killing the child.
        """
        line = encode_request(request).encode("utf-8") + b"\n"
        async with self._lock:
            raw = await self._exchange(line, self.config.read_timeout_s if timeout is None else timeout)
            try:
                answer = decode_answer(request, raw)
            except LeanReplError:
                self.requests += 1
                raise
            except LeanProtocolError as exc:
                await self._kill(f"protocol error: {exc}")
                raise
            self.requests += 1
            return answer

    async def _watch_memory(self, pid: int) -> None:
        """Kill the child once its resident memory passes lean.memory_limit_mb (runs beside a request)."""
        limit = self.config.memory_limit_mb
        poll = self.config.memory_poll_s
        while limit is not None:
            # one read per poll interval across requests: a search's short requests each read
            # /proc otherwise (a twentieth of the event loop's time), with nothing new to see
            wait = self._memory_read_at + poll - time.monotonic()
            if wait > 0:
                await anyio.sleep(wait)
            self._memory_read_at = time.monotonic()
            used = resident_mb(pid)
            if used is not None and used > limit:
                log.warning("worker %d uses %.0f MB resident, over lean.memory_limit_mb=%d: killed", self.id, used, limit)
                self.death = f"resident memory {used:.0f} MB over lean.memory_limit_mb={limit}"
                self._child.signal_group()
                return

    async def _exchange(self, line: bytes, timeout: float) -> bytes:
        if not self.alive:
            raise LeanProcessDied(f"worker {self.id} is dead ({self.death or 'exited'})")
        child = self._child
        pid = child.pid
        if pid is None:
            raise LeanProcessDied(f"worker {self.id} has no pipes")
        raw: bytes | None = None
        failed: BaseException | None = None
        started = time.perf_counter()
        try:
            with anyio.move_on_after(timeout):
                async with anyio.create_task_group() as tg:
                    if self.config.memory_limit_mb is not None:
                        tg.start_soon(self._watch_memory, pid)
                    try:
                        await child.send(line)
                        raw = await child.read_line()
                        self.last_exchange_s = time.perf_counter() - started
                    except (*PIPE_ERRORS, anyio.DelimiterNotFound) as exc:
                        failed = exc  # raised below, outside the task group (never as a group)
                    finally:
                        tg.cancel_scope.cancel()
            if isinstance(failed, anyio.DelimiterNotFound):
                await self._kill("answer line too long")
                raise LeanProtocolError(
                    f"answer line longer than max_line_bytes={self.config.max_line_bytes}"
                ) from failed
            if failed is not None:
                await self._kill("process died")
                code = child.returncode
                raise LeanProcessDied(
                    f"worker {self.id} died (status {code}; {self.death}){self._tail_suffix()}"
                ) from failed
        finally:
            if raw is None and self.death is None:
                # time-out or cancellation mid-request: the pipe is out of step for good
                await self._kill("interrupted mid-request")
        if raw is None:
            self.death = f"read time-out after {timeout}s"
            raise LeanTimeout(f"worker {self.id}: no answer within {timeout}s (killed)")
        return raw
