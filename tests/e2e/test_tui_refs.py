"""The refs pane on a big page (issue 17): all 5,000 refs are there, scroll to the last,
filter, Enter, the cursor kept across snapshots, keys typed meanwhile all arrive; only the
rows on screen are drawn; wrapped names as tall as a DataTable makes them. A fake session."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from cockpit.core.base import events as ev
from cockpit.tui.app import CockpitApp
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_list import RefsList
from cockpit.tui.refs_pane import RefsPane
from test_tui_layout import screen_lines
from tui_fake import FakeSession

SIZE = (160, 48)


class BigPage(FakeSession):
    """A page of `count` links; `generation` renames them, as a new snapshot would."""

    def __init__(self, count: int = 5_000) -> None:
        super().__init__()
        self.count = count
        self.generation = 0

    def refs_info(self) -> list[tuple[str, str, str, str]]:
        g = self.generation
        return [(f"e{i}", "link", f"section {i} v{g}", "") for i in range(1, self.count + 1)]

    def refs(self) -> list[tuple[str, str, str]]:
        return [(r, role, name) for r, role, name, _ in self.refs_info()]

    def new_snapshot(self) -> None:
        self.generation += 1
        self.bus.emit(ev.SNAPSHOT, tab=1, url="http://127.0.0.1/big", refs=self.count)


async def until(pilot, condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.02)


async def test_every_ref_of_a_big_page_is_listed_filtered_and_inserted():
    page = BigPage()
    app = CockpitApp(page, pictures=False)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        pane = app.query_one(RefsPane)
        table = pane.query_one(RefsList)
        page.new_snapshot()
        await until(pilot, lambda: table.row_count == 5_000)
        assert pane.border_subtitle == "5000/5000"
        table.focus()
        await pilot.press("ctrl+end")  # the last of the 5,000 is there, and shows
        await pilot.pause()
        assert table.cursor_ref == "e5000"
        assert "@e5000" in "\n".join(screen_lines(app))
        pane.query_one("#refs-filter").value = "section 4321 "
        await until(pilot, lambda: table.row_count == 1)
        assert pane.border_subtitle == "1/5000"
        assert table.get_row_at(0)[2].plain == "section 4321 v1"
        table.focus()
        await pilot.press("enter")  # Enter puts the ref in the prompt
        await until(pilot, lambda: app.query_one(Prompt).value.strip() == "@e4321")
        # a new snapshot keeps the filter; the cursor stays on its ref
        page.new_snapshot()
        await until(pilot, lambda: table.row_count == 1
                    and table.get_row_at(0)[2].plain == "section 4321 v2")
        pane.query_one("#refs-filter").value = ""
        await until(pilot, lambda: table.row_count == 5_000)
        assert table.cursor_ref == "e4321"
        assert "section 4321 v2" in "\n".join(screen_lines(app))  # scrolled to it


async def test_only_the_rows_on_screen_are_drawn():
    page = BigPage()
    app = CockpitApp(page, pictures=False)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        table = app.query_one(RefsList)
        drawn: set[int] = set()
        row_lines = table._row_lines
        table._row_lines = lambda index, *a: drawn.add(index) or row_lines(index, *a)
        page.new_snapshot()
        await until(pilot, lambda: table.row_count == 5_000)
        await pilot.pause()
        assert 0 < len(drawn) <= table.size.height, len(drawn)


async def test_keys_typed_while_big_snapshots_arrive_all_arrive():
    page = BigPage()
    app = CockpitApp(page, pictures=False)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        table = app.query_one(RefsList)
        typed = "click @e4999"
        for key in typed:
            page.new_snapshot()  # a new 5,000-ref snapshot between every two keys
            await pilot.press({" ": "space", "@": "commercial_at"}.get(key, key))
        await until(pilot, lambda: prompt.value == typed)
        await until(pilot, lambda: table.row_count == 5_000 and
                    table.get_row_at(0)[2].plain == f"section 1 v{page.generation}")


NAMES = ["Sign in", "Accept the terms and conditions of the service agreement",
         "a" * 40, "word " * 9 + "x" * 30, "数据" * 12, "tab\there", "line one\nline two"]


class Both(App):
    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", show_header=False)
        yield RefsList()


async def test_wrapped_names_are_as_tall_as_in_a_datatable():
    app = Both()
    rows = [(f"e{i}", "button", name, "on" if i % 2 else "")
            for i, name in enumerate(NAMES)]
    async with app.run_test(size=(60, 40)) as pilot:
        table, refs = app.query_one(DataTable), app.query_one(RefsList)
        refs.set_rows(rows, (4, 6, 14))
        for column, width in zip(("ref", "role", "name"), (4, 6, 14)):
            table.add_column(column, key=column, width=width)
        for i in range(len(rows)):
            table.add_row(*[cell if isinstance(cell, Text) else Text(cell)
                            for cell in refs.get_row_at(i)], key=rows[i][0], height=None)
        await pilot.pause()
        await until(pilot, lambda: all(r.height for r in table.rows.values()))
        assert [r.height for r in refs.rows.values()] == \
            [r.height for r in table.rows.values()]
