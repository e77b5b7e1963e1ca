"""The MCP server of `cockpit mcp` (the official `mcp` SDK's low-level `Server`): its tools
are the registry's (mcp_tools.py) and every call goes through `Session.run` as an agent's
command, tagged with the MCP client's name, so the person in the cockpit sees it in the
log, and a call made while the human has control waits, like `cockpit exec`, then answers
with what the human changed. Served on stdio, or on streamable HTTP behind a bearer token
(mcp_http.py), where each client may have a session of its own: `McpServer` asks its
`route` which session a call runs in.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from .. import __version__
from . import mcp_tools

if TYPE_CHECKING:
    from ..core import Command, Registry, Result
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
    return printable_client(info.name if info is not None else "")


def printable_client(name: str) -> str:
    """A client's name as Cockpit shows it: printable and short."""
    return re.sub(r"[^\w.@+/ -]", "", name)[:40].strip() or UNNAMED


class RouteError(Exception):
    """A call that no session can take (the message says why, and what to do)."""


class McpServer:
    """The MCP server (the SDK's low-level `Server`): the registry's tools; each call runs
    in the session that `route` picks for it (its client's own, or a shared one)."""

    def __init__(self, route: Callable[[ServerRequestContext[Any, Any]], Awaitable[CockpitMcp]],
                 registry: Registry | None = None) -> None:
        self.route = route
        self.tools = mcp_tools.by_name(registry) if registry is not None else \
            mcp_tools.by_name()
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
            target = await self.route(ctx)
            command = tool.command(params.arguments, target.session.registry)
        except (mcp_tools.ToolError, RouteError) as exc:
            return _error(str(exc))
        result = await target.run(command, client_name(ctx), ctx.session.report_progress)
        content: list[types.ContentBlock] = [
            types.TextContent(type="text", text=result.text or "done")]
        if result.ok and tool.spec is not None and tool.spec.name == "screenshot":
            content += _picture(result)
        return types.CallToolResult(content=content, is_error=not result.ok)


class CockpitMcp:
    """One session's side of the MCP server: runs a call's command in it as an agent's.
    `started` tells whether a task's command has started (the control server's record
    of it): a call cancelled by its client takes back its command only while it still
    waits for its turn, as a control-socket client's does. `server`: an MCP server whose
    every call runs here (stdio, or every HTTP client in this one session)."""

    def __init__(self, session: Session, started: Collection[asyncio.Task[Any]] = ()) -> None:
        self.session = session
        self.started = started
        # cleared while the live session starts: calls wait for it, so each one is in the
        # control server's history, which attach shows
        self.ready = asyncio.Event()
        self.ready.set()
        self.mcp = McpServer(self._here, session.registry)
        self.server = self.mcp.server

    async def _here(self, ctx: ServerRequestContext[Any, Any]) -> CockpitMcp:
        return self

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
