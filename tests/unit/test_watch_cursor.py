"""The watch's cursor (a Pilot on WatchApp over rows given by the test, no sessions): it
stays on the session a person moved it to, and otherwise on the first row, the one that
most needs a person, however the redraws come; Enter attaches to the row under it."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import DataTable

from cockpit.control.monitor import SessionRow
from cockpit.tui.watch import WatchApp

CAPTCHA = {"kind": "captcha", "detail": "element img.captcha", "url": "http://x/challenge"}


class Rows:
    """What WatchApp reads of a Monitor: its rows (those that need a person first)."""

    def __init__(self, *rows: SessionRow) -> None:
        self.list = list(rows)
        self.notes: dict[str, str] = {}
        self.feeds: dict[str, object] = {}

    def subscribe(self, listener: Callable[[list], None]) -> Callable[[], None]:
        return lambda: None

    def rows(self) -> list[SessionRow]:
        return sorted(self.list, key=SessionRow.order)


def fleet() -> tuple[SessionRow, SessionRow, Rows]:
    alpha = SessionRow("alpha", "/w", "/run/alpha.sock", 1, connected=True)
    zeta = SessionRow("zeta", "/w", "/run/zeta.sock", 2, connected=True)
    return alpha, zeta, Rows(alpha, zeta)


async def test_enter_attaches_to_the_session_that_came_first_between_two_redraws():
    """Two redraws before the app reads its messages (a burst of events): the first
    one's own highlight of its first row is no person's choice."""
    _alpha, zeta, rows = fleet()
    app = WatchApp(rows)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        app.redraw()  # alpha first ...
        zeta.need = CAPTCHA
        app.redraw()  # ... and at once zeta, which needs a person
        await pilot.pause()
        app.redraw()
        await pilot.pause()
        assert app.selected is None
        assert app.query_one(DataTable).cursor_row == 0
        await pilot.press("enter")
    assert app.return_value == "/run/zeta.sock"


async def test_the_session_a_person_moved_to_keeps_the_cursor():
    alpha, _zeta, rows = fleet()
    app = WatchApp(rows)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down")  # the person chooses zeta
        await pilot.pause()
        assert app.selected == "/run/zeta.sock"
        alpha.need = CAPTCHA  # alpha needs a person now, and stays first
        app.redraw()
        await pilot.pause()
        assert app.query_one(DataTable).cursor_row == 1  # still on zeta
        await pilot.press("enter")
    assert app.return_value == "/run/zeta.sock"


async def test_a_key_a_redraw_comes_before_the_table_tells_of_is_not_lost():
    """The person's Down moved the cursor; a session's event redraws the table before the
    app has read the table's RowHighlighted: the cursor stays where the person put it."""
    _alpha, _zeta, rows = fleet()
    app = WatchApp(rows)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        app.query_one(DataTable).action_cursor_down()  # the key, its message queued ...
        app.redraw()  # ... and a redraw first
        await pilot.pause()
        assert app.selected == "/run/zeta.sock"
        assert app.query_one(DataTable).cursor_row == 1
        await pilot.press("enter")
    assert app.return_value == "/run/zeta.sock"
