"""`zoom` with the page live and in reach: the picture follows the page as it paints while
the human has control or asked for it (`live`, key l), and while the human has control
the mouse and keys on it act on the page (tui/live.py maps them to `mouse` and `press`
commands, sent as the human's). Without control it is watch-only, and says so."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from PIL import Image as PILImage
from textual.binding import Binding
from textual.widgets import Static

from .config import key_label
from .live import FrameFeed, LivePicture
from .zoom import HalfBlocks, ZoomScreen

REFUSED_EVERY_S = 3.0  # "watch-only" said at most this often while someone keeps trying


class LiveZoomScreen(ZoomScreen):
    """The zoom screen of the cockpit (app.py pushes it for every `zoom`)."""

    BINDINGS = [Binding("l", "toggle_live", "Live", id="zoom.live")]

    def __init__(self, session: Any, zoom: dict[str, Any]) -> None:
        super().__init__(session, zoom)
        self.feed = FrameFeed(session, self, self._frame)
        self.sent: list[str] = []  # the commands its mouse and keys sent (tests read it)
        self._outbox: deque[str] = deque()  # the ones not run yet
        self._sending = False
        self._refused_at = 0.0

    def make_picture(self) -> HalfBlocks:
        return LivePicture(self._send, self._has_control, self._refused, id="zoom-picture")

    @property
    def picture(self) -> LivePicture:
        return self.query_one(LivePicture)

    def on_mount(self) -> None:
        area = self.zoom.get("area") or {}
        self.picture.area = (float(area.get("x", 0)), float(area.get("y", 0)),
                             float(area.get("w", 0)), float(area.get("h", 0)))
        # (Textual runs ZoomScreen.on_mount after this one: the title is set after it)
        self.call_after_refresh(self.sync_live)
        self.picture.focus()

    def on_unmount(self) -> None:
        self.feed.stop()

    # --- who may act, and whether it is live ------------------------------------------
    def _has_control(self) -> bool:
        return bool(getattr(self.app, "human_has_control", False))

    def _wants_live(self) -> bool:
        return bool(getattr(self.app, "live_mode", False)) or self._has_control()

    def sync_live(self) -> None:
        """Follow the page live, or not, as the app's live toggle and control say; and
        say in the title who may act."""
        if self._wants_live():
            self.feed.start()
        elif self.feed.running:
            self.feed.stop()
            self.refresh_picture()  # a still picture again, with its ref labels
        self._title()

    def _title(self) -> None:
        target = self.zoom.get("target")
        handoff = key_label(self.app, "handoff")
        live = "LIVE · " if self.feed.running else ""
        who = (f"you have control: mouse and keys act on the page · {handoff} gives it back"
               if self._has_control() else f"watch-only · {handoff} takes control")
        self.query_one("#zoom-title", Static).update(
            f"Zoom: {target or 'the page'} · {live}{who} · "
            f"{key_label(self.app, 'zoom.close')} returns · "
            f"{key_label(self.app, 'zoom.live')} live · "
            f"{key_label(self.app, 'zoom.labels')} ref labels · "
            f"{key_label(self.app, 'zoom.refresh')} refresh")

    def action_toggle_live(self) -> None:
        app: Any = self.app
        if hasattr(app, "set_live"):
            app.set_live(not app.live_mode)
        else:
            self.sync_live()

    def _refused(self) -> None:
        now = time.monotonic()
        if now - self._refused_at > REFUSED_EVERY_S:
            self._refused_at = now
            self.notify(f"watch-only: {key_label(self.app, 'handoff')} takes control of the "
                        "page, then the mouse and keys act on it", title="Live view",
                        markup=False)

    # --- frames and input ---------------------------------------------------------------
    def _frame(self, image: PILImage.Image, css_width: float | None,
               css_height: float | None) -> None:
        """A new frame of the viewport: cut to the zoomed element's area (an element
        zoom), shown without the ref labels (they were where the page was)."""
        area = self.zoom.get("area") or {}
        css_w = css_width or float(area.get("w") or image.width)
        css_h = css_height or float(area.get("h") or image.height)
        shown: tuple[float, float, float, float] = (0.0, 0.0, css_w, css_h)
        if self.zoom.get("target") and area:
            scale = image.width / css_w
            box = (round(area["x"] * scale), round(area["y"] * scale),
                   round((area["x"] + area["w"]) * scale),
                   round((area["y"] + area["h"]) * scale))
            image = image.crop(box)
            shown = (float(area["x"]), float(area["y"]), float(area["w"]), float(area["h"]))
        self.picture.show_frame(image, shown)
        self.query_one("#zoom-legend", Static).update("")
        self.loaded = True

    def _send(self, line: str) -> None:
        """Queue a command of the picture's: they run one after another, in the order
        they were made (a press before its release); of moves in a row only the newest
        runs (a step takes as long as the page needs to settle)."""
        self.sent.append(line)
        self._outbox.append(line)
        if not self._sending:
            self._sending = True
            self.run_worker(self._drain(), group="live-input", exit_on_error=False)

    async def _drain(self) -> None:
        try:
            while self._outbox:
                line = self._outbox.popleft()
                if line.startswith("mouse move ") and self._outbox and \
                        self._outbox[0].startswith("mouse move "):
                    continue
                await self._run(line)
        finally:
            self._sending = False

    async def _run(self, line: str) -> None:
        # the person's own mouse and keys: while their actions are captured (a handoff,
        # `cockpit record`), what they do becomes steps by role and name, as in a window
        result = await self.session.run(line, source="human", relayed=True)
        if not result.ok:
            self.notify(result.error or "failed", title=line, severity="warning",
                        markup=False)
        if not self.feed.running and not self._outbox:  # a still picture: taken again
            self.refresh_picture()  # to show what it did
