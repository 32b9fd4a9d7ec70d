"""What every burnqed MCP server shares: construction, the call log, typed results.

``new_server`` builds an ``MCPServer`` with the tool-call log installed as middleware (so
every ``tools/call`` lands in logs/tool_calls.jsonl, whatever its outcome) and inside it the
argument check (an argument a tool's schema does not name is refused, not ignored), the
SDK's logging kept quiet on stderr, and the server's lifespan. ``tool_result`` turns a
pydantic output model into a result with structured content plus a short text summary.
``apply_error_contract`` maps lower-layer errors to tool errors and keeps the server's own
paths out of every error text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from burnqed.rundir import RunDir
from burnqed.tools.calllog import ToolCallLog
from burnqed.tools.config import ToolsRunConfig
from burnqed.tools.errors import REFUSED_PREFIX, as_tool_error
from burnqed.tools.run_files import jobs_in, tool_call_log

__all__ = [
    "DESTRUCTIVE",
    "MUTATING",
    "READ_ONLY",
    "call_log_path",
    "apply_error_contract",
    "client_key",
    "client_of",
    "scrub_paths",
    "exactly_one_of",
    "not_both",
    "jobs_dir",
    "lifespan_state",
    "new_server",
    "tool_result",
]

T = TypeVar("T")

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


def new_server(
    name: str,
    config: ToolsRunConfig,
    lifespan: Callable[[MCPServer[Any]], AbstractAsyncContextManager[Any]] | None,
    instructions: str,
) -> MCPServer[Any]:
    """An MCPServer named ``burnqed-<name>`` with the call log installed."""
    level = config.tools.server_log_level.upper()
    server: MCPServer[Any] = MCPServer(
        f"burnqed-{name}",
        instructions=instructions,
        version=_version(),
        lifespan=lifespan,
        log_level=cast(_LogLevel, level if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "WARNING"),
        warn_on_duplicate_tools=True,
    )
    server.middleware.append(ToolCallLog(call_log_path(config)).middleware(name))
    server.middleware.append(_refuse_unknown_arguments(server))
    return server


def _refuse_unknown_arguments(server: MCPServer[Any]) -> Any:
    """A middleware that refuses a ``tools/call`` naming an argument its tool's schema does not
    have (the schemas say ``additionalProperties: false``; the SDK alone would drop it silently)."""

    async def check(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            params = ctx.params or {}
            tool = server._tool_manager.get_tool(str(params.get("name", "")))  # noqa: SLF001
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


def _argument_problem(tool: Any, arguments: dict[str, Any]) -> str | None:
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


def apply_error_contract(server: MCPServer[Any], config: ToolsRunConfig | None = None) -> None:
    """Wrap every tool of ``server`` so that a lower-layer error leaving it becomes the tool
    error of burnqed.tools.errors' contract table, with the server's paths taken out of its
    text (call after the tools are declared); every schema refuses unknown arguments."""
    roots = _private_roots(config) if config is not None else []
    # the SDK calls Tool.fn with validated arguments; wrapping it keeps the signature it read
    for tool in server._tool_manager.list_tools():  # noqa: SLF001
        tool.fn = _contracted(tool.fn, roots)
        tool.parameters = {**tool.parameters, "additionalProperties": False}


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


def exactly_one_of(server: MCPServer[Any], tool: str, *fields: str) -> None:
    """Say in ``tool``'s input schema that exactly one of ``fields`` must be given (a
    ``oneOf`` of ``required``), so a client sees the rule before it calls, not only in errors."""
    # the SDK derives the schema from the signature and has no public way to add a oneOf
    registered = server._tool_manager.get_tool(tool)  # noqa: SLF001
    if registered is None:
        raise KeyError(f"no tool {tool!r} on {server.name}")
    # a branch counts only with a value (null is "not given", as the server reads it)
    registered.parameters = {
        **registered.parameters,
        "oneOf": [{"required": [f], "properties": {f: {"not": {"type": "null"}}}} for f in fields],
    }


def not_both(server: MCPServer[Any], tool: str, *fields: str) -> None:
    """Say in ``tool``'s input schema that at most one of ``fields`` may be given (with a value)."""
    registered = server._tool_manager.get_tool(tool)  # noqa: SLF001
    if registered is None:
        raise KeyError(f"no tool {tool!r} on {server.name}")
    registered.parameters = {
        **registered.parameters,
        "not": {"required": list(fields), "properties": {f: {"not": {"type": "null"}} for f in fields}},
    }


def client_key(ctx: Context[Any, Any]) -> str:
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


def lifespan_state(ctx: Context[Any, Any], kind: type[T]) -> T:
    """The server's lifespan object, checked to be a ``kind``."""
    state = ctx.request_context.lifespan_context
    if not isinstance(state, kind):
        raise TypeError(f"lifespan state is {type(state).__name__}, expected {kind.__name__}")
    return state


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
