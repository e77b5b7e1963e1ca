"""The TUI driven with Pilot on a real session against the demo site."""

from __future__ import annotations

import time

import pytest
from textual.widgets import Input

from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.diff_pane import DiffPane
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.tabs_pane import TabsPane


async def until(pilot, condition, timeout: float = 15.0) -> None:
    """Let the app run until `condition()` holds (never sleep-and-hope)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


def app_for(s) -> CockpitApp:
    return CockpitApp(s, pictures=False)


async def type_command(pilot, line: str) -> None:
    prompt = pilot.app.query_one(Prompt)
    prompt.focus()
    prompt.value = line
    await pilot.press("enter")


def log_rows(app) -> list[list[str]]:
    return [entry.cells() for entry in app.query_one(CommandLog).rows]


async def test_typed_command_shows_in_the_log_with_its_result(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/report")
        await until(pilot, lambda: any(r[3] == "ok" for r in log_rows(app)))
        row = log_rows(app)[-1]
        assert row[1] == "human" and row[2] == f"goto {site.url}/report"
        assert "Weekly report" in row[5] and int(row[4]) > 0
        assert app.query_one(Prompt).value == ""  # ready for the next command
        await type_command(pilot, "clik")
        await until(pilot, lambda: any(r[3] == "error" for r in log_rows(app)))
        assert "unknown command 'clik'" in log_rows(app)[-1][5]


async def test_refs_pane_fills_after_snapshot_and_enter_inserts_a_ref(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/login")
        await type_command(pilot, "snapshot -i")
        refs = app.query_one(RefsPane)
        await until(pilot, lambda: [r[3] for r in log_rows(app)] == ["ok", "ok"])
        await until(pilot, lambda: any(name == "Sign in" for _, _, name, _ in refs.refs))
        refs.query_one(Input).value = "sign in"  # filter
        table = refs.query_one("#refs-table")
        await until(pilot, lambda: table.row_count >= 1)
        button = next(r for r, role, name, _ in refs.refs if role == "button")
        table.focus()
        table.move_cursor(row=[k.value for k in table.rows].index(button))
        await pilot.press("enter")
        await until(pilot, lambda: app.query_one(Prompt).value.strip() == f"@{button}")
        assert app.focused is app.query_one(Prompt)


async def test_tab_completion_of_commands_and_refs(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/login")
        await type_command(pilot, "snapshot -i")
        await until(pilot, lambda: len(app.query_one(RefsPane).refs) > 3)
        prompt = app.query_one(Prompt)
        prompt.value = "snaps"
        await pilot.press("tab")
        assert prompt.value == "snapshot "
        prompt.value = "click @"
        await pilot.press("tab")
        ref = prompt.value.removeprefix("click ")
        assert ref.startswith("@") and ref[1:] in {r for r, _, _, _ in app.query_one(RefsPane).refs}


async def test_tab_switch_from_the_tabs_pane(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/")
        await type_command(pilot, f"newtab {site.url}/report")
        tabs = app.query_one(TabsPane)
        await until(pilot, lambda: tabs.row_count == 2 and s.active.index == 2)
        tabs.focus()
        tabs.move_cursor(row=0)
        await pilot.press("enter")
        await until(pilot, lambda: s.active.index == 1)
        await until(pilot, lambda: tabs.get_row_at(0)[0].plain == "▶")


async def test_diff_pane_after_a_click(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/playground")
        await type_command(pilot, "snapshot -i")
        await until(pilot, lambda: any(n == "Clickable div" or n == "Double-click me"
                                       for _, _, n, _ in app.query_one(RefsPane).refs))
        ref = next(r for r, role, n, _ in app.query_one(RefsPane).refs if n == "Double-click me")
        await type_command(pilot, f"dblclick @{ref}")
        diff = app.query_one(DiffPane)
        await until(pilot, lambda: diff.steps and diff.steps[-1].command.startswith("dblclick"))
        shown = str(diff.render())
        assert "dblclick" in shown and "Double-clicked" in shown
        await pilot.press("alt+left")  # the previous step: the goto
        assert "goto" in str(diff.render())


async def test_hostile_title_and_console_are_shown_literally(s, site):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await type_command(pilot, f"goto {site.url}/hostile")
        tabs = app.query_one(TabsPane)
        await until(pilot, lambda: tabs.row_count and "pwned" in tabs.get_row_at(0)[2].plain)
        title = tabs.get_row_at(0)[2]
        assert title.plain.startswith("[bold red]pwned[/]")  # the markup is text...
        assert all(span.start >= len("[bold red]pwned[/]") for span in title.spans)  # unstyled
        await type_command(pilot, "console")
        await until(pilot, lambda: any(r[2] == "console" and r[3] == "ok"
                                       for r in log_rows(app)))
        entry = list(app.query_one(CommandLog).entries.values())[-1]
        assert "\x1b" in entry.output  # the engine keeps the data as it came
        row = log_rows(app)[-1]
        assert "\x1b" not in row[5] and "␛" in row[5]  # the screen gets it made visible


@pytest.mark.parametrize("count", [10_000])
async def test_ten_thousand_log_events_while_the_prompt_answers(s, count):
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        bus = s.bus
        for i in range(count):
            bus.emit("command.queued", id=10_000_000 + i, command=f"js {i}", source="agent")
            bus.emit("command.finished", id=10_000_000 + i, source="agent", ok=True,
                     output=str(i), error=None, ms=1.0, data={}, command=f"js {i}",
                     exit_code=0)
        log = app.query_one(CommandLog)
        await until(pilot, lambda: log.row_count >= count, timeout=60)
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press("h", "e", "l", "p")
        assert prompt.value == "help"
        assert log.row_count <= 10_000


async def test_a_browser_that_cannot_start_is_explained_not_fatal(tmp_path):
    from cockpit.cli.live import LiveSession, SessionOptions
    from cockpit.tui.status_bar import StatusBar
    live = LiveSession(SessionOptions("tui-nobrowser", browser_path=str(tmp_path / "no-chrome"),
                                      no_record=True), workspace=tmp_path)
    session = live.session
    app = CockpitApp(session, pictures=False, live=live)
    async with app.run_test(size=(160, 48)) as pilot:
        status = app.query_one(StatusBar)
        await until(pilot, lambda: "not an executable file" in status.status.last_error)
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.press("h", "i")
        assert prompt.value == "hi"  # the app still answers
        result = await session.run("title")
        assert not result.ok and "browser is not running" in result.error
        assert (await session.run("help click")).ok


async def test_the_log_drops_its_oldest_rows_past_the_cap(s, monkeypatch):
    from cockpit.tui import command_log
    monkeypatch.setattr(command_log, "MAX_ROWS", 50)
    app = app_for(s)
    async with app.run_test(size=(160, 48)) as pilot:
        for i in range(56):
            s.bus.emit("command.queued", id=20_000_000 + i, command=f"js {i}", source="agent")
        log = app.query_one(CommandLog)
        await until(pilot, lambda: log.row_count == 50)
        assert log_rows(app)[0][2] == "js 6" and log_rows(app)[-1][2] == "js 55"
        s.bus.emit("command.finished", id=20_000_000 + 55, source="agent", ok=True,
                   output="done", error=None, ms=3.0, data={}, command="js 55", exit_code=0)
        await until(pilot, lambda: log_rows(app)[-1][3] == "ok")
        assert log_rows(app)[-1][5] == "done"
