"""The policy worker: a child process that owns the model and answers JSON lines.

``python -m burnqed.policy.worker`` reads one ``WorkerStart`` line (the model directory and
the ``PolicyConfig``), loads ``PolicyModel.load(model_dir, config)`` and writes one
``WorkerHello`` line: ``ready`` (fingerprint, hidden size, device, ...) or ``error`` (why the
model cannot load; then it exits with ``EXIT_LOAD_FAILED``). Then it reads one
``WorkerRequest`` per line and writes one ``WorkerAnswer`` per line, in order, on its main
thread: the point is CUDA work with no event loop beside it. End of input ends it (exit 0).

A model failure is an answer (``error``: type and message), not an exit. Anything a library
prints to stdout is moved to stderr, so the protocol's lines stay clean. The parent side is
``burnqed.policy.process_runner.ProcessPolicy``.
"""

from __future__ import annotations

import base64
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.policy.config import PolicyConfig
from burnqed.policy.types import PromptContext, TacticCandidate

if TYPE_CHECKING:
    import torch

    from burnqed.policy.model import PolicyModel

__all__ = [
    "EXIT_LOAD_FAILED",
    "EXIT_PROTOCOL",
    "WORKER_MODULE",
    "ReadyInfo",
    "WireCandidate",
    "WireError",
    "WireTensor",
    "WorkerAnswer",
    "WorkerHello",
    "WorkerRequest",
    "WorkerStart",
    "answer",
    "main",
    "serve",
]

log = logging.getLogger(__name__)

WORKER_MODULE = "burnqed.policy.worker"
"""What ``python -m`` runs in the child."""
EXIT_LOAD_FAILED = 3
"""Exit status after an ``error`` hello: the model did not load."""
EXIT_PROTOCOL = 4
"""Exit status after an unreadable line from the parent: the pipe is out of step."""
_WIRE_DTYPE = "<f4"  # embeddings travel as little-endian float32
_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s"

_WIRE = ConfigDict(frozen=True, extra="forbid", ser_json_inf_nan="constants")


class WorkerStart(BaseModel):
    """The first line the parent writes: what to load."""

    model_config = _WIRE

    model_dir: str
    config: PolicyConfig


class ReadyInfo(BaseModel):
    """What the loaded model reports about itself."""

    model_config = _WIRE

    fingerprint: str
    hidden_size: int = Field(ge=1)
    device: str
    dtype: str
    decode_mode: str
    pid: int


class WireError(BaseModel):
    """A failure, by exception type name and one-line message."""

    model_config = _WIRE

    type: str
    message: str

    @classmethod
    def of(cls, exc: BaseException) -> WireError:
        """The wire form of ``exc``."""
        return cls(type=type(exc).__name__, message=str(exc))


class WorkerHello(BaseModel):
    """The child's first line: ``ready`` or ``error`` (exactly one)."""

    model_config = _WIRE

    ready: ReadyInfo | None = None
    error: WireError | None = None


class WorkerRequest(BaseModel):
    """One batch for the model (``n`` is ignored by ``encode``)."""

    model_config = _WIRE

    id: int = Field(ge=0)
    kind: Literal["generate", "encode"]
    states: list[str]
    n: int = Field(default=0, ge=0)
    contexts: list[PromptContext] | None = None


class WireCandidate(BaseModel):
    """A TacticCandidate on the wire (a log-prob of -inf survives the trip)."""

    model_config = _WIRE

    tactic: str
    log_prob: float
    answer: str | None = None


class WireTensor(BaseModel):
    """A float32 tensor: base64 of its little-endian bytes, and its shape."""

    model_config = _WIRE

    shape: list[int]
    data: str

    @classmethod
    def from_tensor(cls, tensor: torch.Tensor) -> WireTensor:
        """Pack a tensor (any device or float dtype) as float32."""
        array = tensor.detach().to("cpu").float().contiguous().numpy().astype(_WIRE_DTYPE, copy=False)
        return cls(shape=list(array.shape), data=base64.b64encode(array.tobytes()).decode("ascii"))

    def to_tensor(self) -> torch.Tensor:
        """The float32 CPU tensor it holds."""
        import numpy as np
        import torch

        array = np.frombuffer(base64.b64decode(self.data), dtype=_WIRE_DTYPE).astype(np.float32)
        return torch.from_numpy(array.reshape(self.shape).copy())


class WorkerAnswer(BaseModel):
    """The answer to request ``id``: candidates, embeddings or an error."""

    model_config = _WIRE

    id: int
    candidates: list[list[WireCandidate]] | None = None
    embeddings: WireTensor | None = None
    error: WireError | None = None

    def tactic_candidates(self) -> list[list[TacticCandidate]]:
        """The candidates as TacticCandidate lists."""
        return [[TacticCandidate(tactic=c.tactic, log_prob=c.log_prob, answer=c.answer) for c in row] for row in self.candidates or []]


def _write(out: BinaryIO, message: BaseModel) -> None:
    out.write(message.model_dump_json(exclude_none=True).encode("utf-8") + b"\n")
    out.flush()


def answer(model: PolicyModel, request: WorkerRequest) -> WorkerAnswer:
    """Run one request on the model; a failure becomes an ``error`` answer."""
    try:
        if request.kind == "generate":
            rows = model.generate(request.states, request.n, request.contexts)
            wire = [[WireCandidate(tactic=c.tactic, log_prob=c.log_prob, answer=c.answer) for c in row] for row in rows]
            return WorkerAnswer(id=request.id, candidates=wire)
        return WorkerAnswer(id=request.id, embeddings=WireTensor.from_tensor(model.encode(request.states)))
    except Exception as exc:  # noqa: BLE001 - every model failure goes back to the caller as data
        log.warning("request %d (%s) failed: %r", request.id, request.kind, exc)
        return WorkerAnswer(id=request.id, error=WireError.of(exc))


def serve(model: PolicyModel, requests: BinaryIO, answers: BinaryIO) -> int:
    """Answer request lines until end of input; returns the exit status."""
    for raw in iter(requests.readline, b""):
        try:
            request = WorkerRequest.model_validate_json(raw)
        except ValidationError as exc:
            log.error("unreadable request line (%d bytes), exiting: %s", len(raw), " ".join(str(exc).split()))
            return EXIT_PROTOCOL
        _write(answers, answer(model, request))
    return 0


def _claim_stdout() -> BinaryIO:
    """The protocol's own handle on stdout; file descriptor 1 then points at stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints (ours, a library's, C code's) land in stderr
    return protocol


def _load(start: WorkerStart) -> tuple[PolicyModel, ReadyInfo]:
    from burnqed.policy.model import PolicyModel, check_model_dir

    # checked before torch is imported: a missing directory is answered at once
    check_model_dir(Path(start.model_dir).expanduser())
    model = PolicyModel.load(start.model_dir, start.config)
    info = ReadyInfo(
        fingerprint=model.fingerprint,
        hidden_size=model.hidden_size,
        device=str(model.device),
        dtype=str(next(model.model.parameters()).dtype),
        decode_mode=model.decode_mode,
        pid=os.getpid(),
    )
    return model, info


def main() -> int:
    """The child's entry point: load, say hello, serve; returns the exit status."""
    protocol = _claim_stdout()
    logging.basicConfig(level=logging.INFO, format=_LOG_FORMAT, stream=sys.stderr)
    requests = sys.stdin.buffer
    try:
        start = WorkerStart.model_validate_json(requests.readline())
    except ValidationError as exc:
        log.error("unreadable start line: %s", " ".join(str(exc).split()))
        return EXIT_PROTOCOL
    try:
        model, info = _load(start)
    except Exception as exc:  # noqa: BLE001 - whatever stops the load is reported to the parent
        log.error("cannot load %s: %r", start.model_dir, exc)
        _write(protocol, WorkerHello(error=WireError.of(exc)))
        return EXIT_LOAD_FAILED
    log.info("policy worker ready: %s on %s (%s), fingerprint %s", start.model_dir, info.device, info.dtype,
             info.fingerprint)
    _write(protocol, WorkerHello(ready=info))
    return serve(model, requests, protocol)


if __name__ == "__main__":
    from burnqed.collector import process_exit

    raise SystemExit(process_exit(main()))
