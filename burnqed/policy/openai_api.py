"""The ``openai`` policy backend: a vLLM or SGLang server behind its OpenAI-compatible
completions API.

``OpenAIPolicy`` is an ``AsyncPolicy``: the generation service awaits it on the event loop
with up to ``policy.max_concurrency`` requests in flight. A micro-batch of states is asked
with ``logprobs: 1``; a candidate's log-prob is the sum of its tokens' log-probs as the
server reports them. Choices are grouped by their ``index`` (prompt ``i``, sample ``j`` is
``i * n + j`` on vLLM and SGLang), never by their order.

Samples. Without ``policy.seed`` one ``POST {base_url}/completions`` carries the prompts and
asks ``n`` samples of each (unseeded draws are distinct on both servers). With a seed, the
``n`` samples are ``n`` requests of one sample each, request ``j`` seeded by
``row_seed(seed, temperature, n, j)``: a request's seed is shared by all its samples on
SGLang (its ``n`` copies would come back identical) and by all its prompts on both servers,
so per-sample requests make the ``n`` samples distinct draws, and a state's samples depend
on the seed and its own prompt only (reproducible whatever it is batched with); a resample
round asks another ``n``, so other seeds.

Prompts are built exactly as for the local model: with a local tokenizer
(``policy.tokenizer_dir``, else ``policy.model_dir``) the chat template and the token
budget are the served model's own, and the prompt is sent as token ids, which vLLM and
SGLang both take as they are (SGLang's completions request has no ``add_special_tokens``
and tokenizes text with special tokens, so a text prompt that already starts with BOS
would get a second one there). Without a tokenizer the plain format or the literal
DeepSeek turn markers are used, the budget is counted in characters, and the prompt is
sent as text without its leading BOS, which both servers then add once.

``async with OpenAIPolicy.connect(config) as policy`` owns the HTTP client and first asks
``GET {base_url}/models`` which model to use. Busy answers (429, 503) and dropped
connections are retried with doubling waits, a bounded number of times; every other
failure is a one-line ``PolicyServerError``. A served model gives no embeddings:
``encode`` raises ``PolicyEmbeddingsUnavailable``.
"""

from __future__ import annotations

import math
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import httpx2
from pydantic import BaseModel, ConfigDict, ValidationError

from burnqed.env import env
from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import (
    PolicyEmbeddingsUnavailable,
    PolicyError,
    PolicyLoadError,
    PolicyModelNotServed,
    PolicyServerError,
    PolicyServerUnavailable,
)
from burnqed.policy.model import _LEGACY_FORMATS, _cut_at_stop, check_remote_code, row_seed
from burnqed.policy.openai_wire import (
    CompletionChoice,
    CompletionRequest,
    CompletionResponse,
    ModelList,
    ServedModel,
    _ErrorBody,
    _ErrorDetail,
)
from burnqed.policy.presets import get_preset, parse_candidate, render_prompt
from burnqed.policy.prompts import format_prompt
from burnqed.policy.types import PromptContext, TacticCandidate

if TYPE_CHECKING:
    import torch

__all__ = [
    "CHARS_PER_TOKEN",
    "MAX_RETRIES",
    "RETRY_BACKOFF_S",
    "CompletionChoice",
    "CompletionRequest",
    "CompletionResponse",
    "ModelList",
    "OpenAIPolicy",
    "ServedModel",
    "load_tokenizer",
]

MAX_RETRIES = 4  # further tries of a request answered 429 / 503 or whose connection dropped
RETRY_BACKOFF_S = 0.5  # wait before the first retry; doubles for each further one
RETRY_STATUSES = frozenset({429, 503})  # "busy, come back": retried; every other error status is final
CONNECT_TIMEOUT_S = 10.0  # opening a connection (the whole request has policy.request_timeout_s)
CHARS_PER_TOKEN = 3  # prompt budget without a tokenizer: characters per token, conservative for Lean text
MIN_PROMPT_TOKENS = 16  # the least prompt budget left when the served context is short (as PolicyModel)
NO_TOP_K = -1  # what vLLM and SGLang read as "no top-k cut" (policy.top_k = 0)
SEED_MODULUS = 2**31 - 1  # request seeds kept below every server's int limit
DEEPSEEK_BOS = "<｜begin▁of▁sentence｜>"  # what the literal DeepSeek turn markers start with
MAX_MESSAGE_CHARS = 300  # a server's error message is quoted up to this length
_CAUSE_DEPTH = 8  # links of an exception's cause chain searched for the socket error (4 in practice)

_Answer = TypeVar("_Answer", bound=BaseModel)


# ---------------------------------------------------------------- helpers


def _one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _server_message(response: httpx2.Response) -> str:
    """The server's own words from an error answer, on one line."""
    try:
        body = _ErrorBody.model_validate_json(response.content)
    except ValidationError:
        return _one_line(response.text) or response.reason_phrase
    nested = body.error.message if isinstance(body.error, _ErrorDetail) else body.error
    found = body.message or nested or (str(body.detail) if body.detail is not None else "")
    return _one_line(found or response.text) or response.reason_phrase


def _connect_reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words (the cause chain holds the socket error)."""
    seen: BaseException | None = exc
    for _ in range(_CAUSE_DEPTH):  # httpx2 → httpcore2 → OSError → the socket's error
        if seen is None:
            break
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        seen = seen.__cause__ or seen.__context__
    return _one_line(str(exc)) or type(exc).__name__


class _Characters:
    """A stand-in tokenizer whose tokens are characters: the budget when no tokenizer is given."""

    chat_template = None  # the DeepSeek turn markers are written literally

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        """One "token" per character."""
        return {"input_ids": [ord(c) for c in text]}

    def decode(self, ids: Sequence[int], **_: Any) -> str:
        """The characters back."""
        return "".join(chr(i) for i in ids)


_CHARACTERS = _Characters()


def load_tokenizer(directory: Path | None, *, trust_remote_code: bool = False) -> Any | None:
    """The tokenizer in ``directory`` (local files only), or None when no directory is given."""
    if directory is None:
        return None
    path = Path(directory).expanduser()
    if not path.is_dir():
        raise PolicyLoadError(
            f"tokenizer directory {path} does not exist: set policy.tokenizer_dir to a folder with the served "
            "model's tokenizer.json + tokenizer_config.json, or leave it unset to budget prompts in characters"
        )
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=trust_remote_code)
    except (OSError, ValueError, KeyError, ImportError) as exc:
        raise PolicyLoadError(
            f"cannot load a tokenizer from {path} ({type(exc).__name__}: {_one_line(str(exc))}): give "
            "policy.tokenizer_dir a folder holding tokenizer.json + tokenizer_config.json"
        ) from exc


def _base_url(config: PolicyConfig) -> str:
    url = (config.base_url or "").strip().rstrip("/")
    if not url:
        raise PolicyServerError(
            'policy.backend = "openai" needs policy.base_url, the server\'s API root (e.g. http://localhost:8000/v1)'
        )
    if not url.startswith(("http://", "https://")):
        raise PolicyServerError(f"policy.base_url {url!r} is not an http(s) URL: give e.g. http://localhost:8000/v1")
    return url


# ---------------------------------------------------------------- the server


class _Server:
    """Requests to one server: JSON in and out, retries on busy answers and dropped connections."""

    def __init__(self, client: httpx2.AsyncClient, config: PolicyConfig, base_url: str, *, max_retries: int, backoff_s: float) -> None:
        self.client = client
        self.config = config
        self.base_url = base_url
        self.max_retries = max_retries
        self.backoff_s = backoff_s

    async def call(self, method: str, path: str, body: BaseModel | None, answer: type[_Answer]) -> _Answer:
        """``method /path`` with ``body``, parsed as ``answer``."""
        content = await self._send(method, path, body)
        try:
            return answer.model_validate_json(content)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "body"
            raise PolicyServerError(
                f"the policy server at {self.base_url} answered {method} /{path} out of protocol ({where}: "
                f"{_one_line(str(first['msg']))}): policy.base_url must be an OpenAI-compatible server such as vLLM or SGLang"
            ) from exc

    async def _send(self, method: str, path: str, body: BaseModel | None) -> bytes:
        where = f"{method} /{path}"
        payload = body.model_dump(exclude_none=True) if body is not None else None
        problem, status, dropped = "", None, None
        for attempt in range(self.max_retries + 1):
            if attempt:
                await anyio.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = await self.client.request(method, f"{self.base_url}/{path}", json=payload)
            except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
                reason = "no connection in time" if isinstance(exc, httpx2.ConnectTimeout) else _connect_reason(exc)
                raise PolicyServerUnavailable(
                    f"cannot reach the policy server at {self.base_url} ({reason}): start vLLM or SGLang "
                    "(see README, 'The seed experiment') or fix policy.base_url"
                ) from exc
            except httpx2.TimeoutException as exc:
                raise PolicyServerUnavailable(
                    f"the policy server at {self.base_url} did not answer {where} within "
                    f"{self.config.request_timeout_s:g} s: check that it is up and not overloaded, or raise "
                    "policy.request_timeout_s"
                ) from exc
            except (httpx2.ReadError, httpx2.WriteError, httpx2.RemoteProtocolError) as exc:
                problem, status, dropped = "the connection was dropped", None, exc
                continue
            except httpx2.HTTPError as exc:
                raise PolicyServerUnavailable(
                    f"cannot talk to the policy server at {self.base_url} ({_one_line(str(exc)) or type(exc).__name__}): "
                    "fix policy.base_url"
                ) from exc
            if response.status_code in RETRY_STATUSES:
                problem, status = f"HTTP {response.status_code}: {_server_message(response)}", response.status_code
                continue
            if response.is_error:
                raise PolicyServerError(
                    f"the policy server at {self.base_url} refused {where} (HTTP {response.status_code}: "
                    f"{_server_message(response)}): {self._advice(response.status_code)}",
                    status=response.status_code,
                )
            return response.content
        error = PolicyServerUnavailable(
            f"the policy server at {self.base_url} kept failing {where} ({problem}) in {self.max_retries + 1} tries: "
            "check its log, or lower policy.max_concurrency if it is overloaded",
            status=status,
        )
        raise error from dropped

    def _advice(self, status: int) -> str:
        if status in (401, 403):
            return f"put the server's API key in ${self.config.api_key_env} (policy.api_key_env)"
        if status == 404:
            return "check policy.base_url (the API root, e.g. http://localhost:8000/v1) and policy.model"
        if status < 500:
            return "check policy.model and policy.max_new_tokens / max_prompt_tokens against the server's limits"
        return "see the server's log"


# ---------------------------------------------------------------- the policy


class OpenAIPolicy:
    """A policy served by vLLM or SGLang: batched tactic sampling over the completions API."""

    def __init__(
        self,
        server: _Server,
        config: PolicyConfig,
        model: ServedModel,
        tokenizer: Any | None = None,
    ) -> None:
        """Wrap a connected server (use ``OpenAIPolicy.connect``)."""
        self._server = server
        self.config = config.effective()
        self.preset = get_preset(self.config.preset_name)
        self.base_url = server.base_url
        self.model = model.id
        self.max_model_len = model.max_model_len
        self.tokenizer = tokenizer
        self.max_concurrency = config.max_concurrency

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        config: PolicyConfig,
        *,
        tokenizer_dir: Path | None = None,
        max_retries: int = MAX_RETRIES,
        retry_backoff_s: float = RETRY_BACKOFF_S,
    ) -> AsyncIterator[OpenAIPolicy]:
        """Open the HTTP client, load the local tokenizer (if any) and pick the served model."""
        base_url = _base_url(config)
        tok_dir = tokenizer_dir or config.tokenizer_dir or config.model_dir
        if tok_dir is not None and Path(tok_dir).expanduser().is_dir():
            check_remote_code(Path(tok_dir).expanduser(), config)
        tokenizer = load_tokenizer(tok_dir, trust_remote_code=config.trust_remote_code)
        key = env(config.api_key_env) if config.api_key_env else None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        timeout = httpx2.Timeout(config.request_timeout_s, connect=min(CONNECT_TIMEOUT_S, config.request_timeout_s))
        limits = httpx2.Limits(max_connections=config.max_concurrency, max_keepalive_connections=config.max_concurrency)
        async with httpx2.AsyncClient(headers=headers, timeout=timeout, limits=limits) as client:
            server = _Server(client, config, base_url, max_retries=max_retries, backoff_s=retry_backoff_s)
            served = await server.call("GET", "models", None, ModelList)
            yield cls(server, config, _pick_model(served, config.model, base_url), tokenizer)

    @property
    def fingerprint(self) -> str:
        """Identifies the served policy: ``openai:<base_url>:<model>``."""
        return f"openai:{self.base_url}:{self.model}"

    @property
    def hidden_size(self) -> int:
        """0: a served model gives no embeddings."""
        return 0

    def prompt(self, state: str, context: PromptContext | None = None) -> str:
        """The prompt for one state in the preset; a state-only format is fitted to the budget (in tokens
        with a tokenizer, else in characters)."""
        fmt = _LEGACY_FORMATS.get(self.preset.template)
        if fmt is None:
            return render_prompt(self.preset, context if context is not None else PromptContext(state=state), self.tokenizer)
        if self.tokenizer is not None:
            return format_prompt(state, fmt, tokenizer=self.tokenizer, max_tokens=self._budget())
        return format_prompt(state, fmt, tokenizer=_CHARACTERS, max_tokens=self._budget() * CHARS_PER_TOKEN)

    def _budget(self) -> int:
        """Prompt tokens allowed: the configured budget, within the served context less the answer."""
        budget = self.config.max_prompt_tokens
        if self.max_model_len:
            budget = min(budget, max(MIN_PROMPT_TOKENS, self.max_model_len - self.config.max_new_tokens))
        return budget

    def wire_prompt(self, prompt: str) -> str | list[int]:
        """The prompt as sent: token ids with a tokenizer, else text without a leading BOS.

        Both are read alike by vLLM and SGLang: token ids are used as they are; text is
        tokenized with special tokens (SGLang always, vLLM by default), which adds BOS once.
        """
        if self.tokenizer is None:
            return prompt[len(DEEPSEEK_BOS) :] if prompt.startswith(DEEPSEEK_BOS) else prompt
        bos = getattr(self.tokenizer, "bos_token", None)
        written = bool(bos) and prompt.startswith(bos)
        ids: list[int] = self.tokenizer(prompt, add_special_tokens=not written)["input_ids"]
        return ids

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        """Up to ``n`` de-duplicated candidates per state, best first (one request, or ``n`` when seeded)."""
        if not states:
            return []
        if n < 1:
            raise ValueError("n must be at least 1")
        cfg = self.config
        samples = 1 if cfg.temperature == 0 else n  # greedy: n samples would be one answer n times
        ctxs = list(contexts) if contexts is not None else [PromptContext(state=s) for s in states]
        wire = [self.wire_prompt(self.prompt(s, c)) for s, c in zip(states, ctxs, strict=True)]
        prompts: list[str] | list[list[int]] = wire  # type: ignore[assignment]

        def request(count: int, seed: int | None) -> CompletionRequest:
            return CompletionRequest(
                model=self.model,
                prompt=prompts,
                n=count,
                max_tokens=cfg.max_new_tokens,
                temperature=cfg.temperature,
                top_p=cfg.top_p,
                top_k=cfg.top_k if cfg.top_k > 0 else NO_TOP_K,
                seed=seed,
                stop=list(self.preset.stop) or None,
            )

        if cfg.seed is None or samples == 1:
            seed = None if cfg.seed is None else row_seed(cfg.seed, cfg.temperature, samples, 0, "") % SEED_MODULUS
            answer = await self._server.call("POST", "completions", request(samples, seed), CompletionResponse)
            return self._candidates([(answer, 0)], ctxs, samples)
        answers: list[tuple[CompletionResponse, int]] = []
        failures: list[PolicyError] = []

        async def one(j: int) -> None:
            seed = row_seed(cfg.seed or 0, cfg.temperature, samples, j, "") % SEED_MODULUS
            try:
                answer = await self._server.call("POST", "completions", request(1, seed), CompletionResponse)
            except PolicyError as exc:  # raised once below, as itself, not wrapped in a group
                failures.append(exc)
                return
            answers.append((answer, j))

        async with anyio.create_task_group() as tg:
            for j in range(samples):
                tg.start_soon(one, j)
        if failures:
            raise failures[0]
        answers.sort(key=lambda pair: pair[1])
        return self._candidates(answers, ctxs, samples)

    def _candidates(
        self, answers: Sequence[tuple[CompletionResponse, int]], ctxs: Sequence[PromptContext], samples: int
    ) -> list[list[TacticCandidate]]:
        """Choices grouped by prompt, de-duplicated keeping the best log-prob.

        ``answers`` pairs each answer with its first sample's number: one answer of
        ``samples`` per prompt (prompt ``index // samples``), or one answer per sample.
        """
        count = len(ctxs)
        best: list[dict[str, tuple[float, str]]] = [{} for _ in range(count)]
        per_answer = samples if len(answers) == 1 else 1
        choices = [choice for answer, _ in answers for choice in answer.choices]
        for choice in choices:
            if not 0 <= choice.index < count * per_answer:
                raise PolicyServerError(
                    f"the policy server at {self.base_url} answered choice {choice.index} for {count} prompt(s) × "
                    f"{per_answer} sample(s): policy.base_url must be a vLLM or SGLang completions API"
                )
            if choice.logprobs is None:
                raise PolicyServerError(
                    f"the policy server at {self.base_url} sent no logprobs: candidates are ranked by them, so "
                    "serve the model with vLLM or SGLang (they honour `logprobs`)"
                )
            log_prob = math.fsum(lp for lp in choice.logprobs.token_logprobs if lp is not None)
            ctx = ctxs[choice.index // per_answer]
            # a server that ignores `stop` still yields the same candidate
            text = _cut_at_stop(choice.text, self.preset.stop)
            tactic = parse_candidate(self.preset, text, ctx)
            group = best[choice.index // per_answer]
            if tactic and log_prob > group.get(tactic, (float("-inf"), ""))[0]:
                group[tactic] = (log_prob, text)
        return [
            [
                TacticCandidate(tactic=t, log_prob=lp, answer=a)
                for t, (lp, a) in sorted(group.items(), key=lambda kv: (-kv[1][0], kv[0]))
            ]
            for group in best
        ]

    async def encode(self, states: Sequence[str]) -> torch.Tensor:
        """Always refused: a served model gives no embeddings (PolicyEmbeddingsUnavailable)."""
        raise PolicyEmbeddingsUnavailable(
            f"the policy served at {self.base_url} gives no state embeddings: the energy head needs "
            'policy.backend = "local" (or a head trained on the hashing encoder)'
        )


def _pick_model(served: ModelList, wanted: str | None, base_url: str) -> ServedModel:
    """``wanted`` among the served models; the only one when ``wanted`` is None."""
    names = ", ".join(m.id for m in served.data) or "none"
    if wanted is None:
        if len(served.data) == 1:
            return served.data[0]
        if not served.data:
            raise PolicyModelNotServed(f"the policy server at {base_url} serves no model: check its log")
        raise PolicyModelNotServed(
            f"the policy server at {base_url} serves several models ({names}): set policy.model to one of them"
        )
    for model in served.data:
        if model.id == wanted:
            return model
    raise PolicyModelNotServed(
        f"policy.model {wanted!r} is not served at {base_url} (served: {names}): set policy.model to one of them "
        "(vLLM names it by --served-model-name)"
    )
