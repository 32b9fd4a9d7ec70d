"""The tool-call log: one JSON line per MCP tool call, appended to logs/tool_calls.jsonl.

Every server installs ``ToolCallLog.middleware(server)``, so every ``tools/call`` —
including calls rejected by argument validation — is recorded in one place with its
time, server, tool, the client (over HTTP the *name* of its bearer token, never the token),
a SHA-256 digest of the canonical JSON arguments and each argument's size, ok, duration,
and for a failed call only its kind (``refused [rule]``, ``policy [rule]``, ``error``), the
rule the trust boundary refused it by, and the digest and size of the error text. No text
the client sent, nor any error text that could repeat it, is written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ToolCallLog", "ToolCallRecord", "argument_digest", "error_kind", "redact"]

log = logging.getLogger(__name__)

# the header BearerAuth sets to the client name of a request's token (burnqed.tools.common.http)
CLIENT_HEADER = "x-burnqed-client"

# the SDK prefixes a tool error's text with "Error executing tool NAME: "
_REFUSED = re.compile(r"^(?:Error executing tool [\w-]+: )?refused \[([a-z_]+)\]")
_POLICY = re.compile(r"denied by the tactic policy \(rule: ([^)]{1,40})\)")


def error_kind(error: str) -> tuple[str, str | None]:
    """(kind, refusal rule) of an error text: ``refused [rule]`` for the trust boundary's
    refusals, ``policy [rule]`` for the tactic policy's, else ``error`` (no rule)."""
    match = _REFUSED.match(error)
    if match:
        return f"refused [{match.group(1)}]", match.group(1)
    match = _POLICY.search(error)
    if match:
        rule = re.sub(r"[^\w.#-]", "_", match.group(1))
        return f"policy [{rule}]", f"policy:{rule}"
    return "error", None


def redact(error: str, arguments: Mapping[str, Any] | None) -> str:
    """An error text with every argument text it repeats replaced by the argument's name
    and size: the log says what failed, never what was sent."""
    texts: list[tuple[str, str]] = []

    def collect(name: str, value: Any) -> None:
        if isinstance(value, str) and value:
            texts.append((name, value))
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                collect(f"{name}[{i}]", item)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                collect(f"{name}.{key}", item)

    for name, value in (arguments or {}).items():
        collect(str(name), value)
    # longest first, so a text that contains another is replaced whole
    for name, text in sorted(texts, key=lambda t: -len(t[1])):
        if len(text) >= 3 or text == error:
            error = error.replace(text, f"<{name}: {len(text)} chars>")
    return error


def argument_digest(arguments: Mapping[str, Any] | None) -> str:
    """SHA-256 of the canonical JSON of the arguments (sorted keys, compact, UTF-8)."""
    canonical = json.dumps(
        dict(arguments or {}), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ToolCallRecord(BaseModel):
    """One logged tool call."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    time: datetime
    server: str
    tool: str
    args_sha256: str
    ok: bool
    duration_ms: float = Field(ge=0)
    error: str | None = Field(default=None, description="kind of failure only: refused [rule], policy [rule], error")
    arg_sizes: dict[str, int] = Field(default_factory=dict, description="argument names and their JSON sizes")
    client: str | None = Field(default=None, description="HTTP: the bearer token's name; stdio: None")
    refusal: str | None = Field(default=None, description="the trust-boundary rule that refused the call")
    error_sha256: str | None = None
    error_chars: int | None = None


class ToolCallLog:
    """Append-only JSONL log of tool calls (one ``write`` per line, so lines never interleave)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._dir_ready = False

    def append(self, record: ToolCallRecord) -> None:
        """Append one record as a JSON line."""
        if not self._dir_ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._dir_ready = True
        line = record.model_dump_json() + "\n"
        # O_APPEND makes each single write atomic with respect to other appenders
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)

    def record(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any] | None,
        ok: bool,
        duration_ms: float,
        error: str | None,
        client: str | None = None,
    ) -> ToolCallRecord:
        """Build and append a record; returns it."""
        kind, rule = error_kind(error) if error is not None else (None, None)
        sizes: dict[str, int] = {}
        for key, value in list((arguments or {}).items())[:64]:
            name = key if len(key) <= 64 and key.isidentifier() else f"<name {hashlib.sha256(key.encode()).hexdigest()[:12]}>"
            sizes[name] = len(json.dumps(value, ensure_ascii=False, default=str))
        rec = ToolCallRecord(
            time=datetime.now(UTC),
            server=server,
            tool=tool if len(tool) <= 64 and tool.isidentifier() else "<invalid tool name>",
            args_sha256=argument_digest(arguments),
            ok=ok,
            duration_ms=max(0.0, duration_ms),
            error=kind,
            arg_sizes=sizes,
            client=client,
            refusal=rule,
            error_sha256=hashlib.sha256(error.encode("utf-8", "replace")).hexdigest() if error is not None else None,
            error_chars=len(error) if error is not None else None,
        )
        self.append(rec)
        return rec

    def read(self) -> Iterator[ToolCallRecord]:
        """The records in order; malformed lines are skipped with a warning."""
        try:
            fh = self.path.open(encoding="utf-8")
        except FileNotFoundError:
            return
        with fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield ToolCallRecord.model_validate_json(line)
                except ValidationError:
                    log.warning("%s:%d: malformed tool-call record skipped", self.path, lineno)

    def middleware(self, server: str) -> Any:
        """An MCP server middleware that records every ``tools/call`` of ``server``."""

        async def record_tool_calls(ctx: Any, call_next: Any) -> Any:
            if ctx.method != "tools/call":
                return await call_next(ctx)
            params = ctx.params or {}
            tool = str(params.get("name", "?"))
            headers = getattr(getattr(ctx, "request", None), "headers", None)
            client = headers.get(CLIENT_HEADER) if headers is not None else None
            arguments = params.get("arguments")
            start = time.perf_counter()
            ok, error = False, None
            try:
                result = await call_next(ctx)
                ok, error = _outcome(result)
                return result
            except BaseException as exc:
                error = f"{type(exc).__name__}: {exc}"
                raise
            finally:
                try:
                    self.record(
                        server,
                        tool,
                        arguments if isinstance(arguments, Mapping) else {},
                        ok,
                        (time.perf_counter() - start) * 1000,
                        error,
                        client=client,
                    )
                except OSError:
                    log.exception("cannot append to the tool-call log %s", self.path)

        return record_tool_calls


def _outcome(result: Any) -> tuple[bool, str | None]:
    """(ok, error text) of a tools/call result, as a dict or a model."""
    if isinstance(result, BaseModel):
        result = result.model_dump(by_alias=True, mode="json")
    if not isinstance(result, Mapping):
        return True, None
    if not result.get("isError", result.get("is_error", False)):
        return True, None
    texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, Mapping)]
    return False, " ".join(t for t in texts if t) or "error"
