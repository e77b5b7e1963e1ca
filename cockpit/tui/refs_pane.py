"""The refs of the active tab's snapshot: filter them, and Enter puts one in the prompt.

The list is virtual (Textual's Line API, as the command log): a page with 5,000 refs costs
one pass over a list of tuples when its snapshot arrives and when the filter changes, and
only the visible rows are ever rendered. (A DataTable built every row's renderables and
measured them: ~1 s of a blocked event loop on Python's stdtypes.html, keys unechoed.)"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input

from ..core.snapshot import INTERACTIVE_ROLES
from .messages import RefsChanged
from .safe import literal

Ref = tuple[str, str, str, str]  # ref, role, name, value
REF_WIDTH, ROLE_WIDTH = 6, 10


class RefsList(ScrollView, can_focus=True):
    """Rows of refs with a cursor; only the rows on screen are drawn."""

    COMPONENT_CLASSES = {"refs-list--cursor"}
    BINDINGS = [
        Binding("enter", "select", "Insert ref", show=False),
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
    ]

    class Selected(Message):
        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[Ref] = []
        self.cursor = 0
        self.ref_style = self.dim_style = Style()
        self._strips: LRUCache[tuple, Strip] = LRUCache(256)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def cursor_ref(self) -> str | None:
        return self.rows[self.cursor][0] if self.rows else None

    def set_rows(self, rows: list[Ref]) -> None:
        """Show these rows; the ref under the cursor stays under it when still there."""
        keep = self.cursor_ref
        self.rows = rows
        self._strips.clear()
        self.cursor = 0
        if keep is not None:
            self.cursor = next((i for i, row in enumerate(rows) if row[0] == keep), 0)
        self.virtual_size = Size(self.size.width, len(rows))
        self.move_cursor(self.cursor)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def on_focus(self) -> None:
        self._strips.clear()
        self.refresh()

    def on_blur(self) -> None:
        self.on_focus()

    def on_resize(self) -> None:
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = self.scroll_offset.y + y
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row, selected = self.rows[index], index == self.cursor
        key = (row, width, selected)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strips[key] = self._line(row, width, selected)
        return strip.apply_style(base)

    def _line(self, row: Ref, width: int, selected: bool) -> Strip:
        ref, role, name, value = row
        label = literal(name)
        if value:
            label.append(": " if name else "", style=self.dim_style)
            label.append_text(literal(value, self.dim_style))
        line = Text(no_wrap=True, end="")
        for cell, cell_width in ((Text(f"@{ref}", style=self.ref_style), REF_WIDTH),
                                 (Text(role, style=self.dim_style), ROLE_WIDTH),
                                 (label, max(1, width - REF_WIDTH - ROLE_WIDTH - 6))):
            cell.truncate(cell_width, overflow="ellipsis", pad=True)
            line.append(" ")
            line.append_text(cell)
            line.append(" ")
        row_style = self.get_component_rich_style("refs-list--cursor", partial=False) \
            if selected else Style()
        line.stylize_before(row_style)
        strip = Strip(line.render(self.app.console), line.cell_len)
        return strip.extend_cell_length(width, row_style).crop(0, width)

    def move_cursor(self, row: int) -> None:
        self.cursor = max(0, min(row, len(self.rows) - 1)) if self.rows else 0
        visible = max(1, self.scrollable_content_region.height)
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False)
        self.refresh()

    def action_move(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor + direction * max(1, self.scrollable_content_region.height))

    def action_move_to(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self.rows) - 1)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self.rows[self.cursor][0]))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.scroll_offset.y + offset.y
        if index < len(self.rows):
            again = index == self.cursor
            self.move_cursor(index)
            if again or event.chain > 1:  # a click on the chosen row inserts it, as Enter
                self.action_select()


class RefsPane(Vertical):
    COMPONENT_CLASSES = {"refs--ref", "refs--dim"}

    class Insert(Message):
        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.refs: list[Ref] = []
        self._haystacks: list[str] | None = None  # lower-cased rows, made on first filter

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter refs", id="refs-filter")
        yield RefsList(id="refs-table")

    def on_mount(self) -> None:
        self.border_title = "Refs"
        table = self.query_one(RefsList)
        table.ref_style = self.get_component_rich_style("refs--ref", partial=True)
        table.dim_style = self.get_component_rich_style("refs--dim", partial=True)

    def on_refs_changed(self, message: RefsChanged) -> None:
        self.show(message.refs)

    def show(self, refs: list[Ref]) -> None:
        """Show the refs worth acting on: interactive elements first, then other named or
        valued ones; unnamed wrappers are left out (the `snapshot` command shows them)."""
        interactive: list[Ref] = []
        named: list[Ref] = []
        for r in refs:
            if r[1] in INTERACTIVE_ROLES:
                interactive.append(r)
            elif r[2] or r[3]:
                named.append(r)
        self.refs = interactive + named
        self._haystacks = None
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(RefsList)
        needle = self.query_one(Input).value.strip().lower()
        if needle:
            if self._haystacks is None:
                self._haystacks = [f"@{ref} {role} {name} {value}".lower()
                                   for ref, role, name, value in self.refs]
            rows = [r for r, hay in zip(self.refs, self._haystacks) if needle in hay]
        else:
            rows = self.refs
        table.set_rows(rows)
        self.border_subtitle = f"{table.row_count}/{len(self.refs)}"

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(RefsList).focus()

    def on_refs_list_selected(self, event: RefsList.Selected) -> None:
        event.stop()
        self.post_message(self.Insert(f"@{event.ref}"))
