"""The main screen at every terminal size, the output pane, the refs and tabs panes, and the
NEEDS A HUMAN notice, driven with Pilot over the FakeSession (no browser)."""

from __future__ import annotations

import html
import re
import time

import pytest
from textual.widgets import Input

from cockpit.core import REGISTRY
from cockpit.core.base import events as ev
from cockpit.core.language.completion import complete
from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.layout import SINGLE, STACKED, WIDE, layout_for
from cockpit.tui.output_pane import OutputPane
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.status_bar import NeedsNotice, StatusBar
from cockpit.tui.tabs_pane import TabsPane
from tui_fake import PRELOAD, SNAPSHOT_I, FakeSession, preload

PANES = ("tabs", "log", "picture-pane", "refs", "output", "diff", "agent")


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


async def until(pilot, condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the app did not reach the expected state in time")
        await pilot.pause(0.05)


def make_app() -> CockpitApp:
    return CockpitApp(FakeSession(), pictures=False)


async def loaded(pilot) -> None:
    await preload(pilot.app.session)
    log = pilot.app.query_one(CommandLog)
    await until(pilot, lambda: len(log.rows) == len(PRELOAD)
                and all(e.status in ("ok", "error") for e in log.rows))
    await pilot.pause()


def screen_lines(app) -> list[str]:
    """What the terminal shows, row by row (from the screenshot's text)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                         app.export_screenshot()):
        rows.setdefault(float(m.group(2)), []).append(
            (float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " ")))
    return ["".join(t for _, t in sorted(rows[y])) for y in sorted(rows)]


def shown(app) -> set[str]:
    return {pane for pane in PANES if app.query_one(f"#{pane}").display}


def test_the_layout_follows_the_terminal_size():
    assert layout_for(200, 50) == WIDE and layout_for(120, 40) == WIDE
    assert layout_for(80, 24) == STACKED and layout_for(120, 24) == STACKED
    assert layout_for(60, 20) == SINGLE and layout_for(80, 18) == SINGLE


async def test_at_80x24_the_log_status_and_footer_keep_what_matters():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        log = app.query_one(CommandLog)
        assert log.scrollable_content_region.height - 1 >= 5, "5 log rows under the header"
        assert shown(app) == {"log", "output", "agent"}  # the rest: ctrl+n
        status = app.query_one(StatusBar)
        status.set(agent="running: a very long description of what the agent does " * 3,
                   need="captcha (type the characters in the image)")
        await pilot.pause()
        lines = screen_lines(app)
        status_line = next(line for line in lines if line.lstrip().startswith("control"))
        assert "NEEDS A HUMAN: captcha" in status_line
        assert "f10 Handoff" in lines[-1], lines[-1]
        # the palette key covers the footer's last column (a key beneath showed through)
        assert lines[-1].rstrip().endswith("^p palette"), lines[-1]


async def test_at_60x20_one_pane_at_a_time_and_a_key_cycles_them():
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await loaded(pilot)
        assert shown(app) == {"log", "output"}  # the log, its output under it
        seen = []
        for _ in range(6):
            await pilot.press("ctrl+n")
            seen.append(shown(app))
        assert seen == [{"agent"}, {"picture-pane"}, {"refs"}, {"diff"}, {"tabs"},
                        {"log", "output"}]
        assert all(app.query_one(f"#{pane}").region.width == 60
                   for pane in shown(app)), "the pane fills the width"
        await pilot.press("f3")  # a key that focuses a hidden pane shows it
        assert shown(app) == {"refs"}
        assert app.focused is app.query_one("#refs-filter")


async def test_a_resize_changes_the_layout_and_keeps_the_panes():
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot)
        assert shown(app) == set(PANES)
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: shown(app) == {"log", "output", "agent"})
        await pilot.resize_terminal(200, 50)
        await until(pilot, lambda: shown(app) == set(PANES))
        assert len(app.query_one(CommandLog).rows) == len(PRELOAD)


async def test_the_output_pane_shows_the_whole_result_of_the_row_under_the_cursor():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        output = app.query_one(OutputPane)
        await until(pilot, lambda: output.text.startswith("error: unknown command 'clik'"))
        log = app.query_one(CommandLog)
        log.focus()
        await pilot.press("up", "up")  # the snapshot -i row
        await until(pilot, lambda: output.text == SNAPSHOT_I)
        assert output.document.line_count == len(SNAPSHOT_I.splitlines()), "lines, not ⏎"
        assert "snapshot -i" in str(output.border_title)
        await pilot.press("end")  # back on the newest row: it follows new commands again
        await app.session.run("click @e3", source="agent")
        await until(pilot, lambda: output.text.startswith("clicked @e3"))
        assert "~ @e3 checkbox" in output.text.splitlines()[2]


async def test_refs_are_whole_f3_filters_and_names_wrap():
    app = make_app()
    long_name = "Accept the terms and conditions of the service agreement"
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        refs = app.query_one(RefsPane)
        refs.show([("f1e1061", "button", "Sign in", ""), ("f1e1062", "checkbox", long_name, ""),
                   ("f2e7", "link", "Help", "")])
        await pilot.press("f3")
        assert app.focused is refs.query_one(Input)
        table = refs.query_one("#refs-table")
        assert [table.get_row_at(i)[0].plain for i in range(3)] == \
            ["@f1e1061", "@f1e1062", "@f2e7"]
        rows = list(table.rows.values())
        assert rows[1].height > 1, "the long name takes more lines"
        assert "f1e1061" in "\n".join(screen_lines(app)), "the ref is not cut on screen"
        await pilot.press(*"help")
        await until(pilot, lambda: table.row_count == 1)
        assert table.get_row_at(0)[0].plain == "@f2e7"
        table.focus()  # typing on the list goes to the filter too
        await pilot.press("backspace")  # no effect on the table
        await pilot.press("x")
        assert refs.query_one(Input).value == "helpx" and table.row_count == 0


async def test_the_tabs_pane_shows_host_and_path():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        tabs = app.query_one(TabsPane)
        await until(pilot, lambda: tabs.row_count == 2)
        cells = [tabs.get_row_at(i)[2].plain for i in range(2)]
        assert cells[0].splitlines()[1] == "127.0.0.1:8765/login"
        assert cells[1].splitlines()[1] == "127.0.0.1:8765/report"
        assert "127.0.0.1:8765/login" in "\n".join(screen_lines(app))


async def test_one_needs_a_human_notice_at_a_time_never_over_the_status_bar():
    app = make_app()
    toasts: list[str] = []
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await loaded(pilot)
        real_notify = app.notify
        app.notify = lambda message, **kw: (toasts.append(message),  # type: ignore[method-assign]
                                            real_notify(message, **kw))
        fake = app.session
        for need in ("mfa", "captcha"):
            fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need=need, detail=f"the {need} form",
                             url="http://127.0.0.1:8765/challenge", tab=1)
        notice = app.query_one(NeedsNotice)
        await until(pilot, lambda: "captcha" in notice.text)
        assert "mfa" not in notice.text and notice.display
        assert not [t for t in toasts if "form" in t], "no toast piles up for a need"
        status = app.query_one(StatusBar)
        assert not notice.region.overlaps(status.region)
        app.notify("something else happened", timeout=30)
        await until(pilot, lambda: bool(app.screen.query("Toast")))
        for toast in app.screen.query("Toast"):
            assert not toast.region.overlaps(status.region), "a toast covers the status bar"
        fake.bus.emit_at(fake.clock, ev.NEEDS_CLEARED, need="captcha",
                         url="http://127.0.0.1:8765/inbox")
        await until(pilot, lambda: not notice.display)
        assert status.status.need == ""


async def test_the_next_pane_key_is_remappable_and_hidden_where_it_does_nothing(tmp_path,
                                                                             monkeypatch):
    config = tmp_path / "config" / "cockpit" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("keys:\n  pane.next: ctrl+o\n")
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await loaded(pilot)
        await pilot.press("ctrl+o")
        assert shown(app) == {"agent"}
        await pilot.resize_terminal(200, 50)
        await until(pilot, lambda: shown(app) == set(PANES))
        assert "Next pane" not in screen_lines(app)[-1]
        assert app.query_one(Prompt)


def test_completion_lists_each_flag_once():
    _, candidates = complete("snap -", REGISTRY)
    labels = [c.label for c in candidates]
    assert labels and len(labels) == len(set(labels)), labels
    assert [c.text for c in complete("snapshot --i", REGISTRY)[1]] == ["--interactive"]
