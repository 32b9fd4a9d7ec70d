"""Serving an MCP server over streamable HTTP, behind a bearer token.

One HTTP server serves many clients: the server's lifespan (pool, job manager, handle
registry) is entered once and shared by every session, so a job or a proof handle outlives
the client that started it and a second client sees it. Every request must carry
``Authorization: Bearer <token>`` (compared in constant time); the token comes from an
environment variable or a file. Serving without one is refused unless the server is bound
to a loopback address and the operator said so explicitly (``--no-auth``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from burnqed.tools.config import ToolsConfig

__all__ = ["BearerAuth", "HttpServeError", "check_auth", "is_loopback", "resolve_token", "serve_http"]


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


def resolve_token(config: ToolsConfig, token_file: Path | None = None) -> str | None:
    """The bearer token: ``token_file`` (else ToolsConfig.http_token_file), else the
    environment variable ToolsConfig.http_token_env; None when neither is set."""
    path = token_file or config.http_token_file
    if path is not None:
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise HttpServeError(f"cannot read the token file {path}: {exc.strerror or exc}") from exc
        if not token:
            raise HttpServeError(f"the token file {path} is empty")
        return token
    token = os.environ.get(config.http_token_env, "").strip()
    return token or None


class BearerAuth:
    """ASGI middleware: HTTP requests without the right bearer token get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan events carry no headers
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "message": "send Authorization: Bearer <token>"}).encode()
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
        })
        await send({"type": "http.response.body", "body": body})


def check_auth(config: ToolsConfig, host: str, token: str | None, allow_no_auth: bool) -> None:
    """Refuse (HttpServeError) to serve without a token unless on loopback with --no-auth."""
    if token is not None or (allow_no_auth and is_loopback(host)):
        return
    how = "pass --no-auth" if is_loopback(host) else "bind to 127.0.0.1 and pass --no-auth"
    raise HttpServeError(
        f"refusing to serve over HTTP without a token: set ${config.http_token_env} or --token-file "
        f"(or {how} to serve this machine only)"
    )


async def serve_http(server: Any, config: ToolsConfig, *, host: str, port: int, token: str | None,
                     allow_no_auth: bool = False) -> None:
    """Serve ``server`` (an MCPServer) over streamable HTTP at ``http://host:port/mcp``."""
    import uvicorn

    check_auth(config, host, token, allow_no_auth)
    app: ASGIApp = server.streamable_http_app(
        host=host,
        session_idle_timeout=config.http_session_idle_timeout_s,
        max_sessions=config.http_max_sessions,
    )
    if token is not None:
        app = BearerAuth(app, token)
    uv = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
    await uv.serve()
