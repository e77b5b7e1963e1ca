"""The command log shows every command it hears of, and keeps the newest in view while
it follows: a person who types a command sees its row."""

from __future__ import annotations

import time

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from cockpit.core import Event
from cockpit.core import events as ev
from cockpit.tui.command_log import CommandLog
from cockpit.tui.messages import CommandsRan

pytestmark = pytest.mark.unit


def queued(i: int, command: str = "url", source: str = "agent") -> Event:
    return Event(ev.COMMAND_QUEUED, {"id": i, "source": source, "command": command},
                 time=time.time())


def finished(i: int, command: str = "url", source: str = "agent") -> Event:
    return Event(ev.COMMAND_FINISHED, {"id": i, "source": source, "command": command,
                                       "ok": True, "ms": 3.0, "output": "done",
                                       "error": None}, time=time.time())


def ran(numbers: range) -> CommandsRan:
    """The commands numbered so, each queued then finished, as one batch."""
    return CommandsRan([e for n in numbers for e in (queued(n), finished(n))])


class LogAbove(App):
    CSS = "CommandLog { height: 20; border: round white; } Static { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield CommandLog()
        yield Static("below")


def last_row_shown(log: CommandLog) -> bool:
    return log.scroll_offset.y + log._visible_rows() >= len(log.rows)


async def test_the_newest_row_stays_in_view_when_the_pane_gets_shorter():
    app = LogAbove()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(CommandLog)
        log.post_message(ran(range(1, 15)))
        await pilot.pause()
        assert last_row_shown(log) and log.cursor == 13
        log.styles.height = 12  # a pane below it grew: now 9 rows show
        await pilot.pause()
        await pilot.pause()
        assert log.cursor == 13 and last_row_shown(log), log.scroll_offset


async def test_a_command_whose_queued_event_was_lost_still_gets_its_row():
    app = LogAbove()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(CommandLog)
        log.post_message(ran(range(1, 2)))
        await pilot.pause()
        log.post_message(CommandsRan([finished(2, "fill #answer K7RWM", "human")]))
        await pilot.pause()
        row = log.rows[-1]
        assert (row.id, row.source, row.command, row.status) == (
            2, "human", "fill #answer K7RWM", "ok")
        assert log.cursor == 1  # followed, as any new row


async def test_the_row_that_first_overflows_the_pane_is_shown_at_once():
    """The command whose row is the first that does not fit (the person's click while
    the agent waits for them) shows at once, not when some later row comes: Textual
    scrolls a widget only once it shows a scrollbar, which it decides at the next layout."""
    app = LogAbove()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(CommandLog)
        for n in range(1, 25):
            log.post_message(ran(range(n, n + 1)))
            await pilot.pause()
            assert last_row_shown(log), (n, log.scroll_offset)
        assert log.scroll_offset.y > 0


async def test_an_attached_cockpits_history_opens_on_its_newest_row():
    """A long history arriving in one batch (a cockpit attached to a busy session) opens
    scrolled to its newest row, with no horizontal scrollbar taking a row."""
    app = LogAbove()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(CommandLog)
        log.post_message(ran(range(1, 60)))
        await pilot.pause()
        assert log.cursor == 58 and last_row_shown(log), log.scroll_offset
        assert not log.show_horizontal_scrollbar
