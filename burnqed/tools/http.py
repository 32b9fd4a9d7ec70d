"""Serving an MCP server over streamable HTTP, behind bearer tokens.

One HTTP server serves many clients: the server's lifespan (pool, job manager, handle
registry) is entered once and shared by every session, so a job or a proof handle outlives
the client that started it and a second client sees it. Every request must carry
``Authorization: Bearer <token>`` (compared in constant time). The tokens come from a file
(one per line, optionally named per client: per-client limits apply to that name) or from an
environment variable. Serving without one is refused unless the server is bound to a
loopback address and the operator said so explicitly (``--no-auth``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from burnqed.env import env
from burnqed.tools.config import ToolsConfig

__all__ = [
    "CLIENT_HEADER",
    "BearerAuth",
    "HttpServeError",
    "check_auth",
    "is_loopback",
    "resolve_tokens",
    "serve_http",
]

# set by BearerAuth to the client name of the request's token (a client-sent one is dropped)
CLIENT_HEADER = "x-burnqed-client"


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
    their token's client name in the ``x-burnqed-client`` header."""

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
            await self.app({**scope, "headers": [*headers, (header, client)]}, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "message": "send Authorization: Bearer <token>"}).encode()
        await send({
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
        })
        await send({"type": "http.response.body", "body": body})


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
                     allow_no_auth: bool = False) -> None:
    """Serve ``server`` (an MCPServer) over streamable HTTP at ``http://host:port/mcp``."""
    import uvicorn

    check_auth(config, host, tokens, allow_no_auth)
    app: ASGIApp = server.streamable_http_app(
        host=host,
        session_idle_timeout=config.http_session_idle_timeout_s,
        max_sessions=config.http_max_sessions,
    )
    if tokens:
        app = BearerAuth(app, tokens)
    uv = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
    await uv.serve()
