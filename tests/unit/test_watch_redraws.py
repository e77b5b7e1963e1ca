"""The watch's table shows each session's change within a quarter of a second, however
many events come: a burst of them is one redraw, and an event that changes no cell
draws nothing (ten busy agents' events, each drawn, took the watch's share of a busy
machine and a person's key waited)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.widgets import DataTable

from cockpit.control.monitor import LastCommand, SessionRow
from cockpit.tui.watch import REDRAW_GAP_S, WatchApp
from test_watch_cursor import Rows


class Told(Rows):
    """Rows whose listener the test calls, as the monitor does after each event."""

    def subscribe(self, listener: Callable[[list], None]) -> Callable[[], None]:
        self.listener = listener
        return lambda: None


async def test_a_burst_of_events_is_one_redraw_and_the_change_shows():
    alpha = SessionRow("alpha", "/w", "/run/alpha.sock", 1, connected=True)
    rows = Told(alpha)
    app = WatchApp(rows)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause(REDRAW_GAP_S)
        table = app.query_one(DataTable)
        rebuilt: list[float] = []
        clear = table.clear
        table.clear = lambda *a, **k: rebuilt.append(time.monotonic()) or clear(*a, **k)
        told = time.monotonic()
        alpha.last = LastCommand("goto /a", "agent", time.time())
        for _ in range(20):  # the command's events, one after another
            rows.listener([])
        await pilot.pause()
        deadline = time.monotonic() + 5
        while str(table.get_row_at(0)[4]) != "goto /a":
            assert time.monotonic() < deadline, table.get_row_at(0)
            await asyncio.sleep(0.02)
        assert len(rebuilt) == 1, rebuilt
        # events that change no cell (the same row again) rebuild nothing
        for _ in range(5):
            rows.listener([])
        await pilot.pause(REDRAW_GAP_S * 2)
        assert len(rebuilt) == 1 or rebuilt[-1] - told >= 1.0  # (the ages' own tick aside)


async def test_a_change_after_a_quiet_spell_is_drawn_at_once():
    """The first event after the table has been still for a while is drawn at once (it
    once set a 0 s timer, which Textual never fires: later changes waited for the ages'
    once-a-second tick, and the redraws the events asked for never came)."""
    alpha = SessionRow("alpha", "/w", "/run/alpha.sock", 1, connected=True)
    rows = Told(alpha)
    app = WatchApp(rows)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause(REDRAW_GAP_S * 2)  # still for longer than the gap
        table = app.query_one(DataTable)
        for n in range(3):
            alpha.last = LastCommand(f"goto /{n}", "agent", time.time())
            rows.listener([])
            deadline = time.monotonic() + REDRAW_GAP_S * 2
            while app.redraw_pending or str(table.get_row_at(0)[4]) != f"goto /{n}":
                assert time.monotonic() < deadline, (n, app.redraw_pending,
                                                      table.get_row_at(0))
                await asyncio.sleep(0.01)
            await pilot.pause(REDRAW_GAP_S * 1.5)
