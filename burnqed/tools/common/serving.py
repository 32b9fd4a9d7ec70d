"""What every burnqed MCP server shares: construction, the call log, typed results.

A server's tools are declared on a ``Toolset`` with ``@toolset.tool(...)``, which wraps each
one where it is declared: the error contract (a lower-layer error becomes the tool error of
burnqed.tools.common.errors' table, the server's own paths kept out of its text) and a schema
that refuses unknown arguments (plus ``exactly_one_of`` / ``not_both`` rules a client sees
before it calls). It builds the SDK's public ``Tool`` and hands the list to
``MCPServer(tools=...)``: nothing reaches into the SDK's tool manager. ``new_server`` builds
an ``MCPServer`` with the tool-call log installed as middleware (so every ``tools/call``
lands in logs/tool_calls.jsonl, whatever its outcome) and inside it the argument check, the
SDK's logging kept quiet on stderr, and the server's typed lifespan. ``tool_result`` turns
a pydantic output model into a result with structured content plus a short text summary.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from burnqed.rundir import RunDir
from burnqed.tools.common.calllog import ToolCallLog
from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.common.errors import REFUSED_PREFIX, as_tool_error
from burnqed.tools.common.run_files import jobs_in, tool_call_log

__all__ = [
    "DESTRUCTIVE",
    "MUTATING",
    "READ_ONLY",
    "Toolset",
    "call_log_path",
    "client_key",
    "client_of",
    "scrub_paths",
    "jobs_dir",
    "new_server",
    "tool_result",
]

S = TypeVar("S")
F = TypeVar("F", bound=Callable[..., Any])

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MUTATING = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

_LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def call_log_path(config: ToolsRunConfig) -> Path:
    """Where the tool-call log is written (ToolsConfig.call_log, else <logs_dir>/tool_calls.jsonl)."""
    return config.tools.call_log or tool_call_log(config.paths.logs_dir)


def jobs_dir(config: ToolsRunConfig) -> Path:
    """Where job records live (ToolsConfig.jobs_dir, else <run_dir>/jobs)."""
    return config.tools.jobs_dir or jobs_in(RunDir(config.paths.run_dir))


class Toolset(Generic[S]):
    """The tools of one server (whose lifespan state is an ``S``), each wrapped where it is declared."""

    def __init__(self, config: ToolsRunConfig | None = None) -> None:
        self._roots = _private_roots(config) if config is not None else []
        self._tools: dict[str, Tool] = {}

    def tool(
        self,
        *,
        title: str,
        annotations: ToolAnnotations,
        exactly_one_of: tuple[str, ...] = (),
        not_both: tuple[str, ...] = (),
    ) -> Callable[[F], F]:
        """Declare an async tool: the SDK's ``Tool`` of the function wrapped in the error
        contract; its schema refuses unknown arguments and says that exactly one (or at most
        one) of the named arguments is given with a value (null is "not given", as the
        server reads it)."""

        def declare(fn: F) -> F:
            # the SDK reads the signature through functools.wraps' __wrapped__, so the schema is fn's
            tool = Tool.from_function(_contracted(fn, self._roots), title=title, annotations=annotations)
            schema: dict[str, Any] = {**tool.parameters, "additionalProperties": False}
            if exactly_one_of:
                schema["oneOf"] = [
                    {"required": [f], "properties": {f: {"not": {"type": "null"}}}} for f in exactly_one_of
                ]
            if not_both:
                schema["not"] = {
                    "required": list(not_both),
                    "properties": {f: {"not": {"type": "null"}} for f in not_both},
                }
            tool.parameters = schema
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} declared twice")
            self._tools[tool.name] = tool
            return fn

        return declare

    def get(self, name: str) -> Tool | None:
        """The declared tool called ``name``, if any."""
        return self._tools.get(name)

    def tools(self) -> list[Tool]:
        """Every declared tool, in declaration order."""
        return list(self._tools.values())


def new_server(
    name: str,
    config: ToolsRunConfig,
    lifespan: Callable[[MCPServer[S]], AbstractAsyncContextManager[S]],
    instructions: str,
    toolset: Toolset[S],
) -> MCPServer[S]:
    """An MCPServer named ``burnqed-<name>`` serving ``toolset``, with the call log installed."""
    level = config.tools.server_log_level.upper()
    server: MCPServer[S] = MCPServer(
        f"burnqed-{name}",
        instructions=instructions,
        version=_version(),
        lifespan=lifespan,
        log_level=cast(_LogLevel, level if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "WARNING"),
        warn_on_duplicate_tools=True,
        tools=toolset.tools(),
    )
    server.middleware.append(ToolCallLog(call_log_path(config)).middleware(name))
    server.middleware.append(_refuse_unknown_arguments(toolset))
    return server


def _refuse_unknown_arguments(toolset: Toolset[Any]) -> Any:
    """A middleware that refuses a ``tools/call`` naming an argument its tool's schema does not
    have (the schemas say ``additionalProperties: false``; the SDK alone would drop it silently)."""

    async def check(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            params = ctx.params or {}
            tool = toolset.get(str(params.get("name", "")))
            arguments = params.get("arguments")
            if tool is not None and isinstance(arguments, Mapping):
                known = set(tool.parameters.get("properties", {}))
                unknown = sorted(str(k) for k in arguments if k not in known)
                if unknown:
                    shown = ", ".join(repr(k[:40]) for k in unknown[:5])
                    return _refusal(f"{REFUSED_PREFIX}unknown_argument]: {tool.name} takes no argument {shown}")
                problem = _argument_problem(tool, dict(arguments))
                if problem is not None:
                    return _refusal(f"invalid input: {tool.name}: {problem}")  # a mistake to correct, not a refusal
        return await call_next(ctx)

    return check


def _refusal(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _argument_problem(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """What is wrong with ``arguments`` for ``tool``'s schema, in the tool's own words (argument
    names and what each needs), or None. The SDK would say it with its internal model's name
    (``verify_proofArguments``) and a pydantic URL."""
    from pydantic import ValidationError

    try:
        tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        parts = []
        for error in exc.errors(include_url=False)[:3]:
            where = ".".join(str(x) for x in error.get("loc", ())) or "arguments"
            parts.append(f"{where}: {error.get('msg')}")
        return "; ".join(parts)
    return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("burnqed")
    except PackageNotFoundError:
        return "0"


def _private_roots(config: ToolsRunConfig) -> list[tuple[str, str]]:
    """The server's directories and what an error text shows instead, longest first."""
    named = [
        (jobs_dir(config), "<jobs>"),
        (config.paths.run_dir, "<run_dir>"),
        (config.paths.logs_dir, "<logs>"),
        (config.paths.home, "<home>"),
        (Path(config.blueprint.path).parent, "<blueprint dir>"),
        (Path.cwd(), "<cwd>"),
    ]
    roots: list[tuple[str, str]] = []
    for path, label in named:
        for form in {str(path), str(Path(path).resolve())}:
            if form not in ("", ".", "/"):
                roots.append((form, label))
    return sorted(roots, key=lambda r: -len(r[0]))


_ABSOLUTE_PATH = re.compile(r"(?<![\w.<])/(?:[\w.+-]+/)+([\w.+-]*)")


def scrub_paths(text: str, roots: Iterable[tuple[str, str]]) -> str:
    """``text`` with the server's directories named by role and any other absolute path cut to its last part."""
    for root, label in roots:
        text = text.replace(root, label)
    return _ABSOLUTE_PATH.sub(lambda m: f"<path>/{m.group(1)}", text)


def _contracted(fn: Callable[..., Any], roots: list[tuple[str, str]]) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except Exception as exc:
            mapped = as_tool_error(exc)
            if mapped is None:
                raise
            text = scrub_paths(str(mapped), roots)
            if text != str(mapped):
                mapped.args = (text,)
            if mapped is exc:
                raise
            raise mapped from exc

    return call


def client_key(ctx: Context[S]) -> str:
    """Who is calling: over HTTP the client name of its bearer token (set by BearerAuth,
    never by the client; every session of one token is one client, so caps and ownership
    hold per token), ``local`` over HTTP without a token; ``stdio`` for a stdio server,
    which has exactly one client."""
    return client_of(ctx.headers)


def client_of(headers: Mapping[str, str] | None) -> str:
    """The client name of a request's headers (see client_key)."""
    if headers is None:
        return "stdio"
    return headers.get("x-burnqed-client") or "local"


def tool_result(model: BaseModel, summary: str | None = None) -> CallToolResult:
    """A tool result: ``model`` as structured content, ``summary`` (or the model's own) as text."""
    text = summary if summary is not None else _summary(model)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json", by_alias=True),
    )


def _summary(model: BaseModel) -> str:
    describe = getattr(model, "summary", None)
    if callable(describe):
        return str(describe())
    return model.model_dump_json(exclude_none=True)
