"""A live session seen from another process (`cockpit attach`): what the TUI asks of a
Session, answered over the control socket.

Events arrive on the socket (the kept history first: the log from the start of the
session) and are handed on to a local bus with their own times. Tabs and refs are a copy,
fetched again whenever an event says they changed; views are then told with a synthetic
tab.updated and snapshot event, as if the engine had sent them.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from typing import Any

from .async_client import AsyncCockpit
from .client import Unreachable
from .frames import RemoteLiveView
from ..core import events as ev
from ..core import REGISTRY, Event, EventBus, RefInfo, Result


class _HeldBus(EventBus):
    """Events published before anyone listens wait for the first listener: the history
    arrives as soon as we connect, the viewer subscribes once its window is up."""

    def __init__(self) -> None:
        super().__init__()
        self._held: list[Event] = []

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        unsubscribe = super().subscribe(listener)
        held, self._held = self._held, []
        for event in held:
            self.publish(event)
        return unsubscribe

    def publish(self, event: Event) -> Event:
        if not self._listeners:
            self._held.append(event)
            return event
        return super().publish(event)


class RemoteSession:
    registry = REGISTRY

    def __init__(self, session: str | None = None, socket_path: str | None = None) -> None:
        self.client = AsyncCockpit(session, socket_path=socket_path, source="human",
                                   client="attach")
        self.name = self.client.session
        self.bus = _HeldBus()
        self.ended = False
        self._state: dict[str, Any] = {"status": {"session": self.name, "headed": False},
                                       "tabs": [], "refs": [], "secrets": []}
        self._dirty = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        self.live_view = RemoteLiveView(self.client.info)  # the page as it paints

    async def start(self) -> RemoteSession:
        await self.client.connect()  # closes its socket itself when the handshake fails
        try:
            self._state = await self.client.state()
        except BaseException:
            await self.client.close()
            raise
        self._tasks = [asyncio.create_task(self._follow()), asyncio.create_task(self._refresh())]
        return self

    async def _follow(self) -> None:
        try:
            async for event in self.client.events(history=True):
                self.bus.publish(event)
                if ev.kind_of(event.kind).changes_state:
                    self._dirty.set()
        except Unreachable:
            pass
        self.ended = True
        self.bus.emit(ev.SESSION_CLOSED, session=self.name)

    async def _refresh(self) -> None:
        """Fetch tabs and refs after changes, at most one request in flight."""
        while not self.ended:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                self._state = await self.client.state()
            except Unreachable:
                return
            self.bus.emit(ev.TAB_UPDATED)
            self.bus.emit(ev.SNAPSHOT)

    async def run(self, line: str, source: str = "human", *,
                  timeout: float | None = None, relayed: bool = False) -> Result:
        try:
            result = await self.client.run(line, source=source, timeout=timeout,
                                           relayed=relayed)
        except Unreachable as exc:
            return Result(line, ok=False, error=f"{exc}; nothing ran", exit_code=3,
                          source=source)
        # read your own writes: once run returns, status(), tabs and refs show its effect
        # (replay compares the URL it ended on), not the copy from before it
        try:
            self._state = await self.client.state()
        except Unreachable:
            pass  # the session ended: _follow says so
        return result

    async def picture(self, labels: bool = False, timeout: float = 3.0,
                      target: str | None = None) -> bytes | None:
        try:
            reply = await asyncio.wait_for(
                self.client.request("picture", labels=labels,
                                    **({"target": target} if target else {})), timeout + 5)
        except (TimeoutError, Unreachable):
            return None
        png = (reply.get("data") or {}).get("png")
        return base64.b64decode(png) if png else None

    @property
    def web_link(self) -> str | None:
        """The session's web view with its token, when `cockpit web` serves it."""
        link = self._state.get("web_link")
        return link if isinstance(link, str) else None

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = self._state["status"]
        return status

    def tabs_info(self) -> list[dict[str, Any]]:
        tabs: list[dict[str, Any]] = self._state["tabs"]
        return tabs

    def refs_info(self) -> list[RefInfo]:
        return [(r[0], r[1], r[2], r[3]) for r in self._state["refs"]]

    def refs(self) -> list[tuple[str, str, str]]:
        return [(r[0], r[1], r[2]) for r in self._state["refs"]]

    @property
    def secret_names(self) -> list[str]:
        return list(self._state.get("secrets") or [])

    async def current_refs(self) -> list[RefInfo]:
        try:
            reply = await self.client.request("refs")
        except Unreachable:
            return self.refs_info()  # the last ones known; the session has ended
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error") or "the session could not list its refs")
        return [(r[0], r[1], r[2], r[3]) for r in reply["data"]["refs"]]

    async def agent_control(self, action: str) -> str:
        """The host's agent, paused or stopped there (F8/F9 in an attached TUI)."""
        try:
            reply = await self.client.request("agent", action=action)
        except Unreachable as exc:
            return f"{exc}: the agent was not reached"
        return reply.get("output") or reply.get("error") or "no answer from the session"

    async def close(self) -> None:
        """Leave: the session itself runs on."""
        await self.live_view.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.client.close()
