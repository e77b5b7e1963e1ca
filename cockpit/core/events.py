"""The one event bus: every view, the recorder and agents watch the session through it."""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not typing's: thin clients import this module for Event
if TYPE_CHECKING:
    from typing import Any, AsyncIterator, Callable

    Listener = Callable[["Event"], None]

# Event kinds emitted by the engine. Views may ignore kinds they do not know.
COMMAND_QUEUED = "command.queued"
COMMAND_STARTED = "command.started"
COMMAND_FINISHED = "command.finished"
TAB_OPENED = "tab.opened"
TAB_CLOSED = "tab.closed"
TAB_CHANGED = "tab.changed"  # the active tab is another one
TAB_UPDATED = "tab.updated"  # title, URL or loading state of a tab changed
NAVIGATION = "navigation"
CONSOLE = "console"
PAGE_ERROR = "page.error"
DIALOG_OPENED = "dialog.opened"
DIALOG_CLOSED = "dialog.closed"
FILE_CHOOSER = "filechooser"
DOWNLOAD = "download"
SNAPSHOT = "snapshot"
SESSION_CLOSED = "session.closed"
AGENTS_HELD = "agents.held"  # agents' commands wait (paused, or a human has control)
AGENTS_RELEASED = "agents.released"
AGENT_STATE = "agent.state"  # the agent subprocess: running, waiting, paused, exited
AGENT_OUTPUT = "agent.output"  # lines it wrote on stdout or stderr
CONTROL_REFUSED = "control.refused"  # a control-socket client was turned away
HANDOFF = "handoff"  # the human has control (reason, mode: window, headed or terminal)
RESUMED = "resumed"  # control is back with the agents; what the human changed
NEEDS_HUMAN = "needs.human"  # a page needs a person (captcha, code, login) or agents are stuck
NEEDS_CLEARED = "needs.cleared"
RECORDING_FAILED = "recording.failed"  # a recording could not be written (path, error)


class Event:
    """One thing that happened, with its data and the time it happened (immutable)."""

    __slots__ = ("kind", "data", "time")

    def __init__(self, kind: str, data: dict[str, Any] | None = None,
                 time: float | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "data", {} if data is None else data)
        object.__setattr__(self, "time", _now() if time is None else time)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an Event does not change once it happened")

    def __repr__(self) -> str:
        return f"Event(kind={self.kind!r}, data={self.data!r}, time={self.time!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind, self.data, self.time) == (other.kind, other.data, other.time)

    __hash__ = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "time": self.time, "data": self.data}


_now = time.time


class EventBus:
    """Synchronous fan-out of events to listeners, plus async streams for remote viewers.

    Listeners run in the session's event loop and must be quick; a failing listener is
    dropped from nothing and never breaks the session (its error is swallowed and counted).
    """

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self.listener_errors = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, kind: str, **data: Any) -> Event | None:
        if not self._listeners:
            return None  # nobody is watching: the common case of a script or a benchmark
        return self.publish(Event(kind, data))

    def publish(self, event: Event) -> Event:
        """Hand an existing event on (a remote session's, with its own time)."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must never take the session down
                self.listener_errors += 1
        return event

    async def stream(self, maxsize: int = 10_000) -> AsyncIterator[Event]:
        """Yield every event from now on (the oldest are dropped if the reader falls behind)."""
        import asyncio  # here: thin clients import this module for Event alone
        queue: asyncio.Queue[Event] = asyncio.Queue(maxsize)

        def put(event: Event) -> None:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(event)

        unsubscribe = self.subscribe(put)
        try:
            while True:
                yield await queue.get()
        finally:
            unsubscribe()
