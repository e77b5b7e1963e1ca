"""The live picture in the TUI: the page's frames as it paints (the local session's
screencast, or pictures asked over the socket every moment by an attached cockpit), and
the picture as a place to act on the page: a press, the moves while it is held and the
release on its cells become `mouse down|move|up` commands at the CSS pixels under them,
sent as they happen (a double-click is a second press counted 2), the wheel `mouse
wheel`, keys `press`.

Input counts as the human's and is sent only while the human has control (a handoff,
F10); otherwise the picture is watch-only and the zoom screen says so."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage
from textual import events
from textual.timer import Timer

from ..core import join, positional
from .zoom import HalfBlocks

log = logging.getLogger("cockpit")

DOUBLE_S = 0.5  # a second press on the same cell within this is a double-click's
WHEEL_S = 0.08  # wheel notches within this are sent as one `mouse wheel`
WHEEL_PX = 100  # CSS pixels a notch scrolls (what a browser does for one notch)
POLL_S = 0.5  # an attached cockpit's picture of the page, asked this often
# Textual's mouse buttons, as `mouse --button` names them
BUTTONS = {1: "left", 2: "middle", 3: "right"}
# Textual's key names that are Playwright's under another name
KEYS = {"enter": "Enter", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
        "left": "ArrowLeft", "right": "ArrowRight", "up": "ArrowUp", "down": "ArrowDown",
        "home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown",
        "space": "Space", "insert": "Insert", "escape": "Escape"}
MODIFIERS = {"ctrl": "Control", "shift": "Shift", "alt": "Alt", "meta": "Meta"}
# keys that stay the cockpit's while the picture has the focus: leaving, the F-keys
# (F10 gives control back) and quitting
OURS = {"escape", "ctrl+q"} | {f"f{n}" for n in range(1, 25)}

Area = tuple[float, float, float, float]  # x, y, width, height in CSS px of the viewport


def cell_to_css(col: int, row: int, cells: tuple[int, int, int, int], pixel_rows: int,
                area: Area) -> tuple[float, float] | None:
    """The CSS pixel of the viewport under a terminal cell of a half-block picture.

    `cells`: where the picture is drawn in its widget (left, top, width in cells = image
    pixels across, height in cell rows); `pixel_rows`: the scaled image's rows, two per
    cell row (one per half block); `area`: what the picture shows, in CSS px. The point
    is the middle of the cell (between its two pixel rows); None outside the picture."""
    left, top, width, rows = cells
    if width <= 0 or pixel_rows <= 0 or not (left <= col < left + width
                                            and top <= row < top + rows):
        return None
    x0, y0, css_w, css_h = area
    x = x0 + (col - left + 0.5) * css_w / width
    y = y0 + min(2 * (row - top) + 1, pixel_rows) * css_h / pixel_rows
    return round(x, 1), round(y, 1)


def press_line(event: events.Key) -> str | None:
    """The `press` command for a key typed on the picture (None: not one to send)."""
    if event.is_printable and event.character and event.key not in ("space",) \
            and "+" not in event.key.replace("plus", ""):
        return join(["press", *positional(event.character)])
    *mods, name = event.key.split("+")
    key = KEYS.get(name, name if len(name) == 1 else None)
    if key is None or any(m not in MODIFIERS for m in mods):
        return None
    return join(["press", "+".join([*(MODIFIERS[m] for m in mods), key])])


def _number(value: float) -> str:
    return f"{value:g}"


def _pressed(button: int, count: int) -> list[str]:
    """The --button and --count words of a press or release."""
    words = []
    if BUTTONS.get(button, "left") != "left":
        words += ["--button", BUTTONS[button]]
    if count > 1:
        words += ["--count", str(count)]
    return words


class LivePicture(HalfBlocks):
    """A half-block picture that acts on the page where the human has control: mouse
    events on it become `mouse` commands through `send`, keys become `press`."""

    can_focus = True

    def __init__(self, send: Callable[[str], None], allowed: Callable[[], bool],
                 refused: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.send = send
        self.allowed = allowed
        self.refused = refused
        self.area: Area = (0.0, 0.0, 0.0, 0.0)  # what the picture shows, in CSS px
        # the press being held: its cell, CSS point, button and place in a run of clicks
        self._pressed: tuple[tuple[int, int], tuple[float, float], int, int] | None = None
        self._moved = False  # the held press has moved off its cell: a drag
        # the last press: cell, button, place in a run of clicks, when (a double-click's)
        self._last: tuple[tuple[int, int], int, int, float] | None = None
        self._wheel = 0
        self._wheel_timer: Timer | None = None
        self.pointer: tuple[float, float] | None = None  # where `mouse` last put it

    def show_frame(self, image: PILImage.Image, area: Area) -> None:
        self.area = area
        self.show(image)

    @property
    def pixel_rows(self) -> int:
        return self.scaled[1]

    def css_at(self, col: int, row: int) -> tuple[float, float] | None:
        return cell_to_css(col, row, self.cells, self.pixel_rows, self.area)

    def _may(self) -> bool:
        if self.allowed():
            return True
        self.refused()
        return False

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A press goes to the page at once, with its place in a run of clicks: a second
        press on the same cell within DOUBLE_S is click 2 (the page sees a double-click),
        so nothing waits to tell one from the other."""
        point = self.css_at(event.x, event.y)
        if point is None or not self._may():
            return
        event.stop()
        self.capture_mouse()
        cell, now = (event.x, event.y), time.monotonic()
        last = self._last
        count = min(last[2] + 1, 3) if last is not None and last[0] == cell and \
            last[1] == event.button and now - last[3] <= DOUBLE_S else 1
        self._last = (cell, event.button, count, now)
        self._pressed = (cell, point, event.button, count)
        self._moved = False
        self.pointer = point
        self.send(" ".join(["mouse", "down", *map(_number, point),
                            *_pressed(event.button, count)]))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """With the button held, the pointer's way goes to the page as it is made (the
        sender keeps the newest move of a run): a slider or a map follows the hand."""
        pressed = self._pressed
        if pressed is None or ((event.x, event.y) == pressed[0] and not self._moved):
            return
        point = self._clamped(event.x, event.y)
        if point is None or point == self.pointer:
            return
        event.stop()
        self._moved = True
        self._last = None  # a drag is no click of a double-click
        self.pointer = point
        self.send("mouse move " + " ".join(map(_number, point)))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.release_mouse()
        pressed, self._pressed = self._pressed, None
        if pressed is None:
            return
        event.stop()
        _, _, button, count = pressed
        words = ["mouse", "up"]
        if self._moved or (event.x, event.y) != pressed[0]:
            end = self._clamped(event.x, event.y)
            if end is not None:
                self._last = None
                self.pointer = end
                words += map(_number, end)
        self.send(" ".join([*words, *_pressed(button, count)]))

    def _clamped(self, col: int, row: int) -> tuple[float, float] | None:
        """The CSS pixel under a cell; outside the picture, at its nearest edge."""
        left, top, width, rows = self.cells
        return self.css_at(min(max(col, left), left + width - 1),
                           min(max(row, top), top + rows - 1))

    def _scrolled(self, event: events.MouseScrollDown | events.MouseScrollUp,
                  notches: int) -> None:
        point = self.css_at(event.x, event.y)
        if point is None or not self._may():
            return
        event.stop()
        if self.pointer != point:  # the wheel scrolls what is under the mouse
            self._flush_wheel()
            self.pointer = point
            self.send(f"mouse move {_number(point[0])} {_number(point[1])}")
        self._wheel += notches * WHEEL_PX
        if self._wheel_timer is None:
            self._wheel_timer = self.set_timer(WHEEL_S, self._flush_wheel)

    def _flush_wheel(self) -> None:
        if self._wheel_timer is not None:
            self._wheel_timer.stop()
            self._wheel_timer = None
        if self._wheel:
            self.send(f"mouse wheel 0 {self._wheel}")
            self._wheel = 0

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scrolled(event, 1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scrolled(event, -1)

    def on_key(self, event: events.Key) -> None:
        if event.key in OURS or not self.allowed():
            return  # the screen's and the app's keys (Escape leaves, F10, l, t, r)
        line = press_line(event)
        if line is None:
            return
        event.stop()
        event.prevent_default()
        self.send(line)


class FrameFeed:
    """The page's frames for a view while it shows them: the local session's live view
    (Chromium's screencast, or its screenshots), else (an attached cockpit) a picture
    asked every POLL_S. `deliver(image, css_width, css_height)` gets the newest, once the
    app is free to draw it (css sizes None: the picture's own pixels)."""

    def __init__(self, session: Any, owner: Any,
                 deliver: Callable[[PILImage.Image, float | None, float | None], None]
                 ) -> None:
        self.session = session
        self.owner = owner  # the widget or screen whose timers and workers it uses
        self.deliver = deliver
        self._stop: Callable[[], None] | None = None
        self._timer: Timer | None = None
        self._latest: Any = None
        self._due = False

    @property
    def running(self) -> bool:
        return self._stop is not None or self._timer is not None

    def start(self) -> None:
        if self.running:
            return
        view = getattr(self.session, "live_view", None)
        if view is not None:
            self._stop = view.subscribe(self._frame)
        else:
            self._timer = self.owner.set_interval(POLL_S, self._poll)
            self._poll()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _frame(self, frame: Any) -> None:
        """From the session (the same event loop): drawn at the app's next free moment,
        the newest only (frames that came meanwhile are skipped)."""
        self._latest = frame
        if not self._due:
            self._due = True
            self.owner.call_later(self._draw)

    def _draw(self) -> None:
        self._due = False
        frame, self._latest = self._latest, None
        if frame is None or not self.running:
            return
        try:
            self.deliver(frame.image(), frame.css_width, frame.css_height)
        except OSError as exc:  # a frame cut short: the next one will do
            log.debug("a live frame could not be drawn: %s", exc)

    def _poll(self) -> None:
        self.owner.run_worker(self._picture(), group="live-poll", exclusive=True,
                              exit_on_error=False)

    async def _picture(self) -> None:
        png = await self.session.picture(timeout=3.0)
        if png is None or not self.running:
            return
        image = PILImage.open(io.BytesIO(png))
        image.load()
        self.deliver(image, None, None)
