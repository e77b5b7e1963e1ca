"""The two ways the live view gets its pictures (screencast.py runs them): Chromium's
screencast, a frame each time the page paints, and, where there is no CDP, a screenshot
every `poll_s`, handed on when it changed."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

from PIL import Image
from playwright.async_api import Error as PlaywrightError

from ..base.logs import spawn

log = logging.getLogger("cockpit")

START_S = 5.0  # starting or stopping the screencast (a CDP round trip or two)
FIRST_FRAME_S = 3.0  # a screencast sends its first frame at once; none this long: stalled


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


class Viewer(Protocol):
    """What a stream needs of the view it feeds (screencast.LiveView)."""

    max_width: int
    max_height: int
    quality: int
    poll_s: float
    latest: Frame | None

    def hand_on(self, frame: Frame) -> None: ...


class Stream:
    def __init__(self, page: Any, view: Viewer) -> None:
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


class Screencast(Stream):
    """Chromium's own: a frame when the page paints, sent once the last one was acked."""

    def __init__(self, page: Any, view: Viewer, refresh: bool = False) -> None:
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
        self.abandoned = False  # its start took too long: the view went on without it

    async def start(self) -> None:
        self.started = time.perf_counter()
        self.cdp = await self.page.context.new_cdp_session(self.page)
        self.cdp.on("Page.screencastFrame", self._frame)
        self.cdp.on("Page.screencastVisibilityChanged", self._visibility)
        await self.cdp.send("Page.startScreencast", {
            "format": "jpeg", "quality": self.view.quality,
            "maxWidth": self.view.max_width, "maxHeight": self.view.max_height,
            "everyNthFrame": 1})

    def abandon(self, starting: asyncio.Future[None]) -> None:
        """Its start took too long: it goes on, and what it made is stopped and detached
        once it is done (its frames meanwhile are nobody's)."""
        self.abandoned = True

        def started(task: asyncio.Future[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                log.debug("a late screencast failed to start: %s", task.exception())
            spawn(self.stop(), "stopping a screencast that started late")
        starting.add_done_callback(started)

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
        if self.cdp is None or self.abandoned:  # it stopped, or never was the view's
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


class Screenshots(Stream):
    """Where there is no screencast: a picture every poll_s, handed on when it changed."""

    def __init__(self, page: Any, view: Viewer) -> None:
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
