"""The refs of the active tab's snapshot: filter them, and Enter puts one in the prompt."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input

from ..core.snapshot import INTERACTIVE_ROLES
from .messages import RefsChanged
from .safe import literal
from .tables import FittedTable


class RefsPane(Vertical):
    COMPONENT_CLASSES = {"refs--ref", "refs--dim"}
    BINDINGS = [Binding("z", "zoom", "Zoom", id="refs.zoom")]

    class Zoom(Message):
        """The element of the row under the cursor, enlarged to fill the cockpit."""

        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    class Insert(Message):
        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.refs: list[tuple[str, str, str, str]] = []  # ref, role, name, value

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter refs", id="refs-filter")
        yield FittedTable(cursor_type="row", show_header=False, id="refs-table")

    def on_mount(self) -> None:
        self.border_title = "Refs"
        table = self.query_one(DataTable)
        table.add_column("ref", key="ref", width=6)
        table.add_column("role", key="role", width=10)
        table.add_column("name", key="name", width=20)

    def on_refs_changed(self, message: RefsChanged) -> None:
        self.show(message.refs)

    def show(self, refs: list[tuple[str, str, str, str]]) -> None:
        """Show the refs worth acting on: interactive elements first, then other named or
        valued ones; unnamed wrappers are left out (the `snapshot` command shows them)."""
        interactive = [r for r in refs if r[1] in INTERACTIVE_ROLES]
        named = [r for r in refs if r[1] not in INTERACTIVE_ROLES and (r[2] or r[3])]
        self.refs = interactive + named
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        needle = self.query_one(Input).value.strip().lower()
        ref_style = self.get_component_rich_style("refs--ref", partial=True)
        dim = self.get_component_rich_style("refs--dim", partial=True)
        keep = None  # the ref under the cursor stays under it when the list is refreshed
        if table.row_count:
            keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        table.clear()
        for ref, role, name, value in self.refs:
            if needle and needle not in f"@{ref} {role} {name} {value}".lower():
                continue
            label = literal(name)
            if value:
                label.append(": " if name else "", style=dim)
                label.append_text(literal(value, dim))
            table.add_row(Text(f"@{ref}", style=ref_style), Text(role, style=dim), label,
                          key=ref)
        self.border_subtitle = f"{table.row_count}/{len(self.refs)}"
        if keep is not None and keep in table.rows:
            table.move_cursor(row=table.get_row_index(keep))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(DataTable).focus()

    def action_zoom(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self.post_message(self.Zoom(f"@{key}"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Insert(f"@{event.row_key.value}"))
