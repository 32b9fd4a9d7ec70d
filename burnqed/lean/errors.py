"""Errors of the Lean layer.

LeanError
 ├── LeanConfigError        the backend cannot be launched as configured
 │    └── VersionMismatch   the repl, the project and its Mathlib build are not on one Lean
 ├── LeanStartupError       the process did not print ``ready.`` (crash, io error, time-out)
 ├── LeanTimeout            no answer within the read time-out (the process was killed)
 ├── LeanProcessDied        EOF / broken pipe: the process is gone
 ├── LeanProtocolError      an answer that is not one JSON object of the expected shape
 ├── LeanReplError          the REPL answered ``{"error": TYPE, "desc": TEXT}``
 │    └── InvalidStatement  goal.start was refused (parsing / elab / unknown name)
 │         └── OutsideFragment  the embedded checker cannot express the statement (ℝ, Finset, ...)
 ├── InvalidInput           refused before sending: NUL byte or longer than max_input_chars
 ├── PoolClosed             the pool is shut down
 ├── PoolExhausted          no worker became free within the acquire time-out
 └── HandleError
      ├── UnknownHandle     no such proof handle (or it was closed)
      ├── HandleLost        the worker behind the handle died; the handle is dead
      └── ForeignState      a state id that does not belong to this handle

A tactic that fails is *not* an error: it is a ``TacticOutcome`` with status ``failed``.
"""

from __future__ import annotations

__all__ = [
    "ForeignState",
    "HandleError",
    "HandleLost",
    "InvalidInput",
    "InvalidStatement",
    "LeanConfigError",
    "LeanError",
    "LeanProcessDied",
    "LeanProtocolError",
    "LeanReplError",
    "LeanStartupError",
    "LeanTimeout",
    "OUTSIDE_FRAGMENT",
    "OutsideFragment",
    "PoolClosed",
    "PoolExhausted",
    "UnknownHandle",
    "VersionMismatch",
    "statement_refused",
]


class LeanError(Exception):
    """Base class of every error raised by burnqed.lean."""


class LeanConfigError(LeanError):
    """The backend cannot be launched as configured (missing binary, bad command)."""


class VersionMismatch(LeanConfigError):
    """The repl, the project and its Mathlib build are not on one Lean release (burnqed.lean.place)."""


class LeanStartupError(LeanError):
    """The child process did not become ready."""


class LeanTimeout(LeanError):
    """The child did not answer within the read time-out; it has been killed."""


class LeanProcessDied(LeanError):
    """The child process exited or its pipe broke."""


class LeanProtocolError(LeanError):
    """The child answered something that is not a valid protocol answer."""


class LeanReplError(LeanError):
    """The REPL answered with an ``{"error": ..., "desc": ...}`` object."""

    def __init__(self, error: str, desc: str) -> None:
        super().__init__(f"{error}: {desc}")
        self.error = error
        self.desc = desc

    def __reduce__(self) -> tuple[type[LeanReplError], tuple[str, str]]:
        """Pickled with both fields, so the error crosses a process boundary (a Ray actor) as itself."""
        return (type(self), (self.error, self.desc))


class InvalidStatement(LeanReplError):
    """The REPL refused a goal.start: the statement does not parse or elaborate, or no such name."""


OUTSIDE_FRAGMENT = "outside the embedded fragment"
"""How the embedded checker's refusals of statements it cannot express begin."""


class OutsideFragment(InvalidStatement):
    """The embedded checker cannot express this statement (a type or function beyond its fragment).

    Not a failure of search or of the statement: real Lean may well take it.
    """


def statement_refused(error: str, desc: str) -> InvalidStatement:
    """The InvalidStatement (or OutsideFragment) for a refusal ``error: desc``."""
    cls = OutsideFragment if OUTSIDE_FRAGMENT in desc else InvalidStatement
    return cls(error, desc)


class InvalidInput(LeanError):
    """Input refused before it reached the child (a NUL byte, or longer than max_input_chars)."""


class PoolClosed(LeanError):
    """The pool has been shut down."""


class PoolExhausted(LeanError):
    """No worker became free within the acquire time-out."""


class HandleError(LeanError):
    """A problem with a proof handle."""


class UnknownHandle(HandleError):
    """No live handle of that id."""


class HandleLost(HandleError):
    """The worker behind the handle died; its states are gone."""


class ForeignState(HandleError):
    """The state id does not belong to this handle."""
