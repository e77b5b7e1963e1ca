"""The refs of the active tab's snapshot: filter them, and Enter puts one in the prompt.

Refs are shown whole (`@e1061`, not a prefix), and names wrap onto more lines rather than
being cut where the pane ends. The table is a RefsList: a page's 5,000 refs cost a pass
over a list of tuples, not a DataTable's per-row work (refs_list.py)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input

from ..core import INTERACTIVE_ROLES
from .messages import RefsChanged
from .refs_list import RefsList

ROLE_WIDTH = 10  # at most: longer roles are cut (the name is what tells rows apart)
NAME_MIN = 12  # below this the table scrolls sideways rather than squeeze the names


class RefsPane(Vertical):
    COMPONENT_CLASSES = {"refs--ref", "refs--dim"}
    BINDINGS = [Binding("z", "zoom", "Zoom", id="refs.zoom"),
                Binding("a", "propose", "Expect", id="refs.expect")]

    class Zoom(Message):
        """The element of the row under the cursor, enlarged to fill the cockpit."""

        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    class Propose(Message):
        """The expectations that hold now for the row under the cursor, to pick one."""

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
        # in a box of its own: at most the height left below the filter (as the pane's
        # child, `max-height: 100%` let the last rows fall under the pane's border)
        with Vertical(id="refs-rows"):
            yield RefsList(id="refs-table")

    def on_mount(self) -> None:
        self.border_title = "Refs"
        self._fill()

    def on_resize(self, event: events.Resize) -> None:
        self._fill()  # the names wrap to the new width

    def on_key(self, event: events.Key) -> None:
        """Typing on the list types into the filter (the README's "type to filter")."""
        field = self.query_one(Input)
        bound = self.screen.active_bindings.get(event.key)
        if bound is not None and bound.node is self and not field.has_focus:
            return  # a key of this pane's own (`z` zooms, or as remapped): not filter text
        if event.is_printable and event.character and not field.has_focus:
            event.stop()
            event.prevent_default()
            field.focus()
            field.insert_text_at_cursor(event.character)
        elif event.key == "down" and field.has_focus:
            event.stop()
            self.query_one(RefsList).focus()

    def _columns(self, table: RefsList, shown: list[tuple[str, str, str, str]]
                 ) -> tuple[int, int, int]:
        """Columns as wide as the longest ref and role; the name takes the rest."""
        ref = max([len(r[0]) + 1 for r in shown] + [4])
        padding = 2 * table.cell_padding * 3
        width = table.size.width or self.size.width
        if len(shown) > max(1, self.size.height):  # room for the scrollbar that will show
            width -= table.styles.scrollbar_size_vertical
        room = width - ref - padding - 1
        # the role gives way first: cut roles still tell a textbox from a button
        role = max(4, min(ROLE_WIDTH, max([len(r[1]) for r in shown] + [4]),
                          room - NAME_MIN))
        room -= role
        return ref, role, max(NAME_MIN, room)

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
        table = self.query_one(RefsList)
        table.ref_style = self.get_component_rich_style("refs--ref", partial=True)
        table.dim_style = self.get_component_rich_style("refs--dim", partial=True)
        needle = self.query_one(Input).value.strip().lower()
        shown = [r for r in self.refs
                 if not needle or needle in f"@{r[0]} {r[1]} {r[2]} {r[3]}".lower()]
        # the ref under the cursor stays under it when the list is refreshed
        table.set_rows(shown, self._columns(table, shown), keep=table.cursor_ref)
        self.border_subtitle = f"{table.row_count}/{len(self.refs)}"

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(RefsList).focus()

    def action_zoom(self) -> None:
        ref = self.query_one(RefsList).cursor_ref
        if ref is not None:
            self.post_message(self.Zoom(f"@{ref}"))

    def action_propose(self) -> None:
        ref = self.query_one(RefsList).cursor_ref
        if ref is not None:
            self.post_message(self.Propose(f"@{ref}"))

    def on_refs_list_selected(self, event: RefsList.Selected) -> None:
        event.stop()
        self.post_message(self.Insert(f"@{event.ref}"))
