"""The MCP server of `cockpit mcp` (the official `mcp` SDK's low-level `Server`): its tools
are the registry's (mcp_tools.py) and every call goes through `Session.run` as an agent's
command, tagged with the MCP client's name, so the person in the cockpit sees it in the
log, and a call made while the human has control waits, like `cockpit exec`, then answers
with what the human changed. Served on stdio, or on streamable HTTP behind a bearer token.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import logging
import re
import socket
from collections.abc import Awaitable, Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from .. import __version__
from . import mcp_tools

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send  # the SDK's web framework

    from ..core import Command, Result
    from ..core import Session

log = logging.getLogger(__name__)

PROGRESS_S = 3.0  # how often a waiting (or long) call tells its client it is still alive
MAX_IMAGE = 4 << 20  # bytes of a screenshot sent back inline; a larger one is only saved
UNNAMED = "mcp-client"  # a client that sent no clientInfo
INSTRUCTIONS = (
    "A real browser that a person watches in Cockpit and can take over. Start with "
    "browser_snapshot: each element has a ref (@e6) to pass to the other tools. If the page "
    "needs a person (a CAPTCHA, a one-time code), call browser_handoff with what they should "
    "do; your next call waits until they hand the browser back and says what changed.")


def client_name(ctx: ServerRequestContext[Any, Any]) -> str:
    """The client's own name (its initialize request's clientInfo), printable and short."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    name = re.sub(r"[^\w.@+/ -]", "", info.name if info is not None else "")[:40].strip()
    return name or UNNAMED


class CockpitMcp:
    """One session's MCP server. `started` tells whether a task's command has started
    (the control server's record of it): a call cancelled by its client takes back its
    command only while it still waits for its turn, as a control-socket client's does."""

    def __init__(self, session: Session, started: Collection[asyncio.Task[Any]] = ()) -> None:
        self.session = session
        self.started = started
        # cleared while the live session starts: calls wait for it, so each one is in the
        # control server's history, which attach shows
        self.ready = asyncio.Event()
        self.ready.set()
        self.tools = mcp_tools.by_name(session.registry)
        self.server: Server[Any] = Server(
            "cockpit", version=__version__, instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools, on_call_tool=self.call_tool)

    async def list_tools(self, ctx: ServerRequestContext[Any, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_mcp_tool(t) for t in self.tools.values()])

    async def call_tool(self, ctx: ServerRequestContext[Any, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        if tool is None:
            return _error(f"no tool {params.name!r}; the tools: {', '.join(self.tools)}")
        try:
            command = tool.command(params.arguments, self.session.registry)
        except mcp_tools.ToolError as exc:
            return _error(str(exc))
        result = await self.run(command, client_name(ctx), ctx.session.report_progress)
        content: list[types.ContentBlock] = [
            types.TextContent(type="text", text=result.text or "done")]
        if result.ok and tool.spec is not None and tool.spec.name == "screenshot":
            content += _picture(result)
        return types.CallToolResult(content=content, is_error=not result.ok)

    async def run(self, command: Command, client: str,
                  progress: Callable[[float, float | None, str | None], Awaitable[None]]
                  ) -> Result:
        """The command's Result, telling `progress` every PROGRESS_S while it waits for
        its turn (a handoff, a pause) or runs long. Cancelled (the client gave up), the
        command is taken back if it has not started; one that started runs to its end."""
        session = self.session
        task = asyncio.ensure_future(self._run(command, client))
        ticks = 0
        try:
            if not self.ready.is_set() or session.waits(command, "agent"):
                await progress(ticks, None, _waiting(self._held()))
            while True:
                done, _ = await asyncio.wait({task}, timeout=PROGRESS_S)
                if done:
                    return task.result()
                ticks += 1
                # held back, or waiting for a person to approve it (--confirm)
                held = (self._held() or session.policy.approvals.why(command.line)) \
                    if task not in self.started else None
                await progress(ticks, None, _waiting(held) if held else f"running `{command.line}`")
        finally:
            if not task.done() and task not in self.started:
                task.cancel()

    async def _run(self, command: Command, client: str) -> Result:
        await self.ready.wait()
        return await self.session.run(command, source="agent", client=client)

    def _held(self) -> str | None:
        return self.session.agents_held if self.ready.is_set() else "the browser is starting"


def _waiting(why: str | None) -> str:
    return f"waiting: {why}; the command runs when they are done"


def _mcp_tool(tool: mcp_tools.Tool) -> types.Tool:
    hints = None
    if tool.spec is not None and tool.spec.read_only:
        hints = types.ToolAnnotations(read_only_hint=True)
    return types.Tool(name=tool.name, description=tool.description,
                      input_schema=tool.input_schema, annotations=hints)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"error: {text}")],
                                is_error=True)


def _picture(result: Result) -> list[types.ContentBlock]:
    """The saved PNG, inline, for a client that shows it to its model."""
    path = Path(str(result.data.get("path", "")))
    if path.suffix.lower() != ".png" or not path.is_file() or path.stat().st_size > MAX_IMAGE:
        return []
    data = base64.b64encode(path.read_bytes()).decode()
    return [types.ImageContent(type="image", data=data, mime_type="image/png")]


# --- streamable HTTP ------------------------------------------------------------------------
class BearerGuard:
    """ASGI middleware: an HTTP request without `Authorization: Bearer TOKEN` gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            body = (b'{"error": "unauthorized: send the header Authorization: Bearer TOKEN '
                    b'with the token `cockpit mcp --port` printed (or its token file)"}')
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="cockpit"'),
                (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(),
                                                                           self.token)
        return False


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


async def serve_http(mcp: CockpitMcp, sock: socket.socket, token: str,
                     stop: asyncio.Event) -> None:
    """Serve streamable HTTP at /mcp on `sock` until `stop` is set."""
    import uvicorn

    class _Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # the face's own handlers stop it (and close the browser); uvicorn's would
            # raise the signal again once it has stopped
            yield

    app = mcp.server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(BearerGuard(app, token), log_level="warning", lifespan="on",
                            access_log=False)
    server = _Server(config)

    async def stopper() -> None:
        await stop.wait()
        server.should_exit = True

    watcher = asyncio.ensure_future(stopper())
    try:
        await server.serve(sockets=[sock])
    finally:
        watcher.cancel()
