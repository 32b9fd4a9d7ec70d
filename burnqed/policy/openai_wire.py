"""The OpenAI-compatible completions API as vLLM and SGLang speak it: request and answer shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["CompletionChoice", "CompletionRequest", "CompletionResponse", "ModelList", "ServedModel", "TokenLogprobs"]


class CompletionRequest(BaseModel):
    """The body of ``POST /completions`` (top_k is a vLLM / SGLang extra; prompts are texts or token ids)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    prompt: list[str] | list[list[int]]
    n: int
    max_tokens: int
    temperature: float
    top_p: float
    top_k: int
    logprobs: int = 1
    seed: int | None = None
    stop: list[str] | None = None


class TokenLogprobs(BaseModel):
    """A choice's ``logprobs``: one entry per generated token."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    token_logprobs: list[float | None]


class CompletionChoice(BaseModel):
    """One sample: its ``index`` (prompt * n + sample), text and token log-probs."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    index: int
    text: str
    logprobs: TokenLogprobs | None = None
    finish_reason: str | None = None


class CompletionResponse(BaseModel):
    """The answer of ``POST /completions``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    choices: list[CompletionChoice]


class ServedModel(BaseModel):
    """One entry of ``GET /models`` (``max_model_len`` as vLLM and SGLang report it)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    max_model_len: int | None = None


class ModelList(BaseModel):
    """The answer of ``GET /models``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    data: list[ServedModel]


class _ErrorDetail(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    message: str | None = None


class _ErrorBody(BaseModel):
    """An error answer: vLLM's ``{"message": ...}``, OpenAI's ``{"error": {...}}``, FastAPI's ``{"detail": ...}``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    message: str | None = None
    error: _ErrorDetail | str | None = None
    detail: Any = None
