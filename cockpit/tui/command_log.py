"""The command log: every command, who sent it, how it went; Enter shows the full output.

Virtualised (Textual's Line API): only the visible rows are ever rendered, so 10,000 entries
cost what 50 do, and dropping old ones is a list slice rather than a table rebuild."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..core import events as ev
from ..core import Event
from .messages import CommandsRan
from .safe import clean

MAX_ROWS = 10_000  # older rows leave the view; the recorder keeps everything

# (title, width); None: shares the room the fixed columns leave (command 40%, result the rest)
COLUMNS = (("time", 8), ("from", 6), ("command", None), ("", 7), ("ms", 6), ("result", None))
COMMAND_SHARE = 0.4
# A narrow log drops columns before it squeezes the command and its result: the time
# below this many cells, the milliseconds below the next.
NO_TIME_BELOW, NO_MS_BELOW = 80, 60


@dataclass(eq=False)
class Entry:
    id: int
    time: float
    source: str
    command: str
    status: str = "queued"  # queued, running, ok, error
    ms: float | None = None
    output: str = ""
    error: str | None = None
    version: int = 0  # bumped on every change: it keys the rendered-row cache
    client: str = ""  # the agent program that sent it, when it said (an MCP client)

    def cells(self) -> list[str]:
        """The row as plain text, one string a column (what the screen shows, unstyled)."""
        done = self.status in ("ok", "error")
        # who sent it: the agent program by name when it said (its command keeps the room)
        return [time.strftime("%H:%M:%S", time.localtime(self.time)),
                clean(self.client) if self.client else self.source,
                clean(self.command), self.status,
                f"{self.ms:.0f}" if self.ms is not None else "",
                self.summary() if done else ""]

    def summary(self) -> str:
        if self.error:
            return clean(self.error)
        output = self.output.strip()
        # the first line alone, not splitlines(): a snapshot's output is ~600 KB
        first = clean(output.split("\n", 1)[0]) if output else ""
        more = output.count("\n")
        return f"{first}  (+{more} lines)" if more else first


class CommandLog(ScrollView, can_focus=True):
    """Entries in arrival order, updated in place as commands progress; a row cursor."""

    COMPONENT_CLASSES = {"log--ok", "log--error", "log--pending", "log--agent", "log--human",
                         "log--dim", "log--header", "log--cursor"}
    BINDINGS = [
        Binding("enter", "show_entry", "Full output", id="log.show", show=False),
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
    ]

    class ShowEntry(Message):
        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    class Highlighted(Message):
        """The entry under the cursor is another one, or it changed (the output pane)."""

        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: dict[int, Entry] = {}
        self.rows: list[Entry] = []  # arrival order; entries maps id -> the same objects
        self.cursor = 0
        # rendered rows, a few screens' worth: scrolling back and forth costs no re-render,
        # and memory stays bounded however many rows pass through
        # (id, version, width, selected) for a row, ("header", width) for the header
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(256)
        self._styles: dict[str, Style] = {}
        self._announced: tuple[int, int] | None = None

    def on_mount(self) -> None:
        self.border_title = "Command log"

    @property
    def row_count(self) -> int:
        return len(self.rows)

    # --- engine events ----------------------------------------------------------------------
    def on_commands_ran(self, message: CommandsRan) -> None:
        following = self.at_end
        for event in message.events:
            self.handle(event)
        self.end_batch(following)

    def handle(self, event: Event) -> None:
        data = event.data
        if event.kind == ev.COMMAND_QUEUED:
            if data["id"] in self.entries:
                return  # a repeated event must not take the view down
            queued = Entry(data["id"], event.time, data["source"], data["command"],
                           client=data.get("client") or "")
            self.entries[queued.id] = queued
            self.rows.append(queued)
            return
        entry = self.entries.get(data["id"])
        if entry is None:
            if not data.get("command"):
                return
            # its queued event never came (a slow viewer's stream dropped it, or the
            # history was cut): the row still shows, from what this event says
            entry = self.entries[data["id"]] = Entry(
                data["id"], event.time, data.get("source", "?"), data["command"],
                client=data.get("client") or "")
            self.rows.append(entry)
        # the engine masks a line's typed text until it knows the field is no password
        # field: the row shows the line as the latest event has it
        entry.command = data.get("command") or entry.command
        if event.kind == ev.COMMAND_STARTED:
            entry.status = "running"
        elif event.kind == ev.COMMAND_FINISHED:
            entry.status = "ok" if data["ok"] else "error"
            entry.ms, entry.output, entry.error = data["ms"], data["output"], data["error"]
        entry.version += 1

    def end_batch(self, was_at_end: bool) -> None:
        """After a batch of events: drop the oldest rows past the cap, resize, follow the
        newest row if the cursor was on the last one, and repaint once."""
        excess = len(self.rows) - MAX_ROWS
        if excess > 0:
            for entry in self.rows[:excess]:
                del self.entries[entry.id]
            del self.rows[:excess]
            self.cursor = max(0, self.cursor - excess)
            if not was_at_end:  # keep the rows being read where they are
                self.scroll_to(y=max(0, self.scroll_offset.y - excess), animate=False)
        self.virtual_size = Size(0, len(self.rows) + 1)  # + the header line; rows fit the width
        if was_at_end and self.rows:
            self.cursor = len(self.rows) - 1
            self._show_newest()
        self.refresh()
        self._announce()

    def _announce(self) -> None:
        """Say which entry is under the cursor when it or its state changed."""
        entry = self.rows[self.cursor] if self.rows else None
        if entry is not None and self._announced != (entry.id, entry.version):
            self._announced = (entry.id, entry.version)
            self.post_message(self.Highlighted(entry))

    def on_resize(self) -> None:
        """Following the newest row: still so once the pane is shorter (a pane below it
        grew), not only at the next row."""
        if self.rows and self.cursor == len(self.rows) - 1:
            self.virtual_size = Size(0, len(self.rows) + 1)
            self._show_newest()

    def _show_newest(self) -> None:
        """Scroll to the newest row. Forced: Textual scrolls only a widget that shows its
        scrollbar, which it decides at the next layout, so the batch whose rows first
        overflow the pane (or an attached cockpit's whole history) stayed at the top,
        the newest row out of sight until another row came."""
        self.scroll_to(y=self.virtual_size.height, animate=False, force=True)

    @property
    def at_end(self) -> bool:
        return self.cursor >= len(self.rows) - 2

    # --- rendering ----------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()  # the theme changed: rows are drawn again in its colours
        self._strips.clear()

    def on_focus(self) -> None:
        self.notify_style_update()  # the cursor row changes colour with focus

    def on_blur(self) -> None:
        self.notify_style_update()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            # the cursor's background may be translucent: only the full style blends it
            style = self._styles[name] = self.get_component_rich_style(
                name, partial=name != "log--cursor")
        return style

    def _widths(self, width: int) -> list[int]:
        """Each column's width; 0 for a column left out at this width."""
        dropped = {"time"} if width < NO_TIME_BELOW else set()
        dropped |= {"ms"} if width < NO_MS_BELOW else set()
        kept = [(title, w) for title, w in COLUMNS if title not in dropped]
        fixed = sum(w for _, w in kept if w) + len(kept)  # a space before each column
        room = max(16, width - fixed)
        command = int(room * COMMAND_SHARE)
        return [0 if title in dropped else w if w else
                (command if title == "command" else room - command)
                for title, w in COLUMNS]

    def _line(self, cells: list[Text], width: int, row_style: Style) -> Strip:
        line = Text(no_wrap=True, end="")
        for cell, cell_width in zip(cells, self._widths(width)):
            if not cell_width:
                continue
            cell.truncate(cell_width, overflow="ellipsis", pad=True)
            line.append(" ")
            line.append_text(cell)
        line.stylize_before(row_style)  # under the cells' own colours (Text.render drops
        # a Text's base style, so it goes in as a span)
        strip = Strip(line.render(self.app.console), line.cell_len)
        return strip.extend_cell_length(width, row_style).crop(0, width)

    def _row_cells(self, entry: Entry) -> list[Text]:
        plain = entry.cells()
        status_style = {"ok": "log--ok", "error": "log--error"}.get(entry.status, "log--pending")
        source_style = "log--agent" if entry.source == "agent" else "log--human"
        result = Text(plain[5], style=self._style("log--error") if entry.error else "")
        if not entry.error and "  (+" in plain[5]:
            result.stylize(self._style("log--dim"), plain[5].rindex("  (+"))
        return [Text(plain[0]), Text(plain[1], style=self._style(source_style)), Text(plain[2]),
                Text(plain[3], style=self._style(status_style)),
                Text(plain[4].rjust(COLUMNS[4][1])), result]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:  # the header stays put while the rows scroll under it
            header = ("header", width)
            if header not in self._strips:
                self._strips[header] = self._line([Text(title) for title, _ in COLUMNS],
                                                  width, self._style("log--header"))
            return self._strips[header].apply_style(base)
        index = self.scroll_offset.y + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, base)
        entry = self.rows[index]
        selected = index == self.cursor
        key = (entry.id, entry.version, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            row_style = self._style("log--cursor") if selected else Style()
            strip = self._strips[key] = self._line(self._row_cells(entry), width, row_style)
        return strip.apply_style(base)

    # --- the cursor ---------------------------------------------------------------------------
    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def move_cursor(self, row: int) -> None:
        if not self.rows:
            return
        self.cursor = max(0, min(row, len(self.rows) - 1))
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + self._visible_rows():
            self.scroll_to(y=self.cursor - self._visible_rows() + 1, animate=False)
        self.refresh()
        self._announce()

    def action_move(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor + direction * self._visible_rows())

    def action_move_to(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self.rows) - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = self.scroll_offset.y + offset.y - 1
        if index < len(self.rows):
            again = index == self.cursor
            self.move_cursor(index)
            if again or event.chain > 1:  # a click on the chosen row opens it, as Enter does
                self.action_show_entry()

    def action_show_entry(self) -> None:
        if self.rows:
            self.post_message(self.ShowEntry(self.rows[self.cursor]))


def describe_entry(entry: Entry) -> str:
    """The full text of one log entry, for the detail screen."""
    sender = f"{entry.source} ({entry.client})" if entry.client else entry.source
    lines = [f"{entry.command}", f"from {sender}, {entry.status}"
             + (f" in {entry.ms:.0f} ms" if entry.ms is not None else ""), ""]
    if entry.error:
        lines.append(f"error: {entry.error}")
    lines.append(entry.output)
    return clean("\n".join(lines), one_line=False)
