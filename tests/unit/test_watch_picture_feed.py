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


class _Timer:
    def __init__(self, delay: float, callback: Any) -> None:
        self.delay, self.callback, self.stopped = delay, callback, False

    def stop(self) -> None:
        self.stopped = True


def test_the_watch_picture_follows_a_session_through_frame_feed(monkeypatch):
    monkeypatch.setattr(watch_picture, "RemoteLiveView", _View)
    started: list[FrameFeed] = []
    monkeypatch.setattr(FrameFeed, "start", lambda feed: started.append(feed))
    timers: list[_Timer] = []
    monkeypatch.setattr(watch_picture.WatchPicture, "set_timer",
                        lambda self, delay, callback: timers.append(_Timer(delay, callback))
                        or timers[-1])
    picture = watch_picture.WatchPicture()
    # the cursor passes over a session: no stream is started there
    picture.follow(SimpleNamespace(socket="/tmp/passed.sock"))
    picture.follow(SimpleNamespace(socket="/tmp/a.sock"))
    assert timers[0].stopped and not started
    # it rests on the next one: once the timer fires, that one streams
    assert picture.following == "/tmp/a.sock"
    assert timers[1].delay == watch_picture.FOLLOW_AFTER_S
    timers[1].callback()
    assert len(started) == 1 and isinstance(started[0].session.live_view, _View)
    picture.follow(None)
    assert picture.following is None
