"""Every tab of the session: index, title, host and path of its URL, loading; the active
one marked. Two lines a tab, so the URL is not pushed off the pane by a long title."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from .messages import TabsChanged
from .safe import literal
from .tables import FittedTable


class TabsPane(FittedTable):
    COMPONENT_CLASSES = {"tabs--active", "tabs--dim"}

    class SwitchTo(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", show_header=False, **kwargs)

    def on_mount(self) -> None:
        self.border_title = "Tabs"
        self.add_column("", key="mark", width=1)
        self.add_column("#", key="index", width=2)
        self.add_column("tab", key="tab", width=20)
        super().on_mount()

    def on_tabs_changed(self, message: TabsChanged) -> None:
        self.show(message.tabs)

    def show(self, tabs: list[dict]) -> None:
        """Bring the rows in line with `tabs` (dicts of Tab.info()), by tab id."""
        active = self.get_component_rich_style("tabs--active", partial=True)
        dim = self.get_component_rich_style("tabs--dim", partial=True)
        wanted = {str(t["id"]) for t in tabs}
        for key in [k.value for k in list(self.rows) if k.value is not None]:
            if key not in wanted:
                self.remove_row(key)
        for info in tabs:
            key = str(info["id"])
            mark = Text("▶" if info["active"] else " ", style=active)
            title = literal(info["title"] or "(untitled)", active if info["active"] else "")
            title.append("\n" + ("loading… " if info["loading"] else ""), style=dim)
            title.append_text(literal(where(info["url"]), dim))
            cells = (mark, Text(f"{info['index']:>2}"), title)
            if key in self.rows:
                for column, value in zip(("mark", "index", "tab"), cells):
                    self.update_cell(key, column, value)
            else:
                self.add_row(*cells, key=key, height=2)
        self.sort("index", key=_index)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.SwitchTo(_index(self.get_row(event.row_key)[1])))


def _index(cell: Text) -> int:
    return int(cell.plain)


def where(url: str) -> str:
    """Host and path of a URL (`127.0.0.1:8765/login`); the scheme, query and fragment
    make it longer without telling tabs apart. Other URLs (about:blank) as they are."""
    parts = urlsplit(url or "")
    if not parts.netloc:
        return url or ""
    return parts.netloc + (parts.path if parts.path not in ("", "/") else "/")
