"""The refs pane's table: rows of ref, role and name, drawn only where they show.

A DataTable costs ~0.2 ms a row to fill and redoes a pass over every row whenever rows
change: Python's stdtypes.html (~5,000 refs) held the event loop for seconds and typing
froze (issue 17). This list keeps the rows as tuples, works out each row's height from its
name's length (wrapping only the names that do not fit), and renders just the lines on
screen, with a DataTable's look (same padding, colours, cursor and scrolling) and the part
of its API the pane and its tests use (`row_count`, `move_cursor`, `get_row_at`, ...)."""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

from rich.cells import cell_len
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.renderables.styled import Styled
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets.data_table import RowKey

from .safe import clean, literal

Ref = tuple[str, str, str, str]  # ref, role, name, value
HEIGHTS_KEPT = 50_000  # long names whose wrapped height is remembered (a few big pages)


class RowInfo(NamedTuple):
    key: str
    height: int


class RefsList(ScrollView, can_focus=True):
    """Refs with a row cursor; Enter (or a click on the cursor's row) selects one."""

    # DataTable's own rules, so the pane looks as it did when it was one
    DEFAULT_CSS = """
    RefsList {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .refs-list--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        & > .refs-list--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """
    COMPONENT_CLASSES = {"refs-list--cursor"}
    BINDINGS = [
        Binding("enter", "select", "Select", show=False),
        Binding("up", "move(-1)", "Cursor up", show=False),
        Binding("down", "move(1)", "Cursor down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("ctrl+home", "top", "Top", show=False),
        Binding("ctrl+end", "bottom", "Bottom", show=False),
        Binding("home", "scroll_x(0)", "Home", show=False),
        Binding("end", "scroll_x(1)", "End", show=False),
    ]
    cell_padding = 1

    class Selected(Message):
        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._rows: list[Ref] = []
        self._starts: list[int] = [0]  # first line of each row, then the total
        self._index: dict[str, int] | None = None  # ref -> row, made when first asked
        self.widths = (4, 4, 12)  # ref, role, name
        self.cursor_row = 0
        self.ref_style = self.dim_style = Style()
        self._heights: dict[tuple[str, int], int] = {}  # wrapped lines of long names
        self._lines: LRUCache[tuple, list[list[Segment]]] = LRUCache(64)

    # --- the rows --------------------------------------------------------------------
    def set_rows(self, rows: list[Ref], widths: tuple[int, int, int],
                 keep: str | None = None) -> None:
        """Show these rows in columns this wide; the cursor goes to `keep` if it is there."""
        self._rows, self.widths, self._index = rows, widths, None
        name_width = widths[2]
        if len(self._heights) > HEIGHTS_KEPT:
            self._heights.clear()
        heights, console = self._heights, self.app.console
        starts, y = [0], 0
        for _, _, name, value in rows:
            # the plain text's width decides; only a name that does not fit is wrapped,
            # once for each width (the next snapshot of a page, the filter, reuse it)
            plain = f"{name}: {value}" if name and value else name or value
            if len(plain) <= name_width and cell_len(clean(plain)) <= name_width:
                y += 1
            else:
                key = (plain, name_width)
                height = heights.get(key)
                if height is None:
                    height = heights[key] = len(self._label(name, value).wrap(console,
                                                                               name_width))
                y += height
            starts.append(y)
        self._starts = starts
        self._lines.clear()
        self.virtual_size = Size(sum(widths) + 2 * self.cell_padding * 3, y)
        row = self.get_row_index(keep) if keep is not None and keep in self._keys() else 0
        self.move_cursor(row=row)
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def cursor_ref(self) -> str | None:
        return self._rows[self.cursor_row][0] if self._rows else None

    @property
    def rows(self) -> dict[RowKey, RowInfo]:
        """Each row's key and height, in order, keyed as a DataTable's (`key.value`); it
        builds a dict: for tests and inspection, not for each frame."""
        return {RowKey(r[0]): RowInfo(r[0], self._starts[i + 1] - self._starts[i])
                for i, r in enumerate(self._rows)}

    def _keys(self) -> dict[str, int]:
        if self._index is None:
            self._index = {r[0]: i for i, r in enumerate(self._rows)}
        return self._index

    def get_row_index(self, key: str) -> int:
        return self._keys()[key]

    def get_row_at(self, index: int) -> list[Text]:
        ref, role, name, value = self._rows[index]
        return [Text(f"@{ref}", style=self.ref_style), literal(role, self.dim_style),
                self._label(name, value)]

    def _label(self, name: str, value: str) -> Text:
        label = Text(clean(name), overflow="fold")
        if value:
            label.append(": " if name else "", style=self.dim_style)
            label.append_text(Text(clean(value), style=self.dim_style))
        return label

    # --- the cursor --------------------------------------------------------------------
    def move_cursor(self, *, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._rows) - 1))
        self._cursor_into_view()
        # and again once the list has its new height (an auto height follows the rows)
        self.call_after_refresh(self._cursor_into_view)
        self.refresh()

    def _cursor_into_view(self) -> None:
        top = self._starts[self.cursor_row]
        bottom = self._starts[self.cursor_row + 1] if self._rows else top
        seen = max(1, self.scrollable_content_region.height)
        if top < self.scroll_offset.y:
            self.scroll_to(y=top, animate=False, force=True)
        elif bottom > self.scroll_offset.y + seen:
            self.scroll_to(y=max(top, bottom - seen), animate=False, force=True)

    def action_move(self, delta: int) -> None:
        self.move_cursor(row=self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        line = self._starts[self.cursor_row] + direction * self.scrollable_content_region.height
        self.move_cursor(row=bisect_right(self._starts, max(0, line)) - 1)

    def action_top(self) -> None:
        self.move_cursor(row=0)

    def action_bottom(self) -> None:
        self.move_cursor(row=len(self._rows) - 1)

    def action_scroll_x(self, end: int) -> None:
        self.scroll_x = self.max_scroll_x if end else 0

    def action_select(self) -> None:
        if self._rows:
            self.post_message(self.Selected(self._rows[self.cursor_row][0]))

    def on_click(self, event: events.Click) -> None:
        row = event.style.meta.get("row")
        if row is None or not self._rows:
            return
        event.stop()
        again = row == self.cursor_row
        self.move_cursor(row=row)
        if again:  # as a DataTable: a click on the cursor's row selects it
            self.action_select()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # --- drawing ---------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base = self.rich_style
        line = scroll_y + y
        if not self._rows or line >= self._starts[-1]:
            return Strip.blank(width, base)
        index = bisect_right(self._starts, line) - 1
        lines = self._row_lines(index, base, width)
        strip = Strip(lines[line - self._starts[index]])
        return strip.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)\
            .simplify()

    def _row_lines(self, index: int, base: Style, width: int) -> list[list[Segment]]:
        """A row's lines as a DataTable draws them: each cell padded and styled, the
        cursor's colours over the cell's own, the rest of the width in the row's style."""
        selected = index == self.cursor_row
        key = (index, selected, base, width, self.has_focus)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        height = self._starts[index + 1] - self._starts[index]
        cursor = self.get_component_rich_style("refs-list--cursor") if selected else Style()
        post = Style.from_color(cursor.color, cursor.bgcolor) if selected else Style.null()
        console, pad = self.app.console, self.cell_padding
        columns = []
        for column, (cell, cell_width) in enumerate(zip(self.get_row_at(index), self.widths)):
            options = self.app.console_options.update_dimensions(cell_width + 2 * pad, height)
            if height == 1:
                options = options.update(no_wrap=True)
            meta = Style.from_meta({"row": index, "column": column})
            columns.append(console.render_lines(
                Styled(Padding(cell, (0, pad)), pre_style=base + meta + cursor,
                       post_style=post), options))
        rest = max(0, width - sum(self.widths) - 2 * pad * len(self.widths))
        extend = base + cursor + Style.from_meta({"row": index, "column": 0})
        lines = [[*(s for cells in columns for s in cells[n]), Segment(" " * rest, extend)]
                 for n in range(height)]
        self._lines[key] = lines
        return lines
