"""Every live session of this user, followed at once (`cockpit watch`): one `SessionRow`
per session, kept up to date from that session's event stream on its control socket.

Nothing here polls a browser: a session is asked its state once when reached and again
only after an event says something changed; sessions that appear or end are noticed by
watching the socket directory (watchfiles: inotify on Linux), and a session whose stream
ends is gone. Each listener (`Monitor.subscribe`) is called, in the loop, after every
change, with the calls to make when a session newly needs a person (notify.py decides
which are new).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..core import events as ev
from ..core import Event
from . import discovery
from .async_client import AsyncCockpit
from .discovery import LiveInfo, Unreachable
from .notify import Call, NeedLedger, is_handoff

log = logging.getLogger("cockpit.watch")

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass
class LastCommand:
    line: str
    source: str
    started: float
    finished: float | None = None
    ok: bool | None = None
    error: str | None = None
    ms: float | None = None


@dataclass
class SessionRow:
    """What `watch` shows of one session."""

    session: str
    workspace: str
    socket: str
    pid: int
    browser: str = "?"  # headless, headed, attached, remote
    endpoint: str | None = None
    control: str = "agent"  # agent, human, held
    control_reason: str = ""
    handoff_by: str = "human"  # who handed the browser over: an agent's asks for a person
    handoff_asked_by: str = "human"  # the source of the `handoff` command under way
    agent: str = "no agent"
    last: LastCommand | None = None
    need: dict[str, str] | None = None  # kind, detail, url
    recording: str = "off"  # on, off, failed: why
    recording_path: str | None = None
    url: str = ""
    web: str = ""  # the web view `cockpit web` serves of it (with its token), if any
    tabs: int = 0
    connected: bool = False
    error: str | None = None
    seen: float = field(default_factory=time.time)

    @property
    def handed_by_program(self) -> bool:
        """A person has control because an agent (or --auto-handoff) asked for one: until
        one resumes, nobody may be there."""
        return self.control == "human" and self.handoff_by != "human"

    @property
    def needs_person(self) -> bool:
        return (self.need is not None and self.control != "human") or self.handed_by_program

    def order(self) -> tuple[int, str, str]:
        """Sessions that need a person first, then those a person has, then the rest."""
        rank = 0 if self.needs_person else 1 if self.control == "human" else 2
        return (rank, self.session, self.workspace)

    def why(self) -> str:
        if self.need is None:
            if self.handed_by_program:
                return f"handoff ({self.control_reason})" if self.control_reason else "handoff"
            return ""
        detail = self.need.get("detail") or ""
        return self.need.get("kind", "?") + (f" ({detail})" if detail else "")


def browser_kind(status: dict[str, Any]) -> tuple[str, str | None]:
    """headless or headed (our own browser), attached (one on this machine, --cdp /
    --ws-endpoint), remote (elsewhere: a hosted browser, another host)."""
    kind, endpoint = status.get("browser_kind") or "local", status.get("endpoint")
    if kind == "local":
        return ("headed" if status.get("headed") else "headless"), None
    try:
        host = urlsplit(endpoint or "").hostname or ""
    except ValueError:
        host = ""
    return ("attached" if host in LOCAL_HOSTS or not host else "remote"), endpoint


def apply_state(row: SessionRow, state: dict[str, Any]) -> None:
    """What a `state` answer says, onto the row: its status, and the web view."""
    apply_status(row, state["status"])
    link = state.get("web_link")
    row.web = link if isinstance(link, str) else ""


def apply_status(row: SessionRow, status: dict[str, Any]) -> None:
    """What a `state` answer says, onto the row."""
    row.browser, row.endpoint = browser_kind(status)
    handoff = status.get("handoff") or {}
    if handoff.get("human_has_control"):
        row.control, row.control_reason = "human", handoff.get("reason") or ""
    elif status.get("agents_held"):
        row.control, row.control_reason = "held", str(status.get("agents_held"))
    else:
        row.control, row.control_reason = "agent", ""
    need = handoff.get("needs")
    row.need = ({"kind": str(need.get("kind")), "detail": str(need.get("detail") or ""),
                 "url": str(need.get("url") or "")} if isinstance(need, dict) else
                row.need if row.need and row.need.get("kind") == "stuck" else None)
    agent = status.get("agent")
    if agent is None:
        row.agent = "no agent"
    elif row.agent == "no agent" or not isinstance(agent, str) or agent not in row.agent:
        row.agent = str(agent)  # the event's own line is more telling: kept when it agrees
    if row.recording != "failed":
        row.recording_path = status.get("recording")
        row.recording = "on" if row.recording_path else "off"
    row.url = ((status.get("active") or {}).get("url")) or ""
    row.tabs = int(status.get("tabs") or 0)


def apply_event(row: SessionRow, event: Event) -> None:
    """One event of the session's stream, onto the row."""
    kind, data = event.kind, event.data
    if kind == ev.COMMAND_STARTED:
        row.last = LastCommand(str(data.get("command", "")), str(data.get("source", "")),
                               event.time)
        if is_handoff(row.last.line):  # its `handoff` event comes before it finishes
            row.handoff_asked_by = row.last.source or "human"

    elif kind == ev.COMMAND_FINISHED:
        last = row.last if row.last and row.last.line == data.get("command") else None
        row.last = last or LastCommand(str(data.get("command", "")),
                                       str(data.get("source", "")), event.time)
        row.last.finished, row.last.ok = event.time, bool(data.get("ok"))
        row.last.error, row.last.ms = data.get("error"), data.get("ms")
        if row.last.ok and is_handoff(row.last.line):  # who asked: an agent asks for a person
            row.handoff_by = row.last.source or "human"
    elif kind == ev.AGENT_STATE:
        from ..core import describe
        row.agent = describe(data)
    elif kind == ev.AGENTS_HELD and row.control != "human":
        row.control, row.control_reason = "held", str(data.get("reason") or "")
    elif kind == ev.AGENTS_RELEASED and row.control == "held":
        row.control, row.control_reason = "agent", ""
    elif kind == ev.HANDOFF:
        row.control, row.control_reason = "human", str(data.get("reason") or "")
        row.handoff_by = row.handoff_asked_by
    elif kind == ev.RESUMED:
        row.control, row.control_reason, row.handoff_by = "agent", "", "human"
    elif kind == ev.NEEDS_HUMAN:
        row.need = {"kind": str(data.get("need") or "?"),
                    "detail": str(data.get("detail") or ""), "url": str(data.get("url") or "")}
    elif kind == ev.NEEDS_CLEARED:
        row.need = None
    elif kind == ev.RECORDING_FAILED:
        row.recording = f"failed: {data.get('error')}"
    elif kind == ev.NAVIGATION:
        row.url = str(data.get("url") or row.url)


class SessionFeed:
    """One session followed: connected, its state asked, then its events as they come
    (the kept history first, for its last command and its agent's state)."""

    def __init__(self, info: LiveInfo, monitor: Monitor) -> None:
        self.info = info
        self.monitor = monitor
        self.row = SessionRow(info.session, info.workspace, str(info.socket), info.pid)
        self.task: asyncio.Task[None] | None = None
        self._dirty = asyncio.Event()

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._follow())

    async def _follow(self) -> None:
        try:  # finding it probes its socket: a blocking connect, kept off the loop
            client = await asyncio.to_thread(AsyncCockpit, socket_path=str(self.info.socket),
                                             source="human", client="watch")
            await client.connect()
        except (Unreachable, ValueError, OSError) as exc:
            self.row.error = f"did not answer: {exc}"
            self.monitor.feed_changed(self, None)
            return
        refresher = asyncio.ensure_future(self._refresh(client))
        try:
            apply_state(self.row, await client.state())
            self.row.connected = True
            need = self.row.need
            self.monitor.feed_changed(self, None if need is None else Event(
                ev.NEEDS_HUMAN, {"need": need["kind"], "detail": need["detail"],
                                 "url": need["url"]}))
            async for event in client.events(history=True, brief=True):  # not the diffs
                apply_event(self.row, event)
                if event.kind == ev.NEEDS_HUMAN:  # its call names the web view served now
                    apply_state(self.row, await client.state())
                # (an agent's end too: a state asked just before it, and answered
                # after its event, would put the agent back to running on the row)
                if ev.kind_of(event.kind).changes_state or event.kind in (
                        ev.HANDOFF, ev.RESUMED, ev.AGENTS_HELD, ev.AGENTS_RELEASED) or (
                        event.kind == ev.AGENT_STATE and event.data.get("state") not in (
                            "running", "waiting")):
                    self._dirty.set()
                self.monitor.feed_changed(self, event)
        except (Unreachable, OSError, KeyError) as exc:
            log.info("session %r: %s", self.info.session, exc)
        finally:
            refresher.cancel()
            await asyncio.gather(refresher, return_exceptions=True)
            await client.close()
        self.monitor.feed_ended(self)

    async def _refresh(self, client: AsyncCockpit) -> None:
        """The session's state again after events that change it, one request at a time
        (a burst of events is one request)."""
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                apply_state(self.row, await client.state())
            except Unreachable:
                return
            self.monitor.feed_changed(self, None)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


RESCAN_MS = 3_000  # the directory listed again, whatever the watcher said


class Monitor:
    """Every live session of this user, each followed by a SessionFeed; new ones found by
    watching the socket directory. Listeners run after each change."""

    def __init__(self) -> None:
        self.feeds: dict[str, SessionFeed] = {}  # socket path -> its feed
        self._listeners: list[Callable[[list[Call]], None]] = []
        self.ledger = NeedLedger()
        self.quiet: str | None = None  # the socket of the session attached to now
        self.notes: dict[str, str] = {}  # what is wrong with a place watched (a host)
        self._on_end: dict[str, Callable[[], None]] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    def subscribe(self, listener: Callable[[list[Call]], None]) -> Callable[[], None]:
        """`listener(calls)` after each change; returns what unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners \
            else None

    def changed(self, calls: list[Call]) -> None:
        for listener in list(self._listeners):
            try:
                listener(calls)
            except Exception:  # a broken view must not stop the others' calls
                log.exception("a watch listener failed")

    def rows(self) -> list[SessionRow]:
        """The sessions, those that need a person first."""
        return sorted((feed.row for feed in self.feeds.values()), key=SessionRow.order)

    async def start(self) -> Monitor:
        discovery.private_dir(create=True)  # watched even while no session runs yet
        await self.scan()
        self._watcher = asyncio.ensure_future(self._watch())
        return self

    async def scan(self) -> None:
        """Follow every live session not followed yet (stale sockets are cleared; each
        probe is a blocking connect, kept off the loop)."""
        for sock in discovery.list_sockets():
            if sock in self.feeds:
                continue
            info = await asyncio.to_thread(discovery.alive, sock)
            if info is not None and sock not in self.feeds:
                self.follow(info)

    def follow(self, info: LiveInfo, on_end: Callable[[], None] | None = None) -> None:
        """Follow one session (one of another machine: its forwarded socket, and what to
        do when it ends)."""
        feed = self.feeds[str(info.socket)] = SessionFeed(info, self)
        if on_end is not None:
            self._on_end[str(info.socket)] = on_end
        feed.start()
        self.changed([])

    def note(self, where: str, problem: str | None) -> None:
        """What is wrong with a place watched (None: nothing any more)."""
        if problem is None:
            changed = self.notes.pop(where, None) is not None
        else:
            changed = self.notes.get(where) != problem
            self.notes[where] = problem
        if changed:
            self.changed([])

    async def _watch(self) -> None:
        from watchfiles import awatch
        directory = discovery.private_dir()
        try:
            # a session writes its .json once its socket listens: that is the moment;
            # and a scan every RESCAN_MS all the same (an empty set): a session that came
            # up before the watch did, or while a scan ran, is not missed for good
            async for changes in awatch(directory, stop_event=self._stop, debounce=50,
                                        step=20, recursive=False, rust_timeout=RESCAN_MS,
                                        yield_on_timeout=True):
                if not changes or any(path.endswith((".json", ".sock")) for _, path in changes):
                    await self.scan()
        except OSError as exc:  # out of inotify watches: said, and the list stays as is
            log.warning("the sessions directory %s is not watched: %s", directory, exc)

    def feed_changed(self, feed: SessionFeed, event: Event | None) -> None:
        """After a change in one session: the call to make, when it newly needs a person
        that nobody is with (no call while a person has control, nor for the session
        a person has open here: its own cockpit calls)."""
        calls = []
        if event is not None:
            call = self.ledger.observe(feed.info.socket, event)
            if call is not None and feed.row.needs_person and feed.info.socket != self.quiet:
                calls.append(Call(feed.row.session, call.need, call.detail,
                                  call.url or feed.row.url, feed.row.web))
        self.changed(calls)

    def feed_ended(self, feed: SessionFeed) -> None:
        if self.feeds.get(feed.info.socket) is feed:
            del self.feeds[feed.info.socket]
        self.ledger.forget(feed.info.socket)
        if (on_end := self._on_end.pop(feed.info.socket, None)) is not None:
            on_end()
        self.changed([])

    async def close(self) -> None:
        self._stop.set()
        feeds = list(self.feeds.values())
        self.feeds.clear()
        for feed in feeds:
            await feed.close()
        if self._watcher is not None:
            await asyncio.gather(self._watcher, return_exceptions=True)


def age(seconds: float) -> str:
    """A short age: 4s, 3m, 2h, 5d."""
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def home(path: str) -> str:
    user = os.path.expanduser("~")
    return "~" + path[len(user):] if user != "/" and (
        path == user or path.startswith(user + os.sep)) else path
