"""Serving an MCP server over streamable HTTP, behind bearer tokens.

One HTTP server serves many clients: the server's lifespan (pool, job manager, handle
registry) is entered once and shared by every session, so a job or a proof handle outlives
the client that started it and a second client sees it. Every request must carry
``Authorization: Bearer <token>`` (compared in constant time). The tokens come from a file
(one per line, optionally named per client: per-client limits apply to that name) or from an
environment variable. Serving without one is refused unless the server is bound to a
loopback address and the operator said so explicitly (``--no-auth``).

A token is one client: its name is the client every cap and owner check uses (handles,
jobs), a session can only be used with the token that opened it, and one token holds at
most ToolsConfig.http_max_sessions_per_client sessions, so no token can fill the server's
session table and lock the others out. Sessions their clients abandoned (no DELETE) are
reclaimed by burnqed.tools.common.sessions.SessionGate: at a cap, the least recently used idle
session is ended to make room.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from burnqed.env import env
from burnqed.tools.common.calllog import CLIENT_HEADER, ToolCallLog
from burnqed.tools.common.config import ToolsConfig
from burnqed.tools.common.sessions import SessionGate

__all__ = [
    "CLIENT_HEADER",
    "BearerAuth",
    "HttpServeError",
    "check_auth",
    "is_loopback",
    "resolve_tokens",
    "serve_http",
]



class HttpServeError(Exception):
    """The HTTP server cannot start as asked (no token, unreadable token file, ...)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_tokens(config: ToolsConfig, token_file: Path | None = None) -> dict[str, str]:
    """Bearer tokens → client names. From ``token_file`` (else ToolsConfig.http_token_file):
    one token per line, ``TOKEN`` or ``NAME TOKEN`` (``#`` starts a comment); else the
    environment variable ToolsConfig.http_token_env (client ``default``). Empty when neither."""
    path = token_file or config.http_token_file
    if path is None:
        token = (env(config.http_token_env) or "").strip()
        return {token: "default"} if token else {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise HttpServeError(f"cannot read the token file {path}: {exc.strerror or exc}") from exc
    tokens: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        if len(parts) > 2:
            raise HttpServeError(f"{path}:{number}: expected 'TOKEN' or 'NAME TOKEN'")
        name, token = (parts[0], parts[1]) if len(parts) == 2 else (f"client{len(tokens) + 1}", parts[0])
        tokens[token] = name
    if not tokens:
        raise HttpServeError(f"the token file {path} holds no token")
    return tokens


class BearerAuth:
    """ASGI middleware: HTTP requests without a known bearer token get 401; the others carry
    their token's client name in the ``x-burnqed-client`` header and as the request's
    authenticated user (the SDK binds each session to it)."""

    def __init__(self, app: ASGIApp, tokens: dict[str, str]) -> None:
        self.app = app
        self._tokens = [(f"Bearer {token}".encode(), name.encode()) for token, name in tokens.items()]

    def _client(self, given: bytes) -> bytes | None:
        found = None
        for expected, name in self._tokens:  # every comparison runs: no early exit to time
            if hmac.compare_digest(given, expected):
                found = name
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan events carry no headers
            await self.app(scope, receive, send)
            return
        header = CLIENT_HEADER.encode()
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != header]
        client = self._client(dict(headers).get(b"authorization", b""))
        if client is not None:
            from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
            from mcp.server.auth.provider import AccessToken

            name = client.decode()
            # the token itself never leaves this middleware: the user carries its name only
            user = AuthenticatedUser(AccessToken(token=f"<{name}>", client_id=name, scopes=[]))
            await self.app({**scope, "headers": [*headers, (header, client)], "user": user}, receive, send)
            return
        await _json_response(
            send, 401, {"error": "unauthorized", "message": "send Authorization: Bearer <token>"},
            [(b"www-authenticate", b"Bearer")],
        )


async def _json_response(
    send: Send, status: int, body: dict[str, str], headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), *(headers or [])],
    })
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


def check_auth(config: ToolsConfig, host: str, tokens: dict[str, str], allow_no_auth: bool) -> None:
    """Refuse (HttpServeError) to serve without a token unless on loopback with --no-auth."""
    if tokens or (allow_no_auth and is_loopback(host)):
        return
    how = "pass --no-auth" if is_loopback(host) else "bind to 127.0.0.1 and pass --no-auth"
    raise HttpServeError(
        f"refusing to serve over HTTP without a token: set ${config.http_token_env} or --token-file "
        f"(or {how} to serve this machine only)"
    )


async def serve_http(server: Any, config: ToolsConfig, *, host: str, port: int, tokens: dict[str, str],
                     allow_no_auth: bool = False, on_ready: Any = None, call_log: Path | None = None) -> None:
    """Serve ``server`` (an MCPServer) over streamable HTTP at ``http://host:port/mcp``;
    ``on_ready()`` is called once the socket is bound and the app started (not before: a port
    in use is an HttpServeError, and nothing claims to serve)."""
    import socket

    import anyio
    import uvicorn

    check_auth(config, host, tokens, allow_no_auth)
    app: ASGIApp = server.streamable_http_app(
        host=host,
        session_idle_timeout=config.http_session_idle_timeout_s,
        max_sessions=config.http_max_sessions,
    )
    log = ToolCallLog(call_log) if call_log is not None else None
    server_name = str(server.name).removeprefix("burnqed-")

    def refused(client: str, rule: str, message: str) -> None:
        if log is not None:
            try:
                log.record(server_name, "initialize", {}, False, 0.0, f"refused [{rule}]: {message}", client=client)
            except OSError:
                pass  # the refusal itself stands; only its record is lost

    app = SessionGate(
        app, server.session_manager,
        max_sessions=config.http_max_sessions,
        max_sessions_per_client=config.http_max_sessions_per_client,
        requests_per_client=config.http_requests_per_client,
        on_refused=refused,
    )
    if tokens:
        app = BearerAuth(app, tokens)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise HttpServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    watch = _StartupWatch(app)
    uv = uvicorn.Server(uvicorn.Config(watch, host=host, port=port, log_level="warning", lifespan="on"))
    # the start-up failure is raised below, as stdio raises it (one line, exit 2): not uvicorn's three lines
    logging.getLogger("uvicorn.error").addFilter(_quiet_startup_failure)

    async def announce() -> None:
        while not uv.started:
            if uv.should_exit:
                return
            await anyio.sleep(0.02)
        if on_ready is not None:
            on_ready()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(announce)
            try:
                await uv.serve(sockets=[sock])
            except SystemExit:
                if watch.error is None:  # uvicorn exits on a failed start-up; the error itself is ours to raise
                    raise
            tg.cancel_scope.cancel()
    finally:
        sock.close()
    if watch.error is not None:
        raise watch.error


class _StartupWatch:
    """ASGI wrapper: an error of the server's lifespan (a held run directory, a Lean backend
    that cannot start) is kept to be raised by serve_http, instead of printed by uvicorn as a
    traceback; everything else passes through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.error: BaseException | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def quiet(message: Any) -> None:
            if message.get("type") in ("lifespan.startup.failed", "lifespan.shutdown.failed"):
                message = {**message, "message": ""}  # the traceback text: the error is raised instead
            await send(message)

        try:
            await self.app(scope, receive, quiet)
        except Exception as exc:  # noqa: BLE001 - kept, and raised by serve_http once uvicorn stopped
            self.error = exc


def _quiet_startup_failure(record: logging.LogRecord) -> bool:
    """Drop uvicorn's own 'Application startup failed' line (serve_http raises the cause)."""
    return "startup failed" not in record.getMessage()
