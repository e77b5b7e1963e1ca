"""The sessions behind `cockpit mcp --port`: each MCP client a session of its own by
default, or one session that clients share by name.

- `/mcp` (no `--session`): the client's first tool call opens a session named after it
  (its initialize's clientInfo name, `-2`, `-3`... when that is taken), with a context of
  its own on the browser every such session shares (core SharedBrowser): its own cookies,
  tabs, refs and recording. It ends when the client leaves (HTTP DELETE) or after
  mcp_http.IDLE_S without a request, and its recording is closed.
- `/mcp/NAME`, or `/mcp` with `--session NAME`: the session NAME, with a browser and
  profile of its own as any other face's, shared by every client that names it; it
  lasts until the server stops.

Every one is a LiveSession: a control socket, so `cockpit sessions`, `watch`, `attach`
and `exec` reach it as they reach any other."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..control.mcp_http import IDLE_S, SessionFront, request_session
from ..control.mcp_server import CockpitMcp, RouteError, client_name, printable_client
from ..core import check_session_name
from .live import OPEN_ERRORS, AlreadyLive, LiveSession, SessionOptions, tell

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from starlette.types import ASGIApp

    from ..core import SharedBrowser

log = logging.getLogger("cockpit.mcp")

FACE = "cockpit mcp"
MOST_SUFFIXES = 99  # claude-code, claude-code-2 ... claude-code-99
REAP_EVERY_S = 60.0


def say(text: str) -> None:
    print(f"{FACE}: {text}", file=sys.stderr, flush=True)


def session_name_for(client: str) -> str:
    """A session name from a client's name: the characters a session name takes."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", client).strip("-.")[:40]
    return name or "mcp-client"


def beside(path: Path | None, name: str) -> Path | None:
    """FILE.jsonl -> FILE-NAME.jsonl: each client's own recording (or trace) of a --record
    FILE (--trace FILE) given for all of them."""
    return None if path is None else path.with_name(f"{path.stem}-{name}{path.suffix}")


@dataclasses.dataclass
class OwnSession:
    """One client's own session, and the MCP session (Mcp-Session-Id) it belongs to."""

    live: LiveSession
    mcp: CockpitMcp
    client: str


class Fleet:
    """Finds (and opens) the session each MCP call runs in: McpServer's `route`."""

    def __init__(self, options: SessionOptions, shared: SharedBrowser | None,
                 default: str | None) -> None:
        self.options = options  # every session's, but its name, recording and browser
        self.shared = shared  # the browser of the clients' own sessions
        self.default = default  # --session NAME: /mcp is that session
        self.own: dict[str, OwnSession] = {}  # by Mcp-Session-Id
        self.named: dict[str, CockpitMcp] = {}
        self.lives: list[LiveSession] = []  # every one opened, to close at the end
        self._opening: dict[str, asyncio.Task[CockpitMcp]] = {}
        self._names: set[str] = set()  # given to a client's session, while it lives
        self.front: SessionFront | None = None
        self._reaper: asyncio.Task[None] | None = None

    def wrap(self, app: ASGIApp) -> SessionFront:
        """The HTTP front of the SDK's app (mcp_http.serve_http's `front`)."""
        self.front = SessionFront(app, check_session_name, self.ended, self.opened)
        self._reaper = asyncio.ensure_future(self._reap())
        return self.front

    def opened(self, sid: str, name: str | None, client: str) -> None:
        """A client was answered its initialize: its own session starts now, while it
        ends its handshake, so its first call finds it (or finds it starting)."""
        if name is None and self.default is None:
            self._opening_for(None, sid, printable_client(client))

    async def route(self, ctx: ServerRequestContext[Any, Any]) -> CockpitMcp:
        scope = ctx.request.scope if ctx.request is not None else {}
        name, sid = request_session(scope)
        name = name or self.default
        if name is None and sid is None:
            raise RouteError("this call came without an MCP session (Mcp-Session-Id): "
                             "initialize first, or name a shared session: /mcp/NAME")
        if name is not None:
            found = self.named.get(name)
        else:
            assert sid is not None
            found = self.own[sid].mcp if sid in self.own else None
        if found is not None:
            return found
        opening = self._opening_for(name, sid, client_name(ctx))
        return await asyncio.shield(opening)  # a call given up must not stop the opening

    def _opening_for(self, name: str | None, sid: str | None,
                     client: str) -> asyncio.Task[CockpitMcp]:
        """The opening of this session: one per session, however many calls come at once."""
        key = f"name:{name}" if name is not None else f"sid:{sid}"
        opening = self._opening.get(key)
        if opening is None:
            opening = self._opening[key] = asyncio.ensure_future(
                self._open_named(name) if name is not None else
                self._open_own(sid or "", client))
            opening.add_done_callback(lambda task: self._opened(key, task))
        return opening

    def _opened(self, key: str, task: asyncio.Task[CockpitMcp]) -> None:
        self._opening.pop(key, None)
        if not task.cancelled() and task.exception() is not None:  # said to its call
            log.info("opening %s failed: %s", key, task.exception())

    def add_named(self, live: LiveSession, mcp: CockpitMcp) -> None:
        """A named session started by the face (--session NAME), to route to and close."""
        self.named[live.session.name] = mcp
        self.lives.append(live)

    async def _open_named(self, name: str) -> CockpitMcp:
        live = LiveSession(dataclasses.replace(self.options, name=name))
        try:
            await self._start(live)
        except AlreadyLive as exc:
            raise RouteError(str(exc)) from None
        except OPEN_ERRORS as exc:
            raise RouteError(f"session {name!r} could not start: {exc}") from None
        mcp = self.named[name] = CockpitMcp(live.session, live.server.started)
        flag = "" if name == "default" else f" --session {name}"
        say(f"session {name!r} is live on {live.description}: watch it with "
            f"`cockpit attach{flag}`")
        return mcp

    async def _open_own(self, sid: str, client: str) -> CockpitMcp:
        base = session_name_for(client)
        for n in range(1, MOST_SUFFIXES + 1):
            name = base if n == 1 else f"{base}-{n}"
            if name in self._names or name in self.named:
                continue
            self._names.add(name)  # taken now: another client's opening skips it
            options = dataclasses.replace(
                self.options, name=name, shared=self.shared,
                record=beside(self.options.record, name),
                trace=beside(self.options.trace, name))
            try:
                live = LiveSession(options)
                live.refuse_if_live()
                await self._start(live)
            except AlreadyLive:  # live in another process of this workspace
                self._names.discard(name)
                continue
            except OPEN_ERRORS as exc:
                self._names.discard(name)
                raise RouteError(f"a session for {client!r} could not start: {exc}") from None
            except BaseException:
                self._names.discard(name)
                raise
            mcp = CockpitMcp(live.session, live.server.started)
            self.own[sid] = OwnSession(live, mcp, client)
            say(f"client {client!r} has session {name!r}: watch it with "
                f"`cockpit attach --session {name}`")
            return mcp
        raise RouteError(f"sessions {base!r} to {base}-{MOST_SUFFIXES} are all live: end some")

    async def _start(self, live: LiveSession) -> None:
        name = live.session.name
        live.session.bus.subscribe(lambda event: tell(event, name))
        self.lives.append(live)
        try:
            await live.start()
        except BaseException:
            self.lives.remove(live)
            raise

    async def ended(self, sid: str) -> None:
        """The client of this MCP session left: its own session ends (recording closed)."""
        opening = self._opening.get(f"sid:{sid}")
        if opening is not None:  # still starting: it ends once it has started
            await asyncio.wait({opening})
        client = self.own.pop(sid, None)
        if client is None:
            return
        name = client.live.session.name
        await self._close(client.live)
        self._names.discard(name)
        say(f"session {name!r} ended: its client {client.client!r} left")

    async def _reap(self) -> None:
        """Sessions whose client went silent for IDLE_S (it died without a DELETE)."""
        while True:
            await asyncio.sleep(REAP_EVERY_S)
            if self.front is None:
                continue
            for sid in self.front.activity.idle(IDLE_S):
                self.front.activity.forget(sid)
                if sid in self.own:
                    log.info("MCP session %s idle for %g s: its session ends", sid[:8], IDLE_S)
                    await self.ended(sid)

    async def _close(self, live: LiveSession) -> None:
        if live in self.lives:
            self.lives.remove(live)
        try:
            await live.close()
        except Exception:  # logged: the others still close
            log.warning("closing session %s failed", live.session.name, exc_info=True)

    async def close(self) -> None:
        """Every session, then the shared browser."""
        if self._reaper is not None:
            self._reaper.cancel()
        for task in list(self._opening.values()):
            task.cancel()
        await asyncio.gather(*(self._close(live) for live in list(self.lives)))
        self.own.clear()
        self.named.clear()
        if self.shared is not None:
            await self.shared.close()
