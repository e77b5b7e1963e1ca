"""The live picture of the active tab, for the views that watch it.

Chromium paints frames into its screencast (CDP `Page.startScreencast`), each one
acknowledged (`Page.screencastFrameAck`) before it sends the next: frames come only when
the page paints, so an idle page costs next to nothing (a frame each REFRESH_S). Where
there is no CDP (Firefox, WebKit, a non-Chromium browser attached with --ws-endpoint), a
screenshot is taken periodically and handed on only when it differs from the last one.

It runs only while someone watches: `subscribe` starts it with the first watcher,
the unsubscribe it returns stops it with the last. It follows the active tab.

A stream that stalls is not left showing an old picture: Chromium paints a first frame
when a screencast starts, so one that sends none (or loses a frame's acknowledgement, after
which Chromium sends nothing more) is restarted once, then replaced by screenshots; one
quiet for REFRESH_S is started again; a CDP call that starts or stops it is given
START_S, not forever; screenshots that replaced a stalled screencast give way to a new
one after RETRY_S.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from playwright.async_api import Error as PlaywrightError

from ..base import events as ev
from .streams import START_S, Frame, Screencast, Screenshots, Stream

log = logging.getLogger("cockpit")

MAX_WIDTH, MAX_HEIGHT = 1280, 800  # a frame's pixels at most (the viewport, scaled down)
QUALITY = 70  # JPEG: a 1280x800 page is 60-120 KB a frame
POLL_S = 0.5  # the screenshot fallback's period
FOLLOW_S = 1.0  # how often it looks whether the active tab changed, with no event said so
# quiet this long, a screencast is started again, which sends the page as it is now: a
# stream that stopped sending for a cause nobody reports looks like a page that paints
# nothing, and a picture is never older than this (an idle page: a frame each REFRESH_S)
REFRESH_S = 5.0
# on screenshots because a screencast stalled or would not start: tried again this often,
# as what stalled it (a loaded machine, a page busy for a while) passes, and screenshots
# cost more and show less (two a second)
RETRY_S = 30.0


Listener = Callable[[Frame], None]


class LiveView:
    """The active tab's frames, to whoever subscribes (`page()`: the page to show now,
    or None; `bus`: its tab events make it follow a switch at once)."""

    def __init__(self, page: Callable[[], Any], bus: ev.EventBus | None = None, *,
                 max_width: int = MAX_WIDTH, max_height: int = MAX_HEIGHT,
                 quality: int = QUALITY, poll_s: float = POLL_S) -> None:
        self._page = page
        self._bus = bus
        self.max_width, self.max_height, self.quality = max_width, max_height, quality
        self.poll_s = poll_s
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[Any] | None = None
        self._wake = asyncio.Event()
        self._unsubscribe_bus: Callable[[], None] | None = None
        self.latest: Frame | None = None
        self.frames = 0  # received since the start: the benchmark and tests count them
        self.source: str | None = None  # how frames come now: screencast, screenshot
        self._fell_back: float | None = None  # when screenshots replaced a screencast
        self._late: set[asyncio.Future[None]] = set()  # starts given up on, still going
        self._starting: asyncio.Future[None] | None = None  # a start waited for now
        # `cockpit web`s serving this session's live view, newest last: (its URL without
        # the token, as agents and recordings may see it; with the token, for people)
        self._web: list[tuple[str, str]] = []

    def serve_web(self, url: str, link: str) -> Callable[[], None]:
        """A web view of the page is served at `url` (`link`: the same with its token);
        the call returned says it no longer is."""
        entry = (url, link)
        self._web.append(entry)
        return lambda: self._web.remove(entry) if entry in self._web else None

    @property
    def web_url(self) -> str | None:
        """Where a web view of the page is served (no token: safe to say to an agent
        and to record), or None."""
        return self._web[-1][0] if self._web else None

    @property
    def web_link(self) -> str | None:
        """The served web view's URL with its token: for the person's own faces only."""
        return self._web[-1][1] if self._web else None

    @property
    def watchers(self) -> int:
        return len(self._listeners)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Frames from now on go to `listener` (the last one at once, when there is
        one); the call returned stops them. Call it in the session's event loop."""
        self._listeners.append(listener)
        if self.latest is not None:
            listener(self.latest)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name="cockpit live view")
            if self._bus is not None:
                self._unsubscribe_bus = self._bus.subscribe(self._on_event)
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)
        if not self._listeners:
            self._wake.set()  # the loop sees nobody watches, stops the stream and ends
            if self._unsubscribe_bus is not None:
                self._unsubscribe_bus()
                self._unsubscribe_bus = None

    async def close(self) -> None:
        self._listeners.clear()
        self._wake.set()
        if self._unsubscribe_bus is not None:
            self._unsubscribe_bus()
            self._unsubscribe_bus = None
        task, self._task = self._task, None  # (a second close meanwhile: nothing to end)
        if task is not None:
            if self._starting is not None:  # the browser goes: a start will not end well
                task.cancel()  # (its loop would wait it out, up to START_S)
            try:
                await asyncio.wait_for(task, 5)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        for starting in list(self._late):  # the browser goes: they never will
            starting.cancel()

    def _on_event(self, event: ev.Event) -> None:
        if event.kind in (ev.TAB_CHANGED, ev.TAB_CLOSED, ev.TAB_OPENED):
            self._wake.set()

    def hand_on(self, frame: Frame) -> None:
        self.latest = frame
        self.frames += 1
        for listener in list(self._listeners):
            try:
                listener(frame)
            except Exception:  # a broken view must not stop the others' pictures
                log.exception("a live view listener failed")

    async def _run(self) -> None:
        """While someone watches: stream the active tab's frames, move to another tab
        when it becomes the active one, and replace a stream that stalled."""
        stream: Stream | None = None
        retried: Any = None  # the page whose screencast stalled once already
        try:
            while True:
                if not self._listeners:
                    if stream is not None:
                        await stream.stop()
                        stream, self.source = None, None
                    if not self._listeners:  # nobody came while it stopped: the end
                        return
                page = self._page()
                if page is not None and page.is_closed():
                    page = None
                if stream is not None and stream.page is not page:
                    await stream.stop()
                    stream = None
                if stream is not None and stream.stalled():
                    again = stream.page is not retried
                    log.warning("the live view's screencast stalled (%s): %s", stream.why,
                                "restarting it" if again else "screenshots instead")
                    retried = stream.page
                    await stream.stop()
                    stream = await self._stream(stream.page, screencast=again)
                elif stream is not None and stream.quiet_for() > REFRESH_S:
                    await stream.stop()
                    stream = await self._stream(stream.page, refresh=True)
                elif stream is not None and self._fell_back is not None and \
                        time.perf_counter() - self._fell_back > RETRY_S:
                    log.info("the live view tries its screencast again")
                    stream = await self._retry(stream)
                if stream is None and page is not None:
                    stream = await self._stream(page)
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), FOLLOW_S)
                except TimeoutError:
                    pass
        finally:
            if stream is not None:
                await stream.stop()
            self.source = None

    async def _stream(self, page: Any, *, screencast: bool = True,
                      refresh: bool = False) -> Stream:
        self._fell_back = None
        cast = await self._cast(page, refresh) if screencast else None
        if cast is not None:
            return cast
        if not screencast:  # it stalled: screenshots for now
            self._fell_back = time.perf_counter()
        polled = Screenshots(page, self)
        await polled.start()
        self.source = "screenshot"
        return polled

    async def _cast(self, page: Any, refresh: bool = False) -> Screencast | None:
        """A screencast of the page, started; None when it cannot be (no CDP), or did not
        start in START_S (then tried again after RETRY_S)."""
        cast = Screencast(page, self, refresh)
        # shielded: a start cut short could leave the CDP session it was making attached
        # to the page with nobody to detach it
        starting = self._starting = asyncio.ensure_future(cast.start())
        try:
            await asyncio.wait_for(asyncio.shield(starting), START_S)
        except PlaywrightError as exc:  # no CDP here (Firefox, WebKit): screenshots
            log.debug("no screencast (%s): periodic screenshots", exc)
            await cast.stop()  # a session made before the call that failed
            return None
        except (TimeoutError, asyncio.CancelledError) as exc:
            # given up on (or the view closes meanwhile): stopped once it is done
            cast.abandon(starting)
            self._late.add(starting)
            starting.add_done_callback(self._late.discard)
            if isinstance(exc, asyncio.CancelledError):
                raise
            log.warning("the screencast did not start in %g s: screenshots instead", START_S)
            self._fell_back = time.perf_counter()
            return None
        finally:
            self._starting = None
        self.source = "screencast"
        return cast

    async def _retry(self, polled: Stream) -> Stream:
        """A screencast again where screenshots stood in: they go on while it starts (up
        to START_S), and stop once it has."""
        cast = await self._cast(polled.page)
        if cast is None:
            self._fell_back = time.perf_counter()  # tried again after RETRY_S
            return polled
        await polled.stop()
        return cast
