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
import base64
import hashlib
import io
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

from PIL import Image
from playwright.async_api import Error as PlaywrightError

from ..base import events as ev

log = logging.getLogger("cockpit")

MAX_WIDTH, MAX_HEIGHT = 1280, 800  # a frame's pixels at most (the viewport, scaled down)
QUALITY = 70  # JPEG: a 1280x800 page is 60-120 KB a frame
POLL_S = 0.5  # the screenshot fallback's period
FOLLOW_S = 1.0  # how often it looks whether the active tab changed, with no event said so
START_S = 5.0  # starting or stopping the screencast (a CDP round trip or two)
FIRST_FRAME_S = 3.0  # a screencast sends its first frame at once; none this long: stalled
# quiet this long, a screencast is started again, which sends the page as it is now: a
# stream that stopped sending for a cause nobody reports looks like a page that paints
# nothing, and a picture is never older than this (an idle page: a frame each REFRESH_S)
REFRESH_S = 5.0
# on screenshots because a screencast stalled or would not start: tried again this often,
# as what stalled it (a loaded machine, a page busy for a while) passes, and screenshots
# cost more and show less (two a second)
RETRY_S = 30.0


@dataclass(frozen=True)
class Frame:
    """One picture of the page as it painted. `css_width` x `css_height` is the viewport
    area it shows, in CSS pixels: a view maps a point of the picture to the page's
    coordinates by `css_width / width` (the picture may be scaled down)."""

    data: bytes  # JPEG
    width: int  # pixels of the image
    height: int
    css_width: float
    css_height: float
    received: float  # time.perf_counter() when the core got it
    source: str  # "screencast" or "screenshot"

    def image(self) -> Image.Image:
        picture = Image.open(io.BytesIO(self.data))
        picture.load()
        return picture


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
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 5)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
            self._task = None

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
        stream: _Stream | None = None
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
                    await stream.stop()
                    stream = await self._stream(stream.page)
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
                      refresh: bool = False) -> _Stream:
        self._fell_back = None
        if screencast:
            cast = _Screencast(page, self, refresh)
            try:
                await asyncio.wait_for(cast.start(), START_S)
                self.source = "screencast"
                return cast
            except PlaywrightError as exc:  # no CDP here (Firefox, WebKit): screenshots
                log.debug("no screencast (%s): periodic screenshots", exc)
            except TimeoutError:
                log.warning("the screencast did not start in %g s: screenshots instead",
                            START_S)
                await cast.stop()
                self._fell_back = time.perf_counter()
        else:  # it stalled: screenshots for now
            self._fell_back = time.perf_counter()
        polled = _Screenshots(page, self)
        await polled.start()
        self.source = "screenshot"
        return polled


class _Stream:
    def __init__(self, page: Any, view: LiveView) -> None:
        self.page = page
        self.view = view

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def stalled(self) -> bool:
        return False

    def quiet_for(self) -> float:
        """Seconds since its last frame, when it has sent one and could send more."""
        return 0.0

    @property
    def why(self) -> str:
        return ""


class _Screencast(_Stream):
    """Chromium's own: a frame when the page paints, sent once the last one was acked."""

    def __init__(self, page: Any, view: LiveView, refresh: bool = False) -> None:
        super().__init__(page, view)
        self.cdp: Any = None
        self.acks: set[asyncio.Task[Any]] = set()
        self.started = time.perf_counter()
        self.got = 0  # frames this stream sent
        self.last = self.started  # when the last one came
        # a refresh of a quiet stream: the picture the view showed, which the page's
        # first frame differs from only when the stream before had stalled
        self.shown = view.latest.data if refresh and view.latest is not None else None
        self.unacked = False  # an ack failed on an open page: Chromium sends no more
        self.hidden = False  # Chromium said the page is not shown: it paints nothing

    async def start(self) -> None:
        self.started = time.perf_counter()
        self.cdp = await self.page.context.new_cdp_session(self.page)
        self.cdp.on("Page.screencastFrame", self._frame)
        self.cdp.on("Page.screencastVisibilityChanged", self._visibility)
        await self.cdp.send("Page.startScreencast", {
            "format": "jpeg", "quality": self.view.quality,
            "maxWidth": self.view.max_width, "maxHeight": self.view.max_height,
            "everyNthFrame": 1})

    def stalled(self) -> bool:
        return self.unacked or (not self.hidden and self.got == 0 and
                                time.perf_counter() - self.started > FIRST_FRAME_S)

    def quiet_for(self) -> float:
        return 0.0 if self.hidden or not self.got else time.perf_counter() - self.last

    @property
    def why(self) -> str:
        return "a frame was not acknowledged" if self.unacked else \
            f"no frame in {FIRST_FRAME_S:g} s"

    def _visibility(self, params: dict[str, Any]) -> None:
        # a hidden page (a minimised window, a tab behind another) paints nothing: not a
        # stall, and said, so that a picture that stops is explained
        self.hidden = not params.get("visible")
        log.log(logging.INFO if self.hidden else logging.DEBUG, "the live view's page is %s",
                "hidden: no frames until it is shown" if self.hidden else "shown")

    def _frame(self, params: dict[str, Any]) -> None:
        received = time.perf_counter()
        if self.cdp is None:  # one more came while it stopped: nobody wants it
            return
        self.got += 1
        self.last = received
        # acked at once: Chromium sends the next frame only after it
        ack = asyncio.ensure_future(self.cdp.send("Page.screencastFrameAck",
                                                  {"sessionId": params["sessionId"]}))
        self.acks.add(ack)
        ack.add_done_callback(self._acked)
        data = base64.b64decode(params["data"])
        if self.got == 1 and self.shown is not None and data != self.shown:
            log.info("the live view's screencast had stopped sending: the page changed "
                     "while it was quiet")
        meta = params.get("metadata") or {}
        try:
            width, height = Image.open(io.BytesIO(data)).size  # the header only
        except OSError as exc:
            log.warning("a screencast frame could not be read: %s", exc)
            return
        # the CSS pixels the picture covers: the screen's, over the page's scale (a
        # phone shows a page with no mobile viewport zoomed out, 980 px in 390)
        scale = float(meta.get("pageScaleFactor") or 1) or 1.0
        self.view.hand_on(Frame(data, width, height,
                                 float(meta.get("deviceWidth") or width) / scale,
                                 float(meta.get("deviceHeight") or height) / scale,
                                 received, "screencast"))

    def _acked(self, task: asyncio.Task[Any]) -> None:
        self.acks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        log.debug("a screencast frame was not acked: %s", task.exception())
        if self.cdp is not None and not self.page.is_closed():  # else: the page closed
            self.unacked = True

    async def stop(self) -> None:
        cdp, self.cdp = self.cdp, None
        if cdp is None:
            return
        try:
            await asyncio.wait_for(self._stop(cdp), START_S)
        except PlaywrightError as exc:  # the page or browser is gone: nothing to stop
            log.debug("stopping the screencast: %s", exc)
        except TimeoutError:
            log.warning("the screencast did not stop in %g s: left to the page", START_S)

    @staticmethod
    async def _stop(cdp: Any) -> None:
        await cdp.send("Page.stopScreencast")
        await cdp.detach()


class _Screenshots(_Stream):
    """Where there is no screencast: a picture every poll_s, handed on when it changed."""

    def __init__(self, page: Any, view: LiveView) -> None:
        super().__init__(page, view)
        self.task: asyncio.Task[Any] | None = None

    async def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        last = b""
        while True:
            try:
                data = await self.page.screenshot(type="jpeg", quality=self.view.quality,
                                                  timeout=5000)
                # the layout viewport, not the emulated screen: they differ on a phone
                # showing a page zoomed out
                size = await self.page.evaluate(
                    "() => ({width: innerWidth, height: innerHeight})")
            except PlaywrightError as exc:  # navigating, a dialog, closed: the next one
                log.debug("no live screenshot: %s", exc)
            else:
                digest = hashlib.blake2b(data, digest_size=16).digest()
                if digest != last:
                    last = digest
                    picture = Image.open(io.BytesIO(data))
                    self.view.hand_on(Frame(data, picture.width, picture.height,
                                             float(size["width"]), float(size["height"]),
                                             time.perf_counter(), "screenshot"))
            await asyncio.sleep(self.view.poll_s)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
            self.task = None
