"""The one event bus: every view, the recorder and agents watch the session through it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

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


@dataclass(frozen=True)
class Event:
    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "time": self.time, "data": self.data}


Listener = Callable[[Event], None]


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
        event = Event(kind, data)
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
