"""The live picture (core/live/screencast.py): Chromium's screencast runs only while a
view watches, hands on a frame when the page paints (each acknowledged, so they keep
coming), follows the active tab, and stops with the last watcher; where there is no CDP,
periodic screenshots are handed on when they change."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

from cockpit.core.live import screencast, streams
from conftest import ok, page

STILL = page("live-still", "<style>body{margin:0;background:rgb(255,255,255)}</style>")


async def until(check, seconds: float = 10.0, view=None) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    state = "" if view is None else \
        f": {view.frames} frames by {view.source}, {view.watchers} watching"
    raise AssertionError("never happened" + state)


def only_frames_of(monkeypatch, passes) -> list:
    """A screencast made to stall: a cast's frames reach the view only when
    `passes(n, cast)` (n: the cast's place among those started). The casts, in order."""
    original = streams.Screencast._frame
    casts: list = []

    def gated(self, params) -> None:
        if self not in casts:
            casts.append(self)
        if passes(casts.index(self), self):
            original(self, params)
    monkeypatch.setattr(streams.Screencast, "_frame", gated)
    return casts


@contextlib.contextmanager
def watching(view):
    """The frames the view hands a watcher, while the block runs."""
    frames: list = []
    stop = view.subscribe(frames.append)
    try:
        yield frames
    finally:
        stop()


def colour_of(frame) -> tuple[int, int, int]:
    return frame.image().convert("RGB").getpixel((frame.width - 5, frame.height - 5))


def near(got: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(got, want))  # JPEG


async def paint(s, rgb: tuple[int, int, int]) -> None:
    await s.active.page.evaluate(f"document.body.style.background = 'rgb{rgb}'")


async def test_frames_come_while_watched_when_the_page_paints_and_stop_after(s, base):
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    assert view.source is None and view.watchers == 0  # nobody watches: no stream
    frames: list = []
    stop = view.subscribe(frames.append)
    try:
        await until(lambda: view.source == "screencast" and frames, view=view)
        for rgb in [(200, 30, 30), (30, 200, 30), (30, 30, 200)]:  # each acked: all come
            await paint(s, rgb)
            await until(lambda rgb=rgb: near(colour_of(frames[-1]), rgb), view=view)
        last = frames[-1]
        assert (last.css_width, last.css_height) == (s.active.page.viewport_size["width"],
                                                     s.active.page.viewport_size["height"])
        # an idle page paints nothing: no frame comes
        await asyncio.sleep(0.3)
        seen = len(frames)
        await asyncio.sleep(1.0)
        assert len(frames) == seen
        # a second watcher gets the last frame at once, and the same stream
        second: list = []
        stop_second = view.subscribe(second.append)
        assert second == [frames[-1]] and view.watchers == 2
        stop_second()
        assert view.source == "screencast"
    finally:
        stop()
    await until(lambda: view.source is None)  # the last watcher gone: the stream stopped
    count = view.frames
    await paint(s, (200, 200, 30))
    await asyncio.sleep(0.5)
    assert view.frames == count


async def test_the_view_follows_the_active_tab(s, base):
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    frames: list = []
    stop = view.subscribe(frames.append)
    try:
        await until(lambda: frames)
        await ok(s, f"newtab {base}{STILL}")
        await paint(s, (10, 120, 240))
        await until(lambda: near(colour_of(frames[-1]), (10, 120, 240)))
        await ok(s, "tab 1")
        await paint(s, (240, 120, 10))
        await until(lambda: near(colour_of(frames[-1]), (240, 120, 10)))
    finally:
        stop()


async def test_without_cdp_screenshots_are_handed_on_when_they_change(s, base, monkeypatch):
    async def no_cdp(self) -> None:
        raise PlaywrightError("CDP session is only available in Chromium")
    monkeypatch.setattr(streams.Screencast, "start", no_cdp)
    view = screencast.LiveView(lambda: s.active.page, s.bus, poll_s=0.1)
    await ok(s, f"goto {base}{STILL}")
    frames: list = []
    stop = view.subscribe(frames.append)
    try:
        await until(lambda: view.source == "screenshot" and frames)
        await asyncio.sleep(0.5)
        assert len(frames) == 1  # the same picture again is not handed on
        await paint(s, (120, 10, 200))
        await until(lambda: near(colour_of(frames[-1]), (120, 10, 200)))
        assert frames[-1].source == "screenshot"
    finally:
        stop()
        await view.close()


async def test_frames_go_on_after_a_navigation_to_another_site(s, base, site):
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    frames: list = []
    stop = view.subscribe(frames.append)
    try:
        await until(lambda: frames)
        other = site.url.replace("127.0.0.1", "localhost")  # another site: another process
        await ok(s, f"goto {other}/")
        await ok(s, f"goto {base}{STILL}")
        await paint(s, (20, 220, 220))
        await until(lambda: near(colour_of(frames[-1]), (20, 220, 220)))
    finally:
        stop()


async def test_a_watcher_who_comes_while_the_stream_stops_gets_the_page(s, base, monkeypatch):
    """A view closed and opened again at once (a web page reloaded, a pane toggled): the
    new watcher came while the last stream was stopping, and must get a stream of its own."""
    stopping = asyncio.Event()
    original = streams.Screencast.stop

    async def slow_stop(self) -> None:
        stopping.set()
        await asyncio.sleep(0.3)
        await original(self)
    monkeypatch.setattr(streams.Screencast, "stop", slow_stop)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    first: list = []
    stop_first = view.subscribe(first.append)
    await until(lambda: view.source == "screencast" and first, view=view)
    stop_first()
    await asyncio.wait_for(stopping.wait(), 5)
    again: list = []
    stop_again = view.subscribe(again.append)
    try:
        await asyncio.sleep(0.5)  # the stream that was stopping has stopped
        await paint(s, (220, 40, 160))
        await until(lambda: again and near(colour_of(again[-1]), (220, 40, 160)), view=view)
    finally:
        stop_again()
    await until(lambda: view.source is None, view=view)


async def test_a_screencast_that_sends_no_frame_is_restarted(s, base, monkeypatch):
    """Chromium paints a first frame when a screencast starts; one that sends nothing has
    stalled, and a view must not go on showing nothing (or an old picture)."""
    monkeypatch.setattr(streams, "FIRST_FRAME_S", 0.5)
    casts = only_frames_of(monkeypatch, lambda n, cast: n > 0)  # the first one is mute
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await paint(s, (40, 160, 220))
        await until(lambda: frames and near(colour_of(frames[-1]), (40, 160, 220)), view=view)
        assert view.source == "screencast" and len(casts) == 2  # restarted, not replaced


async def test_screenshots_give_way_to_a_screencast_again(s, base, monkeypatch):
    """A screencast that stalled twice gave way to screenshots (two a second, at more cost);
    what stalled it may pass (a loaded machine), so a new screencast is tried later."""
    monkeypatch.setattr(streams, "FIRST_FRAME_S", 0.5)
    monkeypatch.setattr(screencast, "RETRY_S", 1.5)
    casts = only_frames_of(monkeypatch, lambda n, cast: n >= 2)  # the first two are mute
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await until(lambda: view.source == "screenshot", view=view)  # stalled twice
        await until(lambda: view.source == "screencast" and len(casts) == 3, view=view)
        await paint(s, (200, 40, 120))
        await until(lambda: frames and frames[-1].source == "screencast"
                    and near(colour_of(frames[-1]), (200, 40, 120)), view=view)


async def test_a_frame_not_acknowledged_restarts_the_stream(s, base, monkeypatch):
    """Chromium sends the next frame only once the last was acknowledged: one ack lost
    (the CDP session broke) and the stream would show that frame for ever."""
    original = streams.Screencast.start
    casts: list = []

    async def first_cast_loses_acks(self) -> None:
        await original(self)
        casts.append(self)
        if len(casts) == 1:
            send = self.cdp.send

            async def no_ack(method, params=None):
                if method == "Page.screencastFrameAck":
                    raise PlaywrightError("Target closed")
                return await send(method, params)
            self.cdp.send = no_ack
    monkeypatch.setattr(streams.Screencast, "start", first_cast_loses_acks)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await until(lambda: frames, view=view)
        # Chromium lets a few frames go unacknowledged before it waits: more than that
        for rgb in [(90, 200, 60), (200, 90, 60), (60, 90, 200), (200, 200, 60),
                    (60, 200, 200), (200, 60, 200)]:
            await paint(s, rgb)
            await until(lambda rgb=rgb: near(colour_of(frames[-1]), rgb), view=view)
        assert len(casts) == 2 and view.source == "screencast"


async def test_a_screencast_that_does_not_start_gives_way_to_screenshots(s, base,
                                                                          monkeypatch):
    """A CDP call that never answers must not leave the view empty for ever."""
    monkeypatch.setattr(screencast, "START_S", 0.5)

    async def hangs(self) -> None:
        await asyncio.sleep(60)
    monkeypatch.setattr(streams.Screencast, "start", hangs)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await paint(s, (250, 200, 20))
        await until(lambda: frames and near(colour_of(frames[-1]), (250, 200, 20)), view=view)
        assert view.source == "screenshot"
    await until(lambda: view.source is None, view=view)


async def test_a_screencast_that_starts_late_leaves_nothing_attached(s, base, monkeypatch):
    """A start given up on after START_S goes on in the background: the CDP session it
    was making is stopped and detached once it comes (before, the cut-short start left it
    attached to the page, and nobody held it to detach it); the view shows screenshots."""
    monkeypatch.setattr(screencast, "START_S", 0.5)
    casting = contextvars.ContextVar("casting", default=False)
    made: list[dict] = []
    start, new_session = streams.Screencast.start, BrowserContext.new_cdp_session

    async def marked_start(self) -> None:
        casting.set(True)  # (the start runs in a task of its own: its context only)
        await start(self)

    async def late_session(self, page):
        cdp = await new_session(self, page)
        if not casting.get():
            return cdp
        made.append(record := {"detached": False})
        detach = cdp.detach

        async def detached() -> None:
            record["detached"] = True
            await detach()
        cdp.detach = detached
        if len(made) == 1:
            await asyncio.sleep(1.5)  # the session exists; the view gives up meanwhile
        return cdp
    monkeypatch.setattr(streams.Screencast, "start", marked_start)
    monkeypatch.setattr(BrowserContext, "new_cdp_session", late_session)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await until(lambda: view.source == "screenshot", view=view)
        await until(lambda: made and made[0]["detached"], view=view)
        await paint(s, (40, 160, 90))
        await until(lambda: frames and near(colour_of(frames[-1]), (40, 160, 90)), view=view)
        assert view.source == "screenshot"
    await until(lambda: view.source is None, view=view)


async def test_a_view_closed_while_a_screencast_starts_stops_that_start_at_once(
        s, base, monkeypatch):
    """The session ends (Ctrl+Q, a browser gone) while a screencast's start hangs: the
    view closes at once rather than waiting START_S for a start whose browser is going,
    and that start is stopped, not left running after the session."""
    monkeypatch.setattr(screencast, "START_S", 20.0)
    starts: list[str] = []

    async def hangs(self) -> None:
        starts.append("waiting")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            starts.append("stopped")
            raise
    monkeypatch.setattr(streams.Screencast, "start", hangs)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    frames: list = []
    view.subscribe(frames.append)
    await until(lambda: starts, view=view)
    closing = asyncio.ensure_future(view.close())
    await until(closing.done, seconds=2.5, view=view)  # (it waited 5 s for the loop)
    await until(lambda: starts == ["waiting", "stopped"], seconds=2.0, view=view)
    assert view.source is None


async def test_screenshots_go_on_while_a_screencast_is_tried_again(s, base, monkeypatch):
    """Screenshots stood in for a screencast that would not start; trying one again (each
    RETRY_S) must not leave the view without pictures while that start is waited for."""
    monkeypatch.setattr(screencast, "START_S", 3.0)
    monkeypatch.setattr(screencast, "RETRY_S", 0.5)
    tries: list[object] = []

    async def never_starts(self) -> None:
        tries.append(self)
        await asyncio.sleep(60)
    monkeypatch.setattr(streams.Screencast, "start", never_starts)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await until(lambda: view.source == "screenshot", view=view)
        await until(lambda: len(tries) >= 2, view=view)  # a retry's start is under way
        await paint(s, (170, 30, 200))
        # shown while the retry's start is waited for (3 s), by the screenshots that go on
        await until(lambda: near(colour_of(frames[-1]), (170, 30, 200)), seconds=2.5,
                    view=view)
        assert len(tries) == 2 and view.source == "screenshot"
    await until(lambda: view.source is None, view=view)  # the retry given up, it stopped


async def test_a_stream_that_goes_quiet_is_started_again(s, base, monkeypatch, caplog):
    """A stream that stops sending for a cause nobody reports looks like a page that
    paints nothing: started again after a quiet while, it sends the page as it is now."""
    monkeypatch.setattr(screencast, "REFRESH_S", 1.0)
    caplog.set_level(logging.INFO, logger="cockpit")
    # the first cast sends one frame, then nothing
    casts = only_frames_of(monkeypatch, lambda n, cast: n > 0 or cast.got == 0)
    view = s.live_view
    await ok(s, f"goto {base}{STILL}")
    with watching(view) as frames:
        await until(lambda: casts and casts[0].got == 1, view=view)  # its one frame
        await paint(s, (130, 60, 20))
        await until(lambda: near(colour_of(frames[-1]), (130, 60, 20)), view=view)
        assert len(casts) >= 2 and view.source == "screencast"
        assert caplog.text.count("had stopped sending") == 1  # the log says why it jumped
        await asyncio.sleep(2.5)  # quiet, unchanged: started again, and nothing said
        assert len(casts) >= 3 and caplog.text.count("had stopped sending") == 1
        assert near(colour_of(frames[-1]), (130, 60, 20))
