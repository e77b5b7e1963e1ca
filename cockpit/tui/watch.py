"""`cockpit watch`: every live session of this user in one table, those that need a person
first; Enter attaches to one (the app ends with its socket; cli/watch.py runs the full
cockpit on it and comes back here).

The rows come from a Monitor (control/monitor.py), which follows each session's events;
this view only draws them, and asks the terminal for a call (bell, OSC 9 / 777) when
the monitor says a session newly needs a person."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, Footer, Static

from ..control.monitor import Monitor, SessionRow, age, home
from ..control.notify import Call, terminal_call
from .safe import clean
from .watch_picture import WatchPicture

WIDE = 120  # columns from which the workspace, URL and recording get columns of their own
TALL = 30  # rows from which the highlighted session's live picture shows by itself
# The table is redrawn at most this often while events come: ten agents' events drawn one
# by one took the watch's whole share of a busy machine's CPU, and a person's key waited.
REDRAW_GAP_S = 0.25


class SessionsChanged(Message):
    """The monitor saw a change; `calls`: sessions that newly need a person."""

    def __init__(self, calls: list[Call]) -> None:
        super().__init__()
        self.calls = calls


def ring(app: App[Any], calls: list[Call]) -> None:
    """The terminal's call for each new need: the bell, OSC 9 and OSC 777 (through the
    app's own output: it owns the terminal)."""
    driver = getattr(app, "_driver", None)  # what App.bell() writes through
    if driver is None or app.is_headless:
        return
    for call in calls:
        driver.write(terminal_call(call))


def last_command(row: SessionRow, now: float) -> tuple[str, str, str]:
    """(the line, its age, its result) of the session's last command."""
    last = row.last
    if last is None:
        return "-", "", ""
    if last.finished is None:
        return clean(last.line), age(now - last.started), "running"
    result = "ok" if last.ok else f"failed: {last.error or '?'}"
    return clean(last.line), age(now - last.finished), clean(result)


def control_text(row: SessionRow) -> str:
    if row.control == "human":
        return f"human ({row.control_reason})" if row.control_reason else "human"
    if row.control == "held":
        return f"held ({row.control_reason})" if row.control_reason else "held"
    return "agent"


class WatchApp(App[str | None]):
    """The table of sessions. Ends with the socket of the session to attach to (Enter),
    or None (q, Ctrl+Q)."""

    TITLE = "Cockpit watch"
    CSS = """
    #banner { height: 1; padding: 0 1; background: $panel; }
    #banner.-needs { background: $error; color: $background; text-style: bold; }
    #sessions { height: 1fr; }
    #below { height: auto; max-height: 6; border-top: solid $secondary; }
    #below.-picture { height: 16; max-height: 16; }
    #detail { width: 1fr; height: auto; padding: 0 1; }
    """
    BINDINGS = [
        Binding("enter", "attach", "Attach", id="watch.attach", priority=True),
        Binding("p", "picture", "Picture", id="watch.picture"),
        Binding("q", "quit_watch", "Quit", id="watch.quit"),
        Binding("ctrl+q", "quit_watch", "Quit", id="watch.quit.ctrl", priority=True,
                show=False),
    ]

    def __init__(self, monitor: Monitor, *, select: str | None = None) -> None:
        super().__init__()
        self.monitor = monitor
        self.selected = select  # the socket of the row under the cursor, kept on redraws
        self._wide: bool | None = None
        self._placed: str | None = None  # the row redraw put the cursor on
        self.calls_made: list[Call] = []  # every call this view asked the terminal for
        self.picture_wanted: bool | None = None  # `p`; None: shown where the screen is big
        self._drawn_at = 0.0  # time.monotonic() of the last redraw
        self._redraw_coming = False
        self._drawn: tuple[bool, list[tuple[str, list[tuple[str, str]]]]] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="banner")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="below"):
            yield Static(id="detail")
            yield WatchPicture(id="picture")
        yield Footer()

    def on_mount(self) -> None:
        self._unsubscribe = self.monitor.subscribe(self._changed)
        self.set_interval(1.0, self.redraw)  # the ages move on; nothing is asked of anyone
        self.redraw()
        self.query_one(DataTable).focus()

    def _changed(self, calls: list[Call]) -> None:
        self.post_message(SessionsChanged(calls))

    def on_unmount(self) -> None:
        self._unsubscribe()

    def on_sessions_changed(self, message: SessionsChanged) -> None:
        if message.calls:
            self.calls_made.extend(message.calls)
            ring(self, message.calls)  # at once: only the drawing waits
        if not self._redraw_coming:  # a burst of events is one redraw
            self._redraw_coming = True
            wait = self._drawn_at + REDRAW_GAP_S - time.monotonic()
            if wait > 0:
                self.set_timer(wait, self._redraw_due)
            else:  # (never a 0 s timer: Textual's divides by its interval and never fires)
                self.call_later(self._redraw_due)

    @property
    def redraw_pending(self) -> bool:
        """A change the table will show at its next redraw (at most REDRAW_GAP_S on)."""
        return self._redraw_coming

    def _redraw_due(self) -> None:
        self._redraw_coming = False
        self.redraw()

    def on_resize(self) -> None:
        self.call_after_refresh(self.redraw)  # once the screen has its new size

    # --- drawing ------------------------------------------------------------------------
    def _columns(self, table: DataTable[Any], wide: bool) -> None:
        table.clear(columns=True)
        names = (["NEEDS A HUMAN", "SESSION", "BROWSER", "CONTROL", "AGENT", "LAST COMMAND",
                  "AGE", "RESULT", "REC", "WORKSPACE"] if wide else
                 ["NEED", "SESSION", "CONTROL", "AGENT", "LAST COMMAND", "RESULT"])
        for name in names:
            table.add_column(name, key=name)
        self._wide = wide

    def cells(self, row: SessionRow, now: float, wide: bool) -> list[Any]:
        """One row's cells: at 80 columns the essentials (the need's kind, the result
        with its age); the rest is in the detail lines under the table."""
        line, when, result = last_command(row, now)
        failed = result.startswith("failed")
        if row.needs_person:
            need = Text(f"! {clean(row.why() if wide else row.need['kind'] if row.need else '')}",
                        style="bold red")
        else:
            need = Text("(a person has it)" if wide and row.control == "human" else "")
        if not wide:
            short = "failed" if failed else result
            return [need, _cut(clean(row.session), 14), _cut(control_text(row), 9),
                    _cut(clean(row.agent), 10), _cut(line, 18),
                    Text(f"{short} {when}".strip(), style="red" if failed else "")]
        return [need, clean(row.session), row.browser, control_text(row), clean(row.agent),
                _cut(line, 40), when, Text(_cut(result, 30), style="red" if failed else ""),
                Text("failed", style="red") if row.recording.startswith("failed") else
                row.recording, clean(home(row.workspace))]

    def redraw(self) -> None:
        tables = self.query(DataTable)
        if not tables:  # a change that came as the watch was closing: nothing to draw
            return
        table = tables.first()
        self._drawn_at = time.monotonic()
        # A person's key moved the cursor, and its RowHighlighted is still queued: their
        # choice is the row under the cursor now, before the rebuild puts it elsewhere
        # (else the key was lost to the redraw).
        if table.row_count and table.cursor_row >= 0:
            under = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            if under is not None and under != self._placed:
                self.selected = self._placed = str(under)
        # The table's own RowHighlighted messages while it is rebuilt here (its first row
        # added, the cursor put back) are not a person's move: handled after a later
        # redraw has reordered the rows, one would pin the cursor on a session nobody
        # chose, and Enter would attach to it.
        with self.prevent(DataTable.RowHighlighted):
            rows = self._fill(table)
            # the cursor stays on the session a person moved it to; else on the first
            # row, the one that most needs a person
            index = next((i for i, r in enumerate(rows) if r.socket == self.selected), 0)
            if rows:
                self._placed = rows[index].socket
                if table.cursor_row != index:
                    table.move_cursor(row=index)
        needing = sum(r.needs_person for r in rows)
        banner = self.query_one("#banner", Static)
        banner.set_class(needing > 0, "-needs")
        notes = "".join(f" · {where}: {problem}" for where, problem in
                        self.monitor.notes.items())
        _update(banner, clean(
            (f"{needing} NEED A HUMAN · " if needing else "") +
            f"{len(rows)} live session(s) · Enter attaches, Escape comes back · q quits"
            if rows else "no live sessions of yours yet: start one with `cockpit serve` or "
                         "`cockpit`; they appear here as they start") + notes)
        self._show_detail(rows[index] if rows else None)

    def _fill(self, table: DataTable[Any]) -> list[SessionRow]:
        """The table anew, from the monitor's rows (those that need a person first); left
        as it is when no cell would change: most events change none, and a rebuilt
        table renders every cell again."""
        wide = self.size.width >= WIDE
        rows = self.monitor.rows()
        now = time.time()
        cells = [self.cells(row, now, wide) for row in rows]
        drawn = (wide, [(row.socket, [_shown(cell) for cell in row_cells])
                        for row, row_cells in zip(rows, cells)])
        if drawn == self._drawn:
            return rows
        self._drawn = drawn
        if wide != self._wide:
            self._columns(table, wide)
        else:
            table.clear()
        for row, row_cells in zip(rows, cells):
            table.add_row(*row_cells, key=row.socket)
        return rows

    def _picture_shown(self) -> bool:
        if self.picture_wanted is not None:
            return self.picture_wanted
        return self.size.width >= WIDE and self.size.height >= TALL

    def _socket_at(self, index: int) -> str | None:
        table = self.query_one(DataTable)
        try:
            key = table.coordinate_to_cell_key(Coordinate(index, 0)).row_key
        except Exception:  # noqa: BLE001  an empty or redrawn table: no row there
            return None
        return str(key.value) if key.value is not None else None

    def _show_detail(self, row: SessionRow | None) -> None:
        detail = self.query_one("#detail", Static)
        picture = self.query_one(WatchPicture)
        shown = self._picture_shown()
        picture.display = shown
        self.query_one("#below").set_class(shown, "-picture")
        feed = self.monitor.feeds.get(row.socket) if row is not None and shown else None
        picture.follow(feed.info if feed is not None else None)
        if row is None:
            _update(detail, "")
            return
        lines = [f"{row.session} · {home(row.workspace)} · pid {row.pid} · {row.tabs} tab(s) "
                 f"· {row.url or 'no page'}"]
        if row.need:
            lines.append(f"NEEDS A HUMAN: {row.why()} at {row.need.get('url') or row.url}"
                         + (f" · take it over live in the web view: {row.web}"
                            if row.web else ""))
        browser = row.browser + (f" {row.endpoint}" if row.endpoint else "")
        lines.append(f"browser {browser} · control {control_text(row)} · agent {row.agent} · "
                     f"recording {row.recording_path or row.recording}")
        if row.error:
            lines.append(row.error)
        _update(detail, "\n".join(clean(line) for line in lines))

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        key = message.row_key.value
        if key is not None and key != self._placed:  # moved by a person, not by redraw
            self.selected = self._placed = str(key)
            row = next((r for r in self.monitor.rows() if r.socket == self.selected), None)
            self._show_detail(row)

    # --- keys ---------------------------------------------------------------------------
    def action_attach(self) -> None:
        table = self.query_one(DataTable)
        if not table.row_count or table.cursor_row is None:
            self.bell()
            return
        socket = self._socket_at(table.cursor_row)
        if socket is not None:
            self.exit(socket)

    def action_picture(self) -> None:
        """Show or hide the live picture of the session under the cursor."""
        self.picture_wanted = not self._picture_shown()
        self.redraw()

    def action_quit_watch(self) -> None:
        self.exit(None)


def _update(static: Static, text: str) -> None:
    """The text shown, changed only if it changes: an update lays the screen out again."""
    shown = static.content
    if not isinstance(shown, Text) or shown.plain != text:
        static.update(Text(text))


def _shown(cell: Any) -> tuple[str, str]:
    """What a cell shows: its text and style."""
    return (cell.plain, str(cell.style)) if isinstance(cell, Text) else (str(cell), "")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
