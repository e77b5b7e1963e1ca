"""The command log: every command, who sent it, how it went; Enter shows the full output."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from .tables import FittedTable

from ..core import events as ev
from ..core.events import Event
from .safe import clean, literal

MAX_ROWS = 10_000  # older rows leave the view; the recorder keeps everything


@dataclass
class Entry:
    id: int
    time: float
    source: str
    command: str
    status: str = "queued"  # queued, running, ok, error
    ms: float | None = None
    output: str = ""
    error: str | None = None


class CommandLog(FittedTable):
    """A DataTable keyed by command id: rows are updated in place as commands progress."""

    COMPONENT_CLASSES = {"log--ok", "log--error", "log--pending", "log--agent", "log--human",
                         "log--dim"}
    FLEXIBLE = {"command": 0.4, "result": 0.6}
    BINDINGS = [Binding("enter", "show_entry", "Full output", id="log.show", show=False)]

    class ShowEntry(Message):
        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.entries: dict[int, Entry] = {}
        self._order: list[int] = []

    def on_mount(self) -> None:
        self.border_title = "Command log"
        self.add_column("time", key="time", width=8)
        self.add_column("from", key="source", width=6)
        self.add_column("command", key="command", width=34)
        self.add_column("", key="status", width=7)
        self.add_column("ms", key="ms", width=6)
        self.add_column("result", key="result", width=40)
        super().on_mount()

    def _style(self, name: str) -> str:
        return self.get_component_rich_style(name, partial=True)

    def _status(self, entry: Entry) -> Text:
        style = {"ok": "log--ok", "error": "log--error"}.get(entry.status, "log--pending")
        return Text(entry.status, style=self._style(style))

    def _result(self, entry: Entry) -> Text:
        if entry.error:
            return literal(entry.error, self._style("log--error"))
        first = entry.output.strip().splitlines()[0] if entry.output.strip() else ""
        more = entry.output.count("\n")
        text = literal(first)
        if more:
            text.append(f"  (+{more} lines)", style=self._style("log--dim"))
        return text

    def _cells(self, entry: Entry) -> tuple[Text, ...]:
        source_style = self._style("log--agent" if entry.source == "agent" else "log--human")
        ms = Text(f"{entry.ms:.0f}", justify="right") if entry.ms is not None else Text("")
        result = self._result(entry) if entry.status in ("ok", "error") else Text("")
        return (Text(time.strftime("%H:%M:%S", time.localtime(entry.time))),
                Text(entry.source, style=source_style), literal(entry.command),
                self._status(entry), ms, result)

    def handle(self, event: Event) -> None:
        data = event.data
        if event.kind == ev.COMMAND_QUEUED:
            entry = Entry(data["id"], event.time, data["source"], data["command"])
            if entry.id in self.entries:
                return  # a repeated event must not take the view down
            self.entries[entry.id] = entry
            self._order.append(entry.id)
            self.add_row(*self._cells(entry), key=str(entry.id))
            self._trim()
        elif event.kind in (ev.COMMAND_STARTED, ev.COMMAND_FINISHED):
            entry = self.entries.get(data["id"])
            if entry is None:
                return
            if event.kind == ev.COMMAND_STARTED:
                entry.status = "running"
            else:
                entry.status = "ok" if data["ok"] else "error"
                entry.ms, entry.output, entry.error = data["ms"], data["output"], data["error"]
            key = str(entry.id)
            if key in self.rows:
                self.update_cell(key, "status", self._status(entry))
                if entry.ms is not None:
                    self.update_cell(key, "ms", Text(f"{entry.ms:.0f}", justify="right"))
                self.update_cell(key, "result", self._result(entry))

    def follow(self, was_at_end: bool) -> None:
        """After a batch: keep showing the newest row if the cursor was on the last one.
        Once per batch, not per row: moving the cursor costs a layout."""
        if was_at_end and self.row_count:
            self.move_cursor(row=self.row_count - 1)

    @property
    def at_end(self) -> bool:
        return self.cursor_row >= self.row_count - 2

    def _trim(self) -> None:
        # DataTable.remove_row costs O(rows) each, so old rows go a tenth of the cap at a time,
        # by rebuilding the table once.
        if len(self._order) <= MAX_ROWS + MAX_ROWS // 10:
            return
        # One rebuild of the kept rows costs what a few dozen remove_row calls do.
        drop, self._order = self._order[:-MAX_ROWS], self._order[-MAX_ROWS:]
        for oldest in drop:
            self.entries.pop(oldest, None)
        cursor = self.cursor_row
        self.clear()
        for entry_id in self._order:
            entry = self.entries[entry_id]
            self.add_row(*self._cells(entry), key=str(entry_id))
        self.move_cursor(row=max(0, cursor - len(drop)))

    def action_show_entry(self) -> None:
        if not self.row_count:
            return
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        entry = self.entries.get(int(key)) if key else None
        if entry is not None:
            self.post_message(self.ShowEntry(entry))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_show_entry()


def describe_entry(entry: Entry) -> str:
    """The full text of one log entry, for the detail screen."""
    lines = [f"{entry.command}", f"from {entry.source}, {entry.status}"
             + (f" in {entry.ms:.0f} ms" if entry.ms is not None else ""), ""]
    if entry.error:
        lines.append(f"error: {entry.error}")
    lines.append(entry.output)
    return clean("\n".join(lines), one_line=False)
