"""One small picture of the page after each step, kept beside the recording for its HTML
report (`cockpit report`): `<recording>.shots/0001.jpg`, ...

Half-scale JPEGs through the DevTools protocol: about 5 KB and 30 ms a step, where
Playwright's own screenshot takes ~150 ms (it waits for fonts and animations). The
viewport is captured at its own scale and halved here: asked for a scaled picture,
Chromium changes the page's device metrics for a moment, and its screencast (the live
view, the video) sent that on as a half-size frame, which put the live view's clicks at
half their place. Pictures
are files beside the recording, not base64 inside it, so the .jsonl stays small and
readable line by line. Steps that change nothing (read-only ones) get none, except an
expectation that failed: its picture is what it found. Password fields are dots on the
page, so they are dots in the picture; the folder and files are the owner's only."""

from __future__ import annotations

import asyncio
import base64
import io
import logging
import os
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..core import EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from ..core import CommandSpec, Ran, Result

log = logging.getLogger("cockpit.record")

SCALE = 0.5  # of the viewport's CSS pixels
QUALITY = 55
TIMEOUT_S = 1.0  # a page that does not paint in this long gets no picture of this step
# pictures that timed out in a row before the recording stops taking them: a window that
# never paints (a browser we attached to, minimised) must not slow every step down
GIVE_UP_AFTER = 3
SUFFIX = ".shots"


def shots_dir(recording: Path) -> Path:
    """Where a recording's pictures are: `walk.jsonl` -> `walk.shots/`."""
    return recording.with_name(recording.stem + SUFFIX)


def wanted(result: Result, spec: CommandSpec | None) -> bool:
    """Whether a step gets a picture: it ran on a page (ok, or failed on it) and it may
    have changed the page; or it is an expectation that did not hold."""
    if spec is None or not spec.needs_tab or result.exit_code not in (EXIT_OK, EXIT_FAILED):
        return False
    if spec.read_only:
        return spec.asserts and not result.ok
    return True


class Shots:
    """Takes the pictures of a local session's steps (the last of its after-steps)."""

    def __init__(self, session: Any, recording: Path) -> None:
        self.session = session
        self.dir = shots_dir(recording)
        self.taken = 0
        self.timeouts = 0  # in a row
        self._cdp: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    async def after_step(self, result: Result, ran: Ran) -> Result:
        """The result with its step's picture named in its data (`shot`, relative to the
        recording's folder), which the recorder writes into the step's record: the last
        of the session's after-steps, so the page is still the one the step left."""
        if not wanted(result, ran.command.spec) or self.timeouts >= GIVE_UP_AFTER:
            return result
        tab = getattr(self.session, "active", None)
        if tab is None or tab.dialog is not None or tab.page.is_closed():
            return result  # a dialog blocks painting: no picture rather than a stuck step
        try:
            jpeg = await asyncio.wait_for(self._capture(tab.page), TIMEOUT_S)
        except TimeoutError:
            self.timeouts += 1
            if self.timeouts >= GIVE_UP_AFTER:
                log.warning("the page painted no picture in %g s, %d times in a row: this "
                            "recording takes no more pictures", TIMEOUT_S, self.timeouts)
            return result
        except PlaywrightError as exc:
            log.info("no picture of `%s`: %s", result.command.split(" ", 1)[0], exc)
            return result
        self.timeouts = 0
        try:
            name = self._write(jpeg)
        except OSError as exc:  # the recording goes on without pictures
            log.warning("could not write a step's picture into %s: %s", self.dir, exc)
            return result
        return result.but(data={**result.data, "shot": f"{self.dir.name}/{name}"})

    async def _capture(self, page: Any) -> bytes:
        cdp = self._cdp.get(page)
        if cdp is None:
            try:
                cdp = self._cdp[page] = await page.context.new_cdp_session(page)
            except PlaywrightError:  # not Chromium: Playwright's own, slower picture
                return await page.screenshot(type="jpeg", quality=QUALITY, scale="css",
                                             animations="allow", caret="initial")
        metrics = await cdp.send("Page.getLayoutMetrics")
        view = metrics["cssVisualViewport"]
        shot = await cdp.send("Page.captureScreenshot", {
            "format": "jpeg", "quality": 80,  # halved below, where its quality is set
            "clip": {"x": view["pageX"], "y": view["pageY"], "width": view["clientWidth"],
                     "height": view["clientHeight"], "scale": 1}})
        return await asyncio.to_thread(scaled, base64.b64decode(shot["data"]))

    def _write(self, jpeg: bytes) -> str:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.taken += 1
        name = f"{self.taken:04d}.jpg"
        fd = os.open(self.dir / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(jpeg)
        return name


def scaled(jpeg: bytes, scale: float = SCALE) -> bytes:
    """The picture at `scale` of its size, as a JPEG of QUALITY."""
    from PIL import Image
    with Image.open(io.BytesIO(jpeg)) as picture:
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture.draft("RGB", size)  # decoded at that scale already (JPEG's DCT scaling)
        out = io.BytesIO()
        shown = picture if picture.size == size else picture.resize(
            size, Image.Resampling.BILINEAR)
        shown.convert("RGB").save(out, "JPEG", quality=QUALITY)
    return out.getvalue()
