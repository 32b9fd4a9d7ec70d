"""One Lean child process speaking Pantograph's JSON-lines protocol.

A worker writes exactly one JSON line per request and reads exactly one answer line,
always under a time-out. Whenever the pipe may be out of step — time-out, EOF, broken
pipe, an unparsable or over-long answer, or the caller being cancelled mid-request —
the whole process group is SIGKILLed before the error is raised, and the worker is dead
for good (the pool replaces it). ``{"error", "desc"}`` answers leave the pipe in step:
they raise LeanReplError and the worker stays usable.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import tempfile
import time
from typing import IO, Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    LeanError,
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanStartupError,
    LeanTimeout,
)
from burnqed.lean.launch import LaunchSpec, build_launch
from burnqed.lean.protocol import OptionsSet, Request, decode_answer, encode_request

__all__ = ["LeanWorker"]

log = logging.getLogger(__name__)

_READY = "ready."
_STDERR_TAIL_BYTES = 4096
_REAP_TIMEOUT_S = 5.0
_PIPE_ERRORS = (
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    anyio.IncompleteRead,
    BrokenPipeError,
    ConnectionResetError,
)


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
        self._process: Process | None = None
        self._stdout: BufferedByteReceiveStream | None = None
        self._stderr: IO[bytes] | None = None
        self._stderr_at_death = ""
        self._lock = anyio.Lock()

    def __repr__(self) -> str:
        state = "dead" if self.death else "alive" if self._process else "new"
        return f"<LeanWorker {self.id} pid={self.pid} {state} requests={self.requests}>"

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id), once started."""
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        """Started, not killed, and the process has not exited."""
        return self._process is not None and self.death is None and self._process.returncode is None

    @property
    def age_s(self) -> float:
        """Seconds since the child became ready."""
        return time.monotonic() - self.started_at if self.started_at else 0.0

    def needs_recycling(self) -> bool:
        """Past max_requests_per_worker or max_worker_age_s (checked only between proofs)."""
        return self.requests >= self.config.max_requests_per_worker or self.age_s >= self.config.max_worker_age_s

    def stderr_tail(self) -> str:
        """The last few KB the child wrote to stderr (for error messages)."""
        if self._stderr is None or self._stderr.closed:
            return self._stderr_at_death
        try:
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - _STDERR_TAIL_BYTES))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Spawn the child, wait for ``ready.`` and set Lean's own time-out option."""
        if self._process is not None:
            raise LeanError("worker already started")
        self._stderr = tempfile.TemporaryFile()
        try:
            # shielded: a cancellation half-way through the spawn would orphan the child
            with anyio.CancelScope(shield=True):
                process = await anyio.open_process(
                    self.launch.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=self._stderr,
                    env=self.launch.env,
                    start_new_session=True,
                )
        except OSError as exc:
            self._stderr.close()
            raise LeanStartupError(f"cannot start {self.launch.program[:1]}: {exc}") from exc
        self._process = process
        if process.stdout is None:
            raise LeanStartupError("child started without a stdout pipe")
        self._stdout = BufferedByteReceiveStream(process.stdout)
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
        stdout = self._stdout
        if stdout is None:
            raise LeanStartupError("worker has no stdout pipe")
        while True:
            try:
                raw = await stdout.receive_until(b"\n", self.config.max_line_bytes)
            except _PIPE_ERRORS as exc:
                await self._kill("exited during start-up")
                code = self._process.returncode if self._process is not None else None
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
        if self._process is None:
            return
        with anyio.CancelScope(shield=True):
            if self.alive:
                self.death = "closed"
                try:
                    with anyio.move_on_after(self.config.shutdown_grace_s):
                        await self._process.stdin.send(b"\n")  # type: ignore[union-attr]
                        await self._process.wait()
                except (*_PIPE_ERRORS, OSError):
                    pass  # already gone: the kill below reaps it
            await self._kill(self.death or "closed")

    async def _kill(self, reason: str) -> None:
        """SIGKILL the child's process group, reap it and close the pipes (idempotent)."""
        if self.death is None:
            self.death = reason
        process = self._process
        if process is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            with anyio.move_on_after(_REAP_TIMEOUT_S):
                await process.aclose()
            if self._stderr is not None and not self._stderr.closed:
                self._stderr_at_death = self.stderr_tail()
                self._stderr.close()

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

    async def _exchange(self, line: bytes, timeout: float) -> bytes:
        if not self.alive:
            raise LeanProcessDied(f"worker {self.id} is dead ({self.death or 'exited'})")
        process, stdout = self._process, self._stdout
        if process is None or process.stdin is None or stdout is None:
            raise LeanProcessDied(f"worker {self.id} has no pipes")
        raw: bytes | None = None
        started = time.perf_counter()
        try:
            with anyio.move_on_after(timeout):
                await process.stdin.send(line)
                raw = await stdout.receive_until(b"\n", self.config.max_line_bytes)
                self.last_exchange_s = time.perf_counter() - started
        except _PIPE_ERRORS as exc:
            await self._kill("process died")
            code = process.returncode
            raise LeanProcessDied(f"worker {self.id} died (status {code}){self._tail_suffix()}") from exc
        except anyio.DelimiterNotFound as exc:
            await self._kill("answer line too long")
            raise LeanProtocolError(f"answer line longer than max_line_bytes={self.config.max_line_bytes}") from exc
        finally:
            if raw is None and self.death is None:
                # time-out or cancellation mid-request: the pipe is out of step for good
                await self._kill("interrupted mid-request")
        if raw is None:
            self.death = f"read time-out after {timeout}s"
            raise LeanTimeout(f"worker {self.id}: no answer within {timeout}s (killed)")
        return raw
