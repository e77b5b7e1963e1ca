"""The live picture of the session under `watch`'s cursor: its page as it paints, in
half blocks, so a person sees what the agent sees before attaching.

One session's frames at a time (the highlighted one): each watched session would run a
screencast of its own, and ten of them would cost the machine what the agents need. The
frames come over the session's socket (`frames`, control/frames.py) and only while the
page paints, so an idle session watched costs next to nothing."""

from __future__ import annotations

import logging
from typing import Any, Callable

from ..control.frames import RemoteLiveView
from .zoom import HalfBlocks

log = logging.getLogger("cockpit")


class WatchPicture(HalfBlocks):
    """The picture; `follow(info)` moves it to another session (None: to none)."""

    DEFAULT_CSS = """
    WatchPicture { width: 48; height: 100%; border-left: solid $secondary; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.following: str | None = None  # the socket of the session shown
        self.frames = 0  # frames drawn since it followed that session
        self._view: RemoteLiveView | None = None
        self._stop: Callable[[], None] | None = None
        self._latest: Any = None
        self._due = False

    def follow(self, info: Any | None) -> None:
        socket = str(info.socket) if info is not None else None
        if socket == self.following:
            return
        self._leave()
        self.following, self.frames = socket, 0
        self.show(None)
        if info is not None and self.display:
            self._view = RemoteLiveView(info)
            self._stop = self._view.subscribe(self._frame)

    def _leave(self) -> None:
        if self._stop is not None:
            self._stop()  # the last listener gone: the stream and the screencast end
        self._stop = self._view = None
        self.following = None

    def _frame(self, frame: Any) -> None:
        """The newest frame, drawn at the app's next free moment (frames that come
        meanwhile are skipped, never queued)."""
        self._latest = frame
        if not self._due:
            self._due = True
            self.call_later(self._show_latest)

    def _show_latest(self) -> None:
        self._due = False
        frame, self._latest = self._latest, None
        if frame is None or self._view is None:
            return
        try:
            self.show(frame.image())
            self.frames += 1
        except OSError as exc:  # a frame cut short: the next one will do
            log.debug("a watch picture frame could not be drawn: %s", exc)

    def on_unmount(self) -> None:
        self._leave()
