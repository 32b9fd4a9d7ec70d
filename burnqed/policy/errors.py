"""Errors of the policy layer.

PolicyError
 ├── PolicyLoadError        a model directory is missing, incomplete or unreadable
 ├── PolicyGenerationError  the model failed while generating or encoding (device, memory, ...)
 ├── SFTError               fine-tuning could not run (no pairs, bad pairs file, missing extra)
 └── ServiceError
      ├── ServiceNotRunning the generation service is used outside ``async with``
      └── ServiceClosed     the service shut down before the request was answered

A tactic the model proposes that turns out useless is *not* an error: it is a candidate.
"""

from __future__ import annotations

__all__ = [
    "PolicyError",
    "PolicyGenerationError",
    "PolicyLoadError",
    "SFTError",
    "ServiceClosed",
    "ServiceError",
    "ServiceNotRunning",
]


class PolicyError(Exception):
    """Base class of every error raised by burnqed.policy."""


class PolicyLoadError(PolicyError):
    """A model directory cannot be loaded (the message says what to put where)."""


class PolicyGenerationError(PolicyError):
    """The model raised while generating or encoding."""


class SFTError(PolicyError):
    """Supervised fine-tuning cannot run as asked."""


class ServiceError(PolicyError):
    """A problem with the generation service."""


class ServiceNotRunning(ServiceError):
    """The service was used outside its ``async with`` block."""


class ServiceClosed(ServiceError):
    """The service shut down before answering the request."""
