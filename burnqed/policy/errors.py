"""Errors of the policy layer.

PolicyError
 ├── PolicyLoadError             a model or tokenizer directory is missing, incomplete or unreadable
 │    └── PolicyRemoteCodeRefused a checkpoint needs its own code and policy.trust_remote_code is false
 ├── PolicyGenerationError       the model failed while generating or encoding (device, memory, ...)
 ├── PolicyServerError           a policy server (vLLM, SGLang) refused or failed a request, with its message
 │    ├── PolicyServerUnavailable the server cannot be reached (refused, unknown host, timed out, reset)
 │    └── PolicyModelNotServed    policy.model is not served there, or several are and none is named
 ├── PolicyEmbeddingsUnavailable a served policy gives no state embeddings (the energy head needs local)
 ├── SFTError                    fine-tuning could not run (no pairs, bad pairs file, missing extra)
 └── ServiceError
      ├── ServiceNotRunning      the generation service is used outside ``async with``
      └── ServiceClosed          the service shut down before the request was answered

A tactic the model proposes that turns out useless is *not* an error: it is a candidate.
Every message is one line that says what to do.
"""

from __future__ import annotations

__all__ = [
    "PolicyEmbeddingsUnavailable",
    "PolicyError",
    "PolicyGenerationError",
    "PolicyLoadError",
    "PolicyModelNotServed",
    "PolicyRemoteCodeRefused",
    "PolicyServerError",
    "PolicyServerUnavailable",
    "SFTError",
    "ServiceClosed",
    "ServiceError",
    "ServiceNotRunning",
]


class PolicyError(Exception):
    """Base class of every error raised by burnqed.policy."""


class PolicyLoadError(PolicyError):
    """A model directory cannot be loaded (the message says what to put where)."""


class PolicyRemoteCodeRefused(PolicyLoadError):
    """The checkpoint ships its own modelling or tokenizer code and policy.trust_remote_code is false."""


class PolicyGenerationError(PolicyError):
    """The model raised while generating or encoding."""


class PolicyServerError(PolicyError):
    """A policy server refused or failed a request; ``status`` is its HTTP status, if it answered."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        """``message``: one line saying what went wrong and what to do."""
        super().__init__(message)
        self.status = status


class PolicyServerUnavailable(PolicyServerError):
    """The policy server cannot be reached: connection refused, unknown host, no answer in time, resets."""


class PolicyModelNotServed(PolicyServerError):
    """``policy.model`` is not among the served models, or several are served and none is named."""


class PolicyEmbeddingsUnavailable(PolicyError):
    """A served policy gives no state embeddings; the energy head needs ``policy.backend = "local"``."""


class SFTError(PolicyError):
    """Supervised fine-tuning cannot run as asked."""


class ServiceError(PolicyError):
    """A problem with the generation service."""


class ServiceNotRunning(ServiceError):
    """The service was used outside its ``async with`` block."""


class ServiceClosed(ServiceError):
    """The service shut down before answering the request."""
