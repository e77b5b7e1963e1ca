"""A picture of the active tab in the terminal (Kitty or Sixel graphics where the terminal
has them, Unicode half-blocks otherwise), so a CAPTCHA can be read over SSH."""

from __future__ import annotations

import io

from PIL import Image as PILImage
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

# textual-image asks the terminal what graphics it supports when it is imported; that must
# happen before the app takes over the terminal, or the answer lands in the prompt.
from textual_image.widget import Image


class PicturePane(Vertical):
    can_focus = True
    BINDINGS = [Binding("z,enter", "zoom", "Zoom", id="picture.zoom"),
                Binding("l", "live", "Live", id="picture.live")]

    class Zoom(Message):
        """The page's picture, enlarged to fill the cockpit (`zoom`)."""

    class Live(Message):
        """Follow the page live, or stop (`live`)."""

    def __init__(self, enabled: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.enabled = enabled
        self.updates = 0
        self.live = False  # following the page as it paints (app.live_changed)

    def compose(self) -> ComposeResult:
        yield Static("no picture yet", id="picture-note", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Page"
        if not self.enabled:
            self.query_one("#picture-note", Static).update("pictures are off")

    def action_zoom(self) -> None:
        self.post_message(self.Zoom())

    def action_live(self) -> None:
        self.post_message(self.Live())

    def on_click(self) -> None:
        self.post_message(self.Zoom())

    def show_png(self, png: bytes | None) -> None:
        note = self.query_one("#picture-note", Static)
        if not self.enabled:
            note.update("pictures are off")
            return
        if png is None:
            note.update("no picture (a dialog is open, or the tab is busy)")
            return
        image = PILImage.open(io.BytesIO(png))
        image.load()
        self.show_image(image)

    def show_image(self, image: PILImage.Image) -> None:
        note = self.query_one("#picture-note", Static)
        self.border_title = "Page · live" if self.live else "Page"
        existing = self.query(Image)
        if existing:
            existing.first().image = image
        else:
            self.mount(Image(image, id="picture"))
        note.display = False
        self.updates += 1
