"""The live picture of the session under `watch`'s cursor: its page as it paints, in
half blocks, so a person sees what the agent sees before attaching.

One session's frames at a time (the highlighted one): each watched session would run a
screencast of its own, and ten of them would cost the machine what the agents need. The
frames come over the session's socket (`frames`, control/frames.py) and only while the
page paints, so an idle session watched costs next to nothing. They are drawn by the
TUI's one FrameFeed (live.py), as the Page pane and the zoom draw theirs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage
from textual.timer import Timer

from ..control.frames import RemoteLiveView
from .live import FrameFeed
from .zoom import HalfBlocks

FOLLOW_AFTER_S = 0.3


@dataclass(frozen=True)
class _Watched:
    """What FrameFeed asks of a session, for one seen from `watch`: its live view over
    the socket."""

    live_view: RemoteLiveView


class WatchPicture(HalfBlocks):
    """The picture; `follow(info)` moves it to another session (None: to none)."""

    DEFAULT_CSS = """
    WatchPicture { width: 48; height: 100%; border-left: solid $secondary; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.following: str | None = None  # the socket of the session shown
        self.frames = 0  # frames drawn since it followed that session
        self._feed: FrameFeed | None = None
        self._coming: Timer | None = None  # the stream's start, once the cursor rests

    def follow(self, info: Any | None) -> None:
        socket = str(info.socket) if info is not None else None
        if socket == self.following:
            return
        self._leave()
        self.following, self.frames = socket, 0
        self.show(None)
        if info is not None and self.display:
            # once the cursor rests there: a person going down the rows would otherwise
            # start (and stop) a screencast in each session passed over
            self._coming = self.set_timer(FOLLOW_AFTER_S, lambda: self._stream(info))

    def _stream(self, info: Any) -> None:
        self._coming = None
        if str(info.socket) == self.following and self._feed is None:
            self._feed = FrameFeed(_Watched(RemoteLiveView(info)), self, self._picture)
            self._feed.start()

    def _leave(self) -> None:
        if self._coming is not None:
            self._coming.stop()
            self._coming = None
        if self._feed is not None:
            self._feed.stop()  # the last listener gone: the stream and the screencast end
        self._feed = None
        self.following = None

    def _picture(self, image: PILImage.Image, css_width: float | None,
              css_height: float | None) -> None:
        self.show(image)
        self.frames += 1

    def on_unmount(self) -> None:
        self._leave()
