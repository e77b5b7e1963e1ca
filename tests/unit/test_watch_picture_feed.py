"""watch's live picture is drawn by the TUI's one FrameFeed (the newest frame at the
app's next free moment), not by a copy of its logic."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import cockpit.tui.watch_picture as watch_picture
from cockpit.tui.live import FrameFeed


class _View:
    def __init__(self, info: Any) -> None:
        self.listeners: list[Any] = []

    def subscribe(self, listener: Any) -> Any:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)


def test_the_watch_picture_follows_a_session_through_frame_feed(monkeypatch):
    monkeypatch.setattr(watch_picture, "RemoteLiveView", _View)
    started: list[FrameFeed] = []
    monkeypatch.setattr(FrameFeed, "start", lambda feed: started.append(feed))
    picture = watch_picture.WatchPicture()
    picture.follow(SimpleNamespace(socket="/tmp/a.sock"))
    assert picture.following == "/tmp/a.sock"
    assert len(started) == 1 and isinstance(started[0].session.live_view, _View)
    picture.follow(None)
    assert picture.following is None
