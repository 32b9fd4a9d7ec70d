"""The agent's only tools: an allow-listed view of burnqed's MCP servers, with budgets.

The toolbox connects to the servers as an MCP client over stdio (``burnqed serve NAME``
with the daemon's config file), keeps only the allow-listed tools, and mediates every call:
it enforces the session's tool-call budget and per-tool limits, warns on near-duplicate
calls, and logs each call to the session's JSONL log. Budget refusals are tool results
with ``is_error`` (the agent can read them), never exceptions inside the agent loop.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict

from burnqed.coordination.config import CoordinatorConfig
from burnqed.coordination.log import SessionLog

__all__ = ["ToolResult", "ToolSpec", "Toolbox", "ToolboxError", "server_parameters"]

log = logging.getLogger(__name__)


class ToolboxError(RuntimeError):
    """The toolbox could not reach a server or a tool it needs."""


class ToolSpec(BaseModel):
    """A tool the agent may call, as its server describes it."""

    model_config = ConfigDict(frozen=True)

    name: str
    server: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False


class ToolResult(BaseModel):
    """The outcome of one tool call, as the agent sees it."""

    model_config = ConfigDict(frozen=True)

    name: str
    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    refused: bool = False
    duration_ms: float = 0.0


def server_parameters(server: str, config_path: Path | None, cwd: Path | None = None) -> Any:
    """The stdio parameters that start ``burnqed serve SERVER`` with the given config."""
    from mcp.client.stdio import StdioServerParameters

    args = ["-m", "burnqed.cli"]
    if config_path is not None:
        args += ["--config", str(config_path)]
    # whatever the config file says: the agent's servers never show held-out results and
    # never start infrastructure (the daemon's snapshot says so too; this holds if it is edited)
    args += ["--set", "tools.show_held_out=false", "--set", "tools.allow_cluster_jobs=false"]
    args += ["serve", server]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(cwd) if cwd else None)


@asynccontextmanager
async def _opened(streams: Any) -> AsyncIterator[Any]:
    """An already-open stdio transport, as the ``Transport`` a ``Client`` takes (its owner closes it)."""
    yield streams


def _normalise(value: Any) -> Any:
    """Arguments up to case and whitespace, so near-identical calls compare equal."""
    if isinstance(value, str):
        return " ".join(value.lower().split())
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    return value


def _digest(name: str, arguments: dict[str, Any]) -> str:
    normal = json.dumps(_normalise(arguments), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(f"{name}:{normal}".encode()).hexdigest()[:16]


def _result_text(result: Any) -> str:
    parts = [getattr(block, "text", None) or f"[{getattr(block, 'type', 'content')}]" for block in result.content]
    return "\n".join(parts)


class Toolbox:
    """Allow-listed MCP tools with budgets, duplicate warnings and call logging."""

    def __init__(
        self,
        config: CoordinatorConfig,
        session_log: SessionLog,
        *,
        clients: dict[str, Any] | None = None,
        config_path: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        self._config = config
        self._log = session_log
        self._config_path = config_path
        self._cwd = cwd
        self._clients: dict[str, Any] = dict(clients or {})
        self._owned = clients is None
        self._stack = AsyncExitStack()
        self._specs: dict[str, ToolSpec] = {}
        self._calls: Counter[str] = Counter()
        self._recent: deque[str] = deque(maxlen=config.duplicate_window)
        self.total_calls = 0
        self.refused_calls = 0

    async def __aenter__(self) -> Self:
        from mcp import Client
        from mcp.client.stdio import stdio_client

        try:
            if self._owned:
                # every server is spawned before the first handshake: their start-ups (imports,
                # a Lean pool) overlap instead of adding up, one after another
                transports = [
                    await self._stack.enter_async_context(
                        stdio_client(server_parameters(server, self._config_path, self._cwd))
                    )
                    for server in self._config.servers
                ]
                for server, streams in zip(self._config.servers, transports, strict=True):
                    self._clients[server] = await self._stack.enter_async_context(Client(_opened(streams)))
            await self._discover()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _discover(self) -> None:
        allowed = set(self._config.allowed_tools)
        for server, client in self._clients.items():
            listing = await client.list_tools()
            for tool in listing.tools:
                if tool.name not in allowed:
                    continue
                annotations = getattr(tool, "annotations", None)
                self._specs[tool.name] = ToolSpec(
                    name=tool.name,
                    server=server,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema),
                    read_only=bool(getattr(annotations, "read_only_hint", False)),
                )
        missing = allowed - set(self._specs)
        if missing:
            log.warning("allow-listed tools not offered by any server: %s", ", ".join(sorted(missing)))

    @property
    def specs(self) -> list[ToolSpec]:
        """The tools the agent may call, in a stable order."""
        return [self._specs[name] for name in sorted(self._specs)]

    @property
    def exhausted(self) -> bool:
        """True once the session's tool-call budget is spent."""
        return self.total_calls >= self._config.max_tool_calls

    def _refusal(self, name: str, text: str) -> ToolResult:
        self.refused_calls += 1
        return ToolResult(name=name, text=text, is_error=True, refused=True)

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Call an allow-listed tool, within the budgets; every call is logged."""
        arguments = dict(arguments or {})
        spec = self._specs.get(name)
        if spec is None:
            result = self._refusal(name, f"tool {name!r} is not available to the coordinator")
        elif self.exhausted:
            result = self._refusal(name, f"tool-call budget of {self._config.max_tool_calls} is spent; end the session")
        elif self._calls[name] >= self._config.per_tool_limits.get(name, sys.maxsize):
            limit = self._config.per_tool_limits[name]
            result = self._refusal(name, f"limit of {limit} calls to {name} per session reached")
        else:
            result = await self._invoke(spec, arguments)
        self._log.event(
            "tool_call",
            tool=name,
            arguments=arguments,
            ok=not result.is_error,
            refused=result.refused,
            duration_ms=round(result.duration_ms, 2),
            result=result.text[:2000],
        )
        return result

    async def _invoke(self, spec: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        digest = _digest(spec.name, arguments)
        duplicate = digest in self._recent and not spec.name.startswith(("job_status", "list_"))
        self._recent.append(digest)
        self._calls[spec.name] += 1
        self.total_calls += 1
        start = time.perf_counter()
        raw = await self._clients[spec.server].call_tool(spec.name, arguments)
        elapsed = (time.perf_counter() - start) * 1000
        text = _result_text(raw)
        if duplicate:
            text = f"warning: this repeats a recent {spec.name} call with the same arguments; vary or move on.\n{text}"
        structured = raw.structured_content if isinstance(raw.structured_content, dict) else None
        return ToolResult(
            name=spec.name,
            text=text,
            structured=structured,
            is_error=bool(raw.is_error),
            duration_ms=elapsed,
        )

    def usage(self) -> dict[str, int]:
        """Calls per tool in this session."""
        return dict(self._calls)

    def names(self) -> Sequence[str]:
        """Names of the allow-listed tools offered."""
        return sorted(self._specs)
