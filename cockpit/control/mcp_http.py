"""`cockpit mcp --port`'s streamable HTTP: 127.0.0.1 only, behind a bearer token, at
`/mcp` and `/mcp/SESSION`.

The MCP session (its `Mcp-Session-Id`) is how a client is told from another, so each can
have a Cockpit session of its own: the server speaks the session-based protocol versions
(2025-11-25 and before) and refuses the stateless 2026 one in the way that makes a client
fall back (-32022 naming the versions it speaks). A client that leaves (HTTP DELETE, as
the SDK's clients do when they close) is said to `ended`, so its session ends with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server import Server
    from starlette.types import ASGIApp, Message, Receive, Scope, Send  # the SDK's

log = logging.getLogger(__name__)

PATH = "/mcp"
SESSION_KEY = "cockpit.session"  # the ASGI scope's: the SESSION of /mcp/SESSION, or None
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"
IDLE_S = 30 * 60.0  # an MCP session without a request this long ends (as the SDK's own)
MAX_PROBE_BODY = 1 << 20  # bytes read of a refused request, to answer with its id


def request_session(scope: Scope) -> tuple[str | None, str | None]:
    """(the SESSION of /mcp/SESSION or None, the client's Mcp-Session-Id or None) of a
    request this front passed on (the SDK hands handlers the request: its scope)."""
    return scope.get(SESSION_KEY), _header(scope, SESSION_HEADER)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _answer(send: Send, status: int, body: dict[str, Any],
                  headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
        *(headers or [])]})
    await send({"type": "http.response.body", "body": data})


class BearerGuard:
    """ASGI middleware: an HTTP request without `Authorization: Bearer TOKEN` gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            await _answer(send, 401, {"error": "unauthorized: send the header Authorization: "
                                               "Bearer TOKEN with the token `cockpit mcp "
                                               "--port` printed (or its token file)"},
                          [(b"www-authenticate", b'Bearer realm="cockpit"')])
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(),
                                                                           self.token)
        return False


@dataclass
class Activity:
    """When each MCP session was last heard from, and how many of its requests run."""

    busy: dict[str, int] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)

    def idle(self, older_than: float, now: float | None = None) -> list[str]:
        """The MCP sessions with no request running and none for `older_than` seconds."""
        now = time.monotonic() if now is None else now
        return [sid for sid, at in self.last.items()
                if not self.busy.get(sid) and now - at > older_than]

    def forget(self, sid: str) -> None:
        self.busy.pop(sid, None)
        self.last.pop(sid, None)


class SessionFront:
    """ASGI middleware in front of the SDK's app: `/mcp/SESSION` reaches `/mcp` with
    SESSION in the scope; requests of the stateless protocol are refused so the client
    falls back to sessions; each MCP session's activity is kept; a DELETE (the client
    closed) is passed on, then told to `ended`."""

    def __init__(self, app: ASGIApp, check_name: Callable[[str], str],
                 ended: Callable[[str], Awaitable[None]] | None = None,
                 opened: Callable[[str, str | None, str], None] | None = None) -> None:
        self.app = app
        self.check_name = check_name
        self.ended = ended
        # told (Mcp-Session-Id, SESSION of /mcp/SESSION, client name) as soon as a client's
        # initialize is answered: its session can start while the client ends its handshake
        self.opened = opened
        self.activity = Activity()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"].rstrip("/")
        name: str | None = None
        if path.startswith(PATH + "/"):
            name = path[len(PATH) + 1:]
            try:
                self.check_name(name)
            except ValueError as exc:
                await _answer(send, 404, {"error": f"{exc}: /mcp/SESSION names a shared "
                                                   f"session, /mcp gives each client its own"})
                return
        elif path != PATH:
            await _answer(send, 404, {"error": "the MCP endpoint is /mcp (each client a "
                                               "session of its own) or /mcp/SESSION (shared)"})
            return
        version = _header(scope, VERSION_HEADER)
        if version is not None and not _session_era(version):
            await self._refuse_stateless(scope, receive, send, version)
            return
        scope = {**scope, "path": PATH, "raw_path": PATH.encode(), SESSION_KEY: name}
        sid = _header(scope, SESSION_HEADER)
        await self._pass(scope, receive, send, sid)

    async def _pass(self, scope: Scope, receive: Receive, send: Send, sid: str | None) -> None:
        status: list[int] = []
        client = None
        if sid is None and scope["method"] == "POST" and self.opened is not None:
            client, receive = await _initializing(receive)

        async def noted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
                given = _header(message, SESSION_HEADER)
                if client is not None and given is not None and status[0] < 300 \
                        and self.opened is not None:
                    self.opened(given, scope.get(SESSION_KEY), client)
            await send(message)

        activity = self.activity
        if sid is not None:
            activity.busy[sid] = activity.busy.get(sid, 0) + 1
        try:
            await self.app(scope, receive, noted)
        finally:
            if sid is not None:
                activity.busy[sid] -= 1
                activity.last[sid] = time.monotonic()
        if sid is not None and scope["method"] == "DELETE" and status and status[0] < 300:
            activity.forget(sid)
            if self.ended is not None:
                await self.ended(sid)

    async def _refuse_stateless(self, scope: Scope, receive: Receive, send: Send,
                                version: str) -> None:
        """-32022 with the versions spoken: a client in auto mode falls back to them."""
        from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
        body, more = b"", True
        while more and len(body) < MAX_PROBE_BODY:
            message = await receive()
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
        try:
            request_id = json.loads(body).get("id")
        except (ValueError, AttributeError):
            request_id = None
        await _answer(send, 400, {"jsonrpc": "2.0", "id": request_id, "error": {
            "code": UNSUPPORTED_PROTOCOL_VERSION,
            "message": f"protocol {version} is stateless, and each Cockpit client has a "
                       f"session (its browser, its refs): speak "
                       f"{HANDSHAKE_PROTOCOL_VERSIONS[-1]}",
            "data": {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": version}}})


async def _initializing(receive: Receive) -> tuple[str | None, Receive]:
    """The client name of an initialize request (None for anything else), and a receive
    that gives the SDK the body read here."""
    messages: list[Message] = []
    size, more = 0, True
    while more and size < MAX_PROBE_BODY:
        message = await receive()
        messages.append(message)
        size += len(message.get("body", b""))
        more = bool(message.get("more_body"))
    client = None
    try:
        request = json.loads(b"".join(m.get("body", b"") for m in messages))
        if isinstance(request, dict) and request.get("method") == "initialize":
            info = (request.get("params") or {}).get("clientInfo") or {}
            client = str(info.get("name") or "")
    except (ValueError, AttributeError):
        client = None  # not JSON: the SDK answers it

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return client, replay


def _session_era(version: str) -> bool:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
    return version in HANDSHAKE_PROTOCOL_VERSIONS


def listen(port: int) -> socket.socket:
    """A socket on 127.0.0.1:PORT (0: any free port); OSError when it is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    return sock


async def serve_http(server: Server[Any], sock: socket.socket, token: str,
                     stop: asyncio.Event, front: Callable[[ASGIApp], SessionFront]) -> None:
    """Serve streamable HTTP on `sock` until `stop` is set; `front` wraps the SDK's app."""
    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # the face's own handlers stop it (and close the browser); uvicorn's would
            # raise the signal again once it has stopped
            yield

    app = server.streamable_http_app(host="127.0.0.1", session_idle_timeout=IDLE_S)
    config = uvicorn.Config(BearerGuard(front(app), token), log_level="warning",
                            lifespan="on", access_log=False)
    web = _Server(config)

    async def stopper() -> None:
        await stop.wait()
        web.should_exit = True

    watcher = asyncio.ensure_future(stopper())
    try:
        await web.serve(sockets=[sock])
    finally:
        watcher.cancel()
