"""A policy model in a child process, awaited on the event loop.

``ProcessPolicy(model_dir, config)`` is an ``AsyncPolicy`` (``max_concurrency = 1``) for the
generation service. Inside ``async with``, a child ``python -m burnqed.policy.worker`` owns
the model and every batch is one JSON line to it and one line back (the wire models live in
``burnqed.policy.worker``). The parent runs no thread: the model's CUDA work happens on the
child's main thread, away from the event loop's GIL (issue 16: the same generate call cost
3.7x on an H100 when run on a thread beside the loop).

Errors. The child is killed before any of these is raised, and stays dead: later calls
raise PolicyProcessDied at once.

PolicyGenerationError
 └── PolicyProcessError              the model's child process broke
      ├── PolicyProcessDied          it exited or was killed (before it was ready, or mid-request)
      ├── PolicyProcessTimeout       no hello within startup_timeout_s / no answer within request_timeout_s
      └── PolicyProcessProtocolError a line the parent cannot read, too long, or out of step

A model that cannot load raises PolicyLoadError with the child's own message. A model
failure on one batch (an ``error`` answer) raises PolicyGenerationError, and the child
stays usable.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Literal, Self, TypeVar

import anyio
from pydantic import BaseModel, ValidationError

from burnqed.child import PIPE_ERRORS, ChildProcess

from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import PolicyGenerationError, PolicyLoadError
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.policy.worker import (
    WORKER_MODULE,
    ReadyInfo,
    WireError,
    WorkerAnswer,
    WorkerHello,
    WorkerRequest,
    WorkerStart,
)

if TYPE_CHECKING:
    import torch

__all__ = [
    "MAX_LINE_BYTES",
    "REQUEST_TIMEOUT_S",
    "SHUTDOWN_GRACE_S",
    "STARTUP_TIMEOUT_S",
    "PolicyProcessDied",
    "PolicyProcessError",
    "PolicyProcessProtocolError",
    "PolicyProcessTimeout",
    "ProcessPolicy",
]

log = logging.getLogger(__name__)

STARTUP_TIMEOUT_S = 900.0
"""Time for the child to import torch and load the model (a 7B checkpoint from a slow disk)."""
REQUEST_TIMEOUT_S = 900.0
"""Time for one batch's answer; past it the child is killed."""
SHUTDOWN_GRACE_S = 10.0
"""Time for the child to exit on end of input before it is SIGKILLed."""
MAX_LINE_BYTES = 256 * 1024 * 1024
"""Longest answer line read (a batch's embeddings, base64)."""
_STDERR_TAIL_BYTES = 8192
_STDERR_TAIL_LINES = 5
_SHOWN_LINE_CHARS = 200

_Wire = TypeVar("_Wire", bound=BaseModel)


class PolicyProcessError(PolicyGenerationError):
    """The policy model's child process broke (it has been killed)."""


class PolicyProcessDied(PolicyProcessError):
    """The child exited or was killed, or is not running."""


class PolicyProcessTimeout(PolicyProcessError):
    """The child did not answer in time (killed)."""


class PolicyProcessProtocolError(PolicyProcessError):
    """The child wrote a line the parent cannot read (killed)."""


def _status(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _line(message: BaseModel) -> bytes:
    return message.model_dump_json(exclude_none=True).encode("utf-8") + b"\n"


def _generation_error(kind: str, error: WireError) -> PolicyGenerationError:
    """The error a caller sees for the child's ``error`` answer."""
    if error.type == PolicyGenerationError.__name__:
        return PolicyGenerationError(error.message)
    return PolicyGenerationError(f"{kind} failed in the policy worker: {error.type}: {error.message}")


class ProcessPolicy:
    """A ``PolicyModel`` in a child process: ``async with`` starts and stops it; an AsyncPolicy."""

    max_concurrency = 1

    def __init__(
        self,
        model_dir: str | Path,
        config: PolicyConfig | None = None,
        *,
        command: Sequence[str] | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        shutdown_grace_s: float = SHUTDOWN_GRACE_S,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        """``command`` runs the child (default: this Python, ``-m burnqed.policy.worker``)."""
        self.model_dir = Path(model_dir)
        self.config = config or PolicyConfig()
        self.command = list(command) if command is not None else [sys.executable, "-m", WORKER_MODULE]
        self.startup_timeout_s = startup_timeout_s
        self.request_timeout_s = request_timeout_s
        self.shutdown_grace_s = shutdown_grace_s
        self.max_line_bytes = max_line_bytes
        self.info: ReadyInfo | None = None
        self.death: str | None = None
        self.requests = 0
        self._child = ChildProcess(self.command, max_line_bytes=max_line_bytes, stderr_tail_bytes=_STDERR_TAIL_BYTES)
        self._lock = anyio.Lock()
        self._next_id = 0
        self._busy = False

    def __repr__(self) -> str:
        state = "dead" if self.death else "alive" if self.info else "new"
        return f"<ProcessPolicy {self.model_dir} pid={self.pid} {state} requests={self.requests}>"

    # ------------------------------------------------------------------ state

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id), once started."""
        return self._child.pid

    @property
    def alive(self) -> bool:
        """Ready, not killed, and the process has not exited."""
        return self.info is not None and self.death is None and self._child.running

    @property
    def busy(self) -> bool:
        """A request has been written and its answer not yet read."""
        return self._busy

    def _ready(self) -> ReadyInfo:
        if self.info is None:
            raise PolicyProcessDied("the policy worker has not started: use `async with ProcessPolicy(...)`")
        return self.info

    @property
    def fingerprint(self) -> str:
        """The checkpoint fingerprint the child computed (the key of embedding caches)."""
        return self._ready().fingerprint

    @property
    def hidden_size(self) -> int:
        """Width of the embeddings ``encode`` returns."""
        return self._ready().hidden_size

    @property
    def device(self) -> str:
        """Where the child put the weights."""
        return self._ready().device

    def stderr_tail(self) -> str:
        """The child's last few stderr lines, joined on one line."""
        text = self._child.stderr_tail()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(lines[-_STDERR_TAIL_LINES:])

    def _tail_suffix(self) -> str:
        tail = self.stderr_tail()
        return f"; stderr: {tail}" if tail else ""

    # ------------------------------------------------------------------ life cycle

    async def __aenter__(self) -> Self:
        """Start the child and wait until its model has loaded."""
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop the child (end of input, then SIGKILL after the grace period)."""
        await self.close()

    async def start(self) -> None:
        """Spawn the child, send it the model directory and config, and wait for its hello."""
        if self._child.spawned:
            raise PolicyProcessError("a ProcessPolicy starts once")
        try:
            await self._child.spawn()
        except OSError as exc:
            raise PolicyLoadError(f"cannot start the policy worker ({self.command[0]}): {exc}") from exc
        try:
            start = WorkerStart(model_dir=str(self.model_dir), config=self.config)
            raw = await self._exchange(_line(start), self.startup_timeout_s, "start-up")
            hello = await self._decode(raw, WorkerHello, "start-up")
        except BaseException:
            await self._kill("start-up failed")
            raise
        if hello.error is not None:
            await self._kill("the model did not load")
            if hello.error.type == PolicyLoadError.__name__:
                raise PolicyLoadError(hello.error.message)
            raise PolicyLoadError(
                f"the policy worker cannot load the model in {self.model_dir} "
                f"({hello.error.type}: {' '.join(hello.error.message.split())})"
            )
        if hello.ready is None:
            await self._kill("hello without ready")
            raise PolicyProcessProtocolError("the policy worker's hello has neither ready nor error")
        self.info = hello.ready
        log.info("policy worker pid %s ready: %s on %s", self.pid, self.model_dir, self.info.device)

    async def close(self) -> None:
        """End the child: close its input, wait shutdown_grace_s, then SIGKILL (idempotent)."""
        if not self._child.spawned:
            return
        with anyio.CancelScope(shield=True):
            if self.death is None and self._child.running:
                self.death = "closed"
                await self._child.stop(self.shutdown_grace_s)
            await self._kill(self.death or "closed")

    async def _kill(self, reason: str) -> None:
        """SIGKILL the child's process group, reap it, close the pipes (idempotent)."""
        if self.death is None:
            self.death = reason
        await self._child.kill()

    # ------------------------------------------------------------------ requests

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """Up to ``n`` de-duplicated candidates per state, best first (computed in the child)."""
        if not states:
            return []
        answer = await self._request("generate", states, n, contexts)
        if answer.candidates is None or len(answer.candidates) != len(states):
            await self._kill("answer out of step")
            raise PolicyProcessProtocolError(
                f"the policy worker answered generate for {len(states)} states with "
                f"{'no' if answer.candidates is None else len(answer.candidates)} candidate lists"
            )
        return answer.tactic_candidates()

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """State embeddings, (len(states), hidden_size) float32 on the CPU (computed in the child)."""
        import torch

        if not states:
            return torch.zeros(0, self.hidden_size)
        answer = await self._request("encode", states, 0)
        expected = [len(states), self.hidden_size]
        if answer.embeddings is None or answer.embeddings.shape != expected:
            await self._kill("answer out of step")
            got = "none" if answer.embeddings is None else answer.embeddings.shape
            raise PolicyProcessProtocolError(f"the policy worker answered encode with shape {got}, not {expected}")
        return answer.embeddings.to_tensor()

    async def _request(
        self,
        kind: Literal["generate", "encode"],
        states: Sequence[str],
        n: int,
        contexts: Sequence[PromptContext] | None = None,
    ) -> WorkerAnswer:
        """One request line, one answer line; an ``error`` answer raises PolicyGenerationError."""
        async with self._lock:
            self._next_id += 1
            request = WorkerRequest(
                id=self._next_id, kind=kind, states=list(states), n=n, contexts=list(contexts) if contexts else None
            )
            raw = await self._exchange(_line(request), self.request_timeout_s, kind)
            answer = await self._decode(raw, WorkerAnswer, kind)
            if answer.id != request.id:
                await self._kill("answer out of step")
                raise PolicyProcessProtocolError(f"the policy worker answered request {answer.id}, not {request.id}")
            self.requests += 1
        if answer.error is not None:
            raise _generation_error(kind, answer.error)
        return answer

    async def _decode(self, raw: bytes, model: type[_Wire], what: str) -> _Wire:
        try:
            return model.model_validate_json(raw)
        except ValidationError as exc:
            await self._kill(f"unreadable answer to {what}")
            shown = raw[:_SHOWN_LINE_CHARS].decode("utf-8", "replace").strip()
            raise PolicyProcessProtocolError(
                f"the policy worker's answer to {what} is unreadable ({exc.error_count()} errors): {shown!r}"
                f"{self._tail_suffix()}"
            ) from exc

    async def _exchange(self, line: bytes, timeout: float, what: str) -> bytes:
        """Write ``line``, read one answer line; kills the child on EOF, time-out or cancellation."""
        child = self._child
        if self.death is not None or not child.spawned:
            raise PolicyProcessDied(
                f"the policy worker is not running ({self.death or 'not started'}){self._tail_suffix()}"
            )
        raw: bytes | None = None
        self._busy = True
        try:
            with anyio.move_on_after(timeout):
                await child.send(line)
                raw = await child.read_line()
        except PIPE_ERRORS as exc:
            await self._kill(f"died during {what}")
            raise PolicyProcessDied(
                f"the policy worker (pid {child.pid}) died during {what} ({_status(child.returncode)})"
                f"{self._tail_suffix()}"
            ) from exc
        except anyio.DelimiterNotFound as exc:
            await self._kill(f"answer to {what} too long")
            raise PolicyProcessProtocolError(
                f"the policy worker's answer to {what} is longer than max_line_bytes={self.max_line_bytes}"
            ) from exc
        finally:
            self._busy = False
            if raw is None and self.death is None:
                # time-out or cancellation mid-request: the pipe is out of step for good
                await self._kill(f"interrupted during {what}")
        if raw is None:
            self.death = f"no answer to {what} within {timeout}s"
            raise PolicyProcessTimeout(
                f"the policy worker (pid {child.pid}) gave no answer to {what} within {timeout}s (killed)"
                f"{self._tail_suffix()}"
            )
        return raw
