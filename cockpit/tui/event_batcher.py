"""From the engine's event bus to the app: events are gathered and handed over in batches,
at most ~30 times a second, so a burst of events costs one repaint, not hundreds."""

from __future__ import annotations

import asyncio
from typing import Callable

from textual.message import Message

from ..core import events as ev
from ..core import Event
from .messages import NOTICES

FLUSH_INTERVAL = 1 / 30
MAX_BATCH = 2_000  # events: past it the batch goes at once, not at the next frame


def shown(event: Event) -> bool:
    """Whether any pane shows this kind (messages.translate): the rest (console lines,
    page errors, dialogs as such) never reach the app, so a flood of them costs nothing
    here. The `console` command and the recorder read them from the session."""
    spec = ev.kind_of(event.kind)
    return (spec.group == ev.COMMANDS or spec.tabs or spec.refs
            or event.kind == ev.AGENT_OUTPUT or spec.group in NOTICES)


class EngineBatch(Message):
    """Engine events since the last batch, in order."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class EventBatcher:
    """A bus listener that collects events and posts one EngineBatch per frame.

    Bus listeners are called from Playwright's callbacks, outside the app's context, so
    this only uses the event loop and `post_message`, which are safe from there. Only the
    UI coalesces: the recorder and agents subscribe to the bus themselves and see every
    event."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self._pending: list[Event] = []
        self._handle: asyncio.TimerHandle | None = None

    def __call__(self, event: Event) -> None:
        if not shown(event):
            return
        self._pending.append(event)
        if len(self._pending) >= MAX_BATCH:  # a burst: bounded batches, none held back
            if self._handle is not None:
                self._handle.cancel()
            self.flush()
            return
        if self._handle is None:
            self._handle = asyncio.get_running_loop().call_later(FLUSH_INTERVAL, self.flush)

    def flush(self) -> None:
        self._handle = None
        batch, self._pending = self._pending, []
        if batch:
            self._post(EngineBatch(batch))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
