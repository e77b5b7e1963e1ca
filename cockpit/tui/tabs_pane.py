"""Every tab of the session: index, title, URL, loading; the active one marked."""

from __future__ import annotations

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
        self.add_column("", key="mark", width=2)
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
        for key in [k.value for k in list(self.rows)]:
            if key not in wanted:
                self.remove_row(key)
        for info in tabs:
            key = str(info["id"])
            mark = Text("▶" if info["active"] else " ", style=active)
            title = literal(info["title"] or "(untitled)", active if info["active"] else "")
            title.append("  " + ("loading… " if info["loading"] else ""), style=dim)
            title.append_text(literal(info["url"], dim))
            cells = (mark, Text(str(info["index"])), title)
            if key in self.rows:
                for column, value in zip(("mark", "index", "tab"), cells):
                    self.update_cell(key, column, value)
            else:
                self.add_row(*cells, key=key)
        self.sort("index", key=lambda cell: int(cell.plain))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        index = int(self.get_row(event.row_key)[1].plain)
        self.post_message(self.SwitchTo(index))
