"""The TUI: `a` on a ref's row offers the expectations that hold now for that element;
the one picked runs as the person's command (logged, and so recorded and exported)."""

from __future__ import annotations

from conftest import page
from test_tui import app_for, log_rows, type_command, until
from textual.widgets import OptionList

from cockpit.tui.expect_screen import ExpectScreen
from cockpit.tui.refs_pane import RefsPane

FORM = page("tui-expect", """<label>Email <input id=email value="a@b.c"></label>
<label><input type=checkbox id=terms checked> Terms</label>""")


async def test_a_on_a_ref_offers_what_holds_and_the_pick_runs_as_a_command(s, base):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {base}{FORM}")
        await type_command(pilot, "snapshot -i")
        refs = app.query_one(RefsPane)
        await until(pilot, lambda: any(role == "checkbox" for _, role, _, _ in refs.refs))
        terms = next(r for r, role, _, _ in refs.refs if role == "checkbox")
        table = refs.query_one("#refs-table")
        table.focus()
        table.move_cursor(row=[k.value for k in table.rows].index(terms))
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ExpectScreen))
        assert app.screen.lines == [f"expect @{terms} visible", f"expect @{terms} enabled",
                                    f"expect @{terms} checked"]
        assert refs.query_one("#refs-filter").value == ""  # `a` was no filter text
        options = app.screen.query_one(OptionList)
        options.highlighted = 2
        await pilot.press("enter")
        await until(pilot, lambda: any(r[2] == f"expect @{terms} checked" for r in
                                       log_rows(app)))
        await until(pilot, lambda: log_rows(app)[-1][3] == "ok")
        row = log_rows(app)[-1]
        assert row[1] == "human" and row[2] == f"expect @{terms} checked"
        assert not isinstance(app.screen, ExpectScreen)
        assert [r[2] for r in log_rows(app)][-2] == f"expectations @{terms}"
