"""`zoom [TARGET]` in the TUI: the page, or one element (a CAPTCHA's image), fills the
cockpit, drawn in Unicode half-blocks scaled to the terminal's cells, so it can be read
over SSH; ref labels are text drawn by the terminal over the picture, legible at any
size (never pixels burnt into it). Escape returns."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image as PILImage
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from .config import key_label

UPPER_HALF = "▀"  # the top pixel is the cell's foreground, the bottom one its background


class HalfBlocks(Widget):
    """A picture in half-block cells (two pixels a cell, one above the other, which makes
    the pixels about square), as large as the widget allows with its aspect kept, and
    labels over it: (text, x, y) with x and y fractions of the picture's width and height."""

    COMPONENT_CLASSES = {"halfblocks--label"}
    DEFAULT_CSS = """
    HalfBlocks { height: 1fr; }
    HalfBlocks > .halfblocks--label { color: $text; background: $error; text-style: bold; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image: PILImage.Image | None = None
        self.labels: list[tuple[str, float, float]] = []
        self.show_labels = True
        self._lines: list[Strip] = []
        self._drawn_for: tuple[int, int] | None = None
        self.cells: tuple[int, int, int, int] = (0, 0, 0, 0)  # left, top, width, height
        self.scaled: tuple[int, int] = (0, 0)  # the image's pixels as drawn (2 rows a cell)

    def show(self, image: PILImage.Image | None,
             labels: list[tuple[str, float, float]] | None = None) -> None:
        self.image = image.convert("RGB") if image is not None else None
        self.labels = labels or []
        self._drawn_for = None
        self.refresh()

    def toggle_labels(self) -> None:
        self.show_labels = not self.show_labels
        self._drawn_for = None
        self.refresh()

    def render_line(self, y: int) -> Strip:
        size = (self.size.width, self.size.height)
        if self._drawn_for != size:
            self._lines = self._draw(*size)
            self._drawn_for = size
        return self._lines[y] if y < len(self._lines) else Strip.blank(self.size.width)

    def _draw(self, width: int, height: int) -> list[Strip]:
        if self.image is None or width <= 0 or height <= 0:
            return []
        iw, ih = self.image.size
        scale = min(width / iw, 2 * height / ih)
        pw, ph = max(1, round(iw * scale)), max(1, round(ih * scale))
        self.scaled = (pw, ph)
        # LANCZOS keeps thin strokes (a character's) when shrinking, and smooths enlarging
        # the image is RGB (converted when given): 3 bytes a pixel, row after row
        rgb = self.image.resize((pw, ph), PILImage.Resampling.LANCZOS).tobytes()
        rows = (ph + 1) // 2
        left, top = (width - pw) // 2, (height - rows) // 2
        self.cells = (left, top, pw, rows)
        grid: list[list[Segment]] = []
        # Colours made from their numbers (a "rgb(...)" string is parsed again when drawn)
        # and each pair's style made once: a live picture is drawn many times a second
        styles: dict[bytes, Style] = {}
        colors: dict[bytes, Color] = {}

        def color(rgb3: bytes) -> Color:
            made = colors.get(rgb3)
            if made is None:
                made = colors[rgb3] = Color.from_rgb(rgb3[0], rgb3[1], rgb3[2])
            return made
        for row in range(rows):
            cells = [Segment(" " * left)] if left else []
            for x in range(pw):
                at = 3 * (2 * row * pw + x)
                below = at + 3 * pw
                pair = rgb[at:at + 3] + (rgb[below:below + 3] if 2 * row + 1 < ph else b"")
                style = styles.get(pair)
                if style is None:
                    style = styles[pair] = Style(color=color(pair[:3]), bgcolor=(
                        color(pair[3:]) if len(pair) == 6 else None))
                cells.append(Segment(UPPER_HALF, style))
            grid.append(cells)
        if self.show_labels:
            self._overlay(grid, left, pw, rows)
        blank = Strip.blank(width)
        return [blank] * top + [Strip(cells, left + pw).adjust_cell_length(width)
                                for cells in grid]

    def _overlay(self, grid: list[list[Segment]], left: int, pw: int, rows: int) -> None:
        """Each label's text in cells, from the cell of its box's top-left corner."""
        style = self.get_component_rich_style("halfblocks--label")
        first = 1 if left else 0  # the margin is one segment
        for text, fx, fy in self.labels:
            row = min(rows - 1, max(0, int(fy * rows)))
            col = min(max(0, pw - len(text)), max(0, int(fx * pw)))
            for i, char in enumerate(text[:pw]):
                grid[row][first + col + i] = Segment(char, style)


class ZoomScreen(Screen):
    """What `zoom` pictured, filling the cockpit. `zoom` is the command's data: the area
    pictured and the ref boxes in it (CSS pixels of the viewport), and the target."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="zoom.close"),
                Binding("t", "toggle_labels", "Ref labels", id="zoom.labels"),
                Binding("r", "refresh_picture", "Refresh", id="zoom.refresh")]
    DEFAULT_CSS = """
    ZoomScreen { layout: vertical; }
    #zoom-title { height: 1; background: $panel; padding: 0 1; }
    #zoom-legend { height: auto; max-height: 4; padding: 0 1; }
    """

    def __init__(self, session: Any, zoom: dict[str, Any]) -> None:
        super().__init__()
        self.session = session
        self.zoom = zoom
        self.loaded = False  # a picture is shown (tests wait for it)

    def compose(self) -> ComposeResult:
        yield Static("", id="zoom-title", markup=False)
        yield self.make_picture()
        yield Static("", id="zoom-legend", markup=False)

    def make_picture(self) -> HalfBlocks:
        return HalfBlocks(id="zoom-picture")

    def on_mount(self) -> None:
        target = self.zoom.get("target")
        close = key_label(self.app, "zoom.close")
        self.query_one("#zoom-title", Static).update(
            f"Zoom: {target or 'the page'} · {close} returns · "
            f"{key_label(self.app, 'zoom.labels')} ref labels · "
            f"{key_label(self.app, 'zoom.refresh')} refresh")
        self.refresh_picture()

    @work(group="zoom", exclusive=True, exit_on_error=False)
    async def refresh_picture(self) -> None:
        png = await self.session.picture(target=self.zoom.get("target"), timeout=10.0)
        legend = self.query_one("#zoom-legend", Static)
        if png is None:
            legend.update("no picture: the element is gone, a dialog is open or the tab "
                          "is busy; Escape returns")
            return
        image = PILImage.open(io.BytesIO(png))
        image.load()
        area = self.zoom.get("area") or {"x": 0, "y": 0, "w": image.width, "h": image.height}
        labels = [(b["ref"], (b["x"] - area["x"]) / area["w"], (b["y"] - area["y"]) / area["h"])
                  for b in self.zoom.get("labels", [])]
        self.query_one(HalfBlocks).show(image, labels)
        self._legend(labels)
        self.loaded = True

    def _legend(self, labels: list[tuple[str, float, float]]) -> None:
        """The refs drawn, with what they are, under the picture."""
        names = {f"@{ref}": f"{role} {name!r}" if name else role
                 for ref, role, name, _ in self.session.refs_info()}
        shown = self.query_one(HalfBlocks).show_labels
        line = "   ".join(f"{ref} {names.get(ref, '')}".rstrip() for ref, _, _ in labels)
        self.query_one("#zoom-legend", Static).update(line if shown and labels else "")

    def action_toggle_labels(self) -> None:
        pictured = self.query_one(HalfBlocks)
        pictured.toggle_labels()
        self._legend(pictured.labels)

    def action_refresh_picture(self) -> None:
        self.refresh_picture()
