"""The refs pane on a big page: 5,000 refs filter, only the visible rows are drawn, and keys
typed while the refs are replaced all arrive (issue 17). A fake session, no browser."""

from __future__ import annotations

import asyncio
import time

from cockpit.core import events as ev
from cockpit.tui.app import CockpitApp
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsList, RefsPane
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


async def until(pilot, condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.02)


async def test_five_thousand_refs_filter_and_draw_only_what_shows():
    page = BigPage()
    app = CockpitApp(page, owns_session=False, pictures=False)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        pane = app.query_one(RefsPane)
        table = pane.query_one(RefsList)
        drawn: list[tuple] = []
        line = table._line
        table._line = lambda row, width, selected: drawn.append(row) or line(row, width,
                                                                              selected)
        page.new_snapshot()
        await until(pilot, lambda: table.row_count == 5_000)
        await pilot.pause()
        assert pane.border_subtitle == "5000/5000"
        # a virtual list: the rows on screen are drawn, not the 5,000
        assert 0 < len(drawn) <= table.size.height + 2, len(drawn)
        pane.query_one("#refs-filter").value = "section 4321 "
        await until(pilot, lambda: table.row_count == 1)
        assert pane.border_subtitle == "1/5000"
        assert table.rows[0][:3] == ("e4321", "link", "section 4321 v1")
        table.focus()
        await pilot.press("enter")  # Enter puts the ref in the prompt
        await until(pilot, lambda: app.query_one(Prompt).value.strip() == "@e4321")
        # a new snapshot keeps the filter; the cursor stays on its ref
        page.new_snapshot()
        await until(pilot, lambda: table.rows and table.rows[0][2] == "section 4321 v2")
        assert table.row_count == 1 and table.cursor_ref == "e4321"
        pane.query_one("#refs-filter").value = ""
        await until(pilot, lambda: table.row_count == 5_000)
        table.focus()
        await pilot.press("end")
        assert table.cursor_ref == "e5000"
        assert table.scroll_offset.y > 4_900  # scrolled to the last row


async def test_keys_typed_while_the_refs_are_replaced_all_arrive():
    page = BigPage()
    app = CockpitApp(page, owns_session=False, pictures=False)
    async with app.run_test(headless=True, size=SIZE) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        table = app.query_one(RefsList)
        typed = "click @e4999"
        for n, key in enumerate(typed):
            page.new_snapshot()  # a new 5,000-ref snapshot between every two keys
            await pilot.press("space" if key == " " else "commercial_at" if key == "@"
                              else key)
            if n % 3 == 0:
                await asyncio.sleep(0)
        await until(pilot, lambda: prompt.value == typed)
        await until(pilot, lambda: table.rows and
                    table.rows[0][2] == f"section 1 v{page.generation}")
        assert table.row_count == 5_000
