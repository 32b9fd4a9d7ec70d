"""Who holds the HTTP sessions, and reclaiming the ones their clients abandoned.

A client that exits without ``DELETE`` (``claude mcp list``'s health check, the MCP
Inspector CLI, any crashed client) leaves its session behind. The SDK's session manager
closes a session only after ToolsConfig.http_session_idle_timeout_s with no request in
flight, and an open GET stream counts as one, so abandoned sessions used to fill a token's
share (and, without tokens, the whole table) and lock every later client out.

``SessionGate`` sits between the bearer check and the SDK. It knows each session's client
(the token's name; ``local`` without tokens) and when its client last sent it a POST or
DELETE (a GET stream is not use: a crashed client's stream may linger). A request that
would open a session when its token holds ToolsConfig.http_max_sessions_per_client, or
when the server holds ToolsConfig.http_max_sessions, first ends the least recently used
session of that token (of any client, at the server-wide cap) that has no POST in flight;
only when every such session is busy is the new one refused (503). An evicted session
answers 404 from then on, which tells a live client to initialize again (MCP spec,
streamable HTTP, "Session Management"). ``requests_per_client`` bounds the POSTs one
token has in flight, so one token's flood queues behind itself and not in front of the
others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from burnqed.tools.common.calllog import CLIENT_HEADER

__all__ = ["SessionGate"]

log = logging.getLogger(__name__)

_SESSION_HEADER = b"mcp-session-id"


@dataclass
class _Session:
    client: str
    last_used: float
    busy: int = 0  # POST / DELETE requests of this session being served


class SessionGate:
    """ASGI middleware over the SDK's streamable-HTTP app: session caps per client and in all
    that evict the least recently used idle session instead of refusing, and a cap on the
    requests one client has in flight."""

    def __init__(
        self,
        app: ASGIApp,
        manager: Any,
        *,
        max_sessions: int,
        max_sessions_per_client: int,
        requests_per_client: int | None = None,
        on_refused: Callable[[str, str, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self._manager = manager  # the SDK's StreamableHTTPSessionManager
        self._max_sessions = max_sessions
        self._max_per_client = max_sessions_per_client
        self._requests_per_client = requests_per_client
        self._on_refused = on_refused  # (client name, rule, message): the call log records the refusal
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}
        self._admission = anyio.Lock()
        self.evicted_total = 0

    # ------------------------------------------------------------------ state

    def _live(self) -> dict[str, Any]:
        """The SDK's open sessions (id → transport); forgets the ones it has closed."""
        live: dict[str, Any] = self._manager._server_instances  # noqa: SLF001 - the SDK has no public listing
        for gone in [sid for sid in self._sessions if sid not in live]:
            del self._sessions[gone]
        return live

    def sessions_of(self, client: str) -> int:
        """How many open sessions ``client`` holds."""
        live = self._live()
        return sum(1 for sid in live if self._owner(sid) == client)

    def _owner(self, sid: str) -> str:
        known = self._sessions.get(sid)
        if known is not None:
            return known.client
        owner = self._manager._session_owners.get(sid)  # noqa: SLF001
        return str(owner.get("client_id")) if isinstance(owner, dict) else "local"

    async def _evict_one(self, client: str | None) -> bool:
        """End the least recently used session (of ``client``, if given) with no POST in flight."""
        live = self._live()
        idle = [
            (self._sessions[sid].last_used if sid in self._sessions else float("-inf"), sid)
            for sid in live
            if (client is None or self._owner(sid) == client)
            and (sid not in self._sessions or self._sessions[sid].busy == 0)
        ]
        if not idle:
            return False
        _, sid = min(idle)
        transport = live[sid]
        log.info("HTTP session %s evicted: its client's share is full and it was the least recently used", sid[:12])
        self._sessions.pop(sid, None)
        # forgets the session before its first await (404 from now on) and terminates its transport
        await self._manager._discard_session(sid, transport)  # noqa: SLF001
        self.evicted_total += 1
        return True

    def _limiter(self, client: str) -> anyio.CapacityLimiter | None:
        if self._requests_per_client is None:
            return None
        limiter = self._limiters.get(client)
        if limiter is None:
            limiter = self._limiters[client] = anyio.CapacityLimiter(self._requests_per_client)
        return limiter

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        client = headers.get(CLIENT_HEADER.encode(), b"local").decode()
        sid = headers.get(_SESSION_HEADER, b"").decode("latin-1") or None
        method = scope.get("method")
        if sid is None and method == "POST" and _opens_session(headers):
            await self._open(client, scope, receive, send)
            return
        if sid is None or method == "GET":
            await self.app(scope, receive, send)
            return
        session = self._sessions.get(sid)
        if session is not None and session.client == client:
            session.last_used = self._clock()
            session.busy += 1
        # without tokens every client is "local": its sessions are the only clients there are
        limiter = self._limiter(client if client != "local" else f"local:{sid}") if method == "POST" else None
        try:
            if limiter is None:
                await self.app(scope, receive, send)
            else:
                async with limiter:
                    await self.app(scope, receive, send)
        finally:
            if session is not None and session.client == client:
                session.busy -= 1
                session.last_used = self._clock()

    async def _open(self, client: str, scope: Scope, receive: Receive, send: Send) -> None:
        async with self._admission:
            refusal = await self._make_room(client)
        if refusal is not None:
            if self._on_refused is not None:
                self._on_refused(client, "sessions", refusal)
            await _json_response(send, 503, {"error": "too_many_sessions", "message": refusal})
            return

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                opened = dict(message.get("headers") or []).get(_SESSION_HEADER)
                if opened is not None:
                    self._sessions[opened.decode("latin-1")] = _Session(client, self._clock())
            await send(message)

        await self.app(scope, receive, watch)

    async def _make_room(self, client: str) -> str | None:
        """Evict what the caps need for one more session of ``client``; the refusal text if they cannot."""
        while self.sessions_of(client) >= self._max_per_client:
            if not await self._evict_one(client):
                return (f"this token holds {self._max_per_client} open sessions (the cap per token), each "
                        "serving a request; end one (HTTP DELETE) or wait for one to finish")
        while len(self._live()) >= self._max_sessions:
            if not await self._evict_one(None):
                return (f"the server holds {self._max_sessions} open sessions, each serving a request; "
                        "try again when one finishes")
        return None


def _opens_session(headers: dict[bytes, bytes]) -> bool:
    """A POST without a session id under a handshake protocol version (or none yet) opens a
    session; a request of the session-less protocol era opens none."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    version = headers.get(b"mcp-protocol-version")
    return version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS


async def _json_response(send: Send, status: int, body: dict[str, str]) -> None:
    import json

    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})
