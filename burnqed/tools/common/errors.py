"""Errors of the tool layer: each one reaches the MCP client as an ``is_error`` tool result.

ToolsError (an ``mcp`` ToolError: the SDK turns it into a result the model can read)
 ├── InvalidInput           an argument that passed the schema but makes no sense
 │    └── Refused           the trust boundary refuses it on purpose ("refused [rule]: …"):
 │                          held-out data, another client's handle or job, a budget past the
 │                          operator's cap, an unknown argument; the call log and audit flag it
 ├── PolicyViolation        a tactic or statement the tactic policy denies
 ├── LeaseError
 │    ├── UnknownLease      no proof handle of that id was ever issued (or it was closed)
 │    ├── LeaseExpired      the handle was idle too long and has been closed
 │    ├── LeaseLost         the Lean worker behind the handle died
 │    └── TooManyLeases     the cap on live handles is reached
 ├── LeanUnavailable        the Lean pool failed (start-up, exhausted, closed)
 ├── JobError
 │    ├── UnknownJob        no job of that id
 │    ├── JobNotFinished    a result was asked for a job that has not finished
 │    └── TooManyJobs       the cap on running jobs is reached
 ├── StatsUnavailable       the requested statistics do not exist (no run, no iteration)
 ├── BlueprintToolError     the blueprint refused the change (locked statement, bad status …)
 └── ServiceUnavailable     a component the tool needs is not configured (no model, no EBM)

Only protocol faults become MCP errors; everything here is data for the model.

The error contract of the boundary below: an error of a lower layer that escapes a tool is
turned into a tool error by ``as_tool_error`` (every server applies it to every tool, so no
lower-layer exception type reaches a client), by this table, first match wins:

| lower-layer error                                         | tool error          |
|-----------------------------------------------------------|---------------------|
| lean ``InvalidStatement``, ``InvalidInput``, ``LeanReplError``, ``ForeignState`` | InvalidInput |
| lean ``HandleLost``, ``UnknownHandle``                    | LeaseLost           |
| lean ``LeanError`` (start-up, time-out, death, pool)      | LeanUnavailable     |
| policy ``PolicyError`` (``PolicyLoadError``, generation)  | ServiceUnavailable  |
| ebm ``EBMError`` (``EBMCheckpointError``, cache)          | ServiceUnavailable  |
| blueprint ``BlueprintError``                              | BlueprintToolError  |
| data ``TheoremSetError``                                  | InvalidInput        |
| cluster ``ClusterError`` (Ray missing, cluster unreachable, actors dead) | ServiceUnavailable |

The Lean rows are one mapping, ``lean_tool_error``: the contract applies it with no context
(the Lean error's message kept as it is), and the lean tools apply it with the ``LeanCall``
they made, whose words frame the same message (``Lean rejected the statement: …``,
``embedded checker: rejected the statement: …`` on the embedded backend, ``the Lean pool
could not verify: LeanTimeout: …``, ``handle H is lost (its Lean worker died); …``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp.server.mcpserver.exceptions import ToolError

if TYPE_CHECKING:
    from burnqed.lean.errors import LeanError

__all__ = [
    "BlueprintToolError",
    "InvalidInput",
    "JobError",
    "JobNotFinished",
    "LeanCall",
    "LeanUnavailable",
    "LeaseError",
    "LeaseExpired",
    "LeaseLost",
    "PolicyViolation",
    "ProofRejected",
    "REFUSED_PREFIX",
    "Refused",
    "ServiceUnavailable",
    "StatsUnavailable",
    "TooManyJobs",
    "TooManyLeases",
    "ToolsError",
    "UnknownJob",
    "UnknownLease",
    "as_tool_error",
    "error_contract",
    "lean_tool_error",
]


class ToolsError(ToolError):
    """Base class of every anticipated tool failure."""


class InvalidInput(ToolsError):
    """An argument that is well-typed but unusable."""


REFUSED_PREFIX = "refused ["


class Refused(InvalidInput):
    """A request the trust boundary refuses on purpose; its text names the rule, so that the
    tool-call log records it and ``burnqed audit`` flags the client that tried."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{REFUSED_PREFIX}{rule}]: {message}")
        self.rule = rule


class PolicyViolation(ToolsError):
    """The tactic policy denies this tactic or statement."""

    def __init__(self, kind: str, rule: str) -> None:
        super().__init__(f"{kind} denied by the tactic policy (rule: {rule})")
        self.kind = kind
        self.rule = rule


class LeaseError(ToolsError):
    """A problem with a proof-handle lease."""


class UnknownLease(LeaseError):
    """No live lease of that id."""


class LeaseExpired(LeaseError):
    """The lease was idle past its timeout; its handle was closed."""


class LeaseLost(LeaseError):
    """The worker behind the lease died; the handle is gone."""


class TooManyLeases(LeaseError):
    """The cap on live leases is reached."""


class LeanUnavailable(ToolsError):
    """The Lean pool could not serve the request."""


class JobError(ToolsError):
    """A problem with a search job."""


class UnknownJob(JobError):
    """No job of that id."""


class JobNotFinished(JobError):
    """The job has no result yet."""


class TooManyJobs(JobError):
    """The cap on running jobs is reached."""


class StatsUnavailable(ToolsError):
    """The requested statistics do not exist."""


class BlueprintToolError(ToolsError):
    """The blueprint refused the change."""


class ServiceUnavailable(ToolsError):
    """A component this tool needs is not available."""


class ProofRejected(ToolsError):
    """The verification gate replayed the proof and refused it."""


@dataclass(frozen=True)
class LeanCall:
    """What a tool asked of Lean: the words its Lean errors' tool errors are written in."""

    checker: str = "Lean"  # "embedded checker" on the embedded backend: its refusal is never Lean's word
    subject: str = "the request"  # what a refusal refused ("the statement")
    action: str = "serve the request"  # what the pool failed to do ("start the proof", "verify")
    handle: str | None = None
    state_id: int | None = None

    def rejected(self) -> str:
        """``Lean rejected SUBJECT``, or ``embedded checker: rejected SUBJECT``."""
        if self.checker == "Lean":
            return f"Lean rejected {self.subject}"
        return f"{self.checker}: rejected {self.subject}"


_LeanText = Callable[["LeanError", LeanCall], str]


def _refused_text(exc: LeanError, call: LeanCall) -> str:
    return f"{call.rejected()}: {exc}"


def _foreign_text(exc: LeanError, call: LeanCall) -> str:
    if call.handle is None or call.state_id is None:
        return str(exc)
    return f"state {call.state_id} does not belong to handle {call.handle}"


def _lost_text(exc: LeanError, call: LeanCall) -> str:
    if call.handle is None:
        return str(exc)
    return f"handle {call.handle} is lost (its Lean worker died); start a new proof"


def _unavailable_text(exc: LeanError, call: LeanCall) -> str:
    return f"the Lean pool could not {call.action}: {type(exc).__name__}: {exc}"


def _lean_rows() -> tuple[tuple[tuple[type[LeanError], ...], type[ToolsError], _LeanText], ...]:
    """The Lean rows of the table: (Lean error types, tool error, its text in a call's words)."""
    from burnqed.lean import errors as lean

    return (
        ((lean.ForeignState,), InvalidInput, _foreign_text),
        ((lean.InvalidStatement, lean.InvalidInput, lean.LeanReplError), InvalidInput, _refused_text),
        ((lean.HandleLost, lean.UnknownHandle), LeaseLost, _lost_text),
        ((lean.LeanError,), LeanUnavailable, _unavailable_text),
    )


def lean_tool_error(exc: LeanError, call: LeanCall | None = None) -> ToolsError:
    """The tool error a Lean-layer error becomes (its ``__cause__``): with no ``call`` its
    message kept as it is, else framed in the call's words."""
    for kinds, tool_error, text in _lean_rows():
        if isinstance(exc, kinds):
            mapped = tool_error(text(exc, call) if call is not None else (str(exc) or type(exc).__name__))
            mapped.__cause__ = exc
            return mapped
    raise TypeError(f"{type(exc).__name__} is not a Lean-layer error")  # unreachable: the last row is LeanError


def error_contract() -> tuple[tuple[tuple[type[BaseException], ...], type[ToolsError]], ...]:
    """The table of the module docstring: (lower-layer error types, tool error), in order."""
    from burnqed.blueprint.errors import BlueprintError
    from burnqed.cluster.errors import ClusterError
    from burnqed.data.theorems import TheoremSetError
    from burnqed.ebm.errors import EBMError
    from burnqed.policy.errors import PolicyError

    return (
        *((kinds, tool_error) for kinds, tool_error, _ in _lean_rows()),
        ((PolicyError,), ServiceUnavailable),
        ((EBMError,), ServiceUnavailable),
        ((BlueprintError,), BlueprintToolError),
        ((TheoremSetError,), InvalidInput),
        ((ClusterError,), ServiceUnavailable),
    )


def as_tool_error(exc: BaseException) -> ToolsError | None:
    """The tool error a lower-layer error becomes (its message kept), or None for anything
    else (a bug: the SDK reports it as it is)."""
    from burnqed.lean.errors import LeanError

    if isinstance(exc, ToolsError):
        return exc
    if isinstance(exc, LeanError):
        return lean_tool_error(exc)
    for kinds, tool_error in error_contract():
        if isinstance(exc, kinds):
            mapped = tool_error(str(exc) or type(exc).__name__)
            mapped.__cause__ = exc
            return mapped
    return None
