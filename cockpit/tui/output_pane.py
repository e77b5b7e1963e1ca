"""The full result of the command under the log's cursor (the newest one while the cursor
follows the log): every line of it, wrapped, scrollable, selectable for copying."""

from __future__ import annotations

from textual.widgets import TextArea

from .command_log import Entry
from .safe import clean

MAX_CHARS = 400_000  # a page's whole HTML is shown; beyond this, the log's Enter has it all


class OutputPane(TextArea):
    def __init__(self, **kwargs) -> None:
        # read-only, no blinking cursor (a still screen for snapshots and screen readers)
        super().__init__("", read_only=True, soft_wrap=True, show_line_numbers=False,
                         highlight_cursor_line=False, **kwargs)
        self.cursor_blink = False
        self.shown: tuple[int, int] | None = None  # (entry id, version) on screen

    def on_mount(self) -> None:
        self.border_title = "Output"
        self.load_text("No command yet: the full result of the command under the log's "
                       "cursor shows here.")

    def show_entry(self, entry: Entry | None) -> None:
        if entry is None or self.shown == (entry.id, entry.version):
            return
        self.shown = (entry.id, entry.version)
        self.border_title = clean(f"Output #{entry.id} {entry.command}")
        self.border_subtitle = entry.status + (f" {entry.ms:.0f} ms"
                                               if entry.ms is not None else "")
        self.load_text(entry_text(entry))


def entry_text(entry: Entry) -> str:
    """What a command gave, line by line, control characters made visible."""
    if entry.status in ("queued", "running"):
        return f"{entry.status}…"
    parts = [f"error: {entry.error}"] if entry.error else []
    if entry.output:
        parts.append(entry.output)
    text = "\n".join(parts) or "(no output)"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n… {len(text) - MAX_CHARS} more characters (Enter " \
            "on the log row shows them all)"
    return clean(text, one_line=False)
