"""SVG snapshots of the TUI over a FakeSession (no browser, fixed times).

Update the baselines with `pytest tests/e2e/test_tui_snapshots.py --snapshot-update`, then look
at the SVGs in tests/__snapshots__/ before keeping them.

These tests are plain functions: `snap_compare` runs the app in its own event loop.
Every screen is still when it is taken: no blinking cursor (`still`), fixed clock times.
"""

from __future__ import annotations

import time

import pytest

from textual.widgets import Input

from cockpit.core.base import events as ev
from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.diff_pane import DiffPane
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.screens import HelpScreen
from cockpit.tui.tabs_pane import TabsPane
from tui_fake import PRELOAD, FakeSession, preload

SIZE = (160, 48)
# The sizes the layouts are designed for (tui/layout.py): wide, wide and short of columns,
# stacked, and one pane at a time.
SIZES = [(200, 50), (120, 40), (80, 24), (60, 20)]


@pytest.fixture(autouse=True)
def stable_env(monkeypatch, tmp_path):
    """UTC clock times in the log; no user themes from the machine running the tests."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def settle(pilot, condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the app did not reach the expected state in time")
        await pilot.pause(0.05)


def still(app) -> None:
    """No blinking cursor: a blink caught half-way made the snapshots flaky under load.
    Call it again once a screen with its own input is open."""
    for field in app.screen.query(Input):
        field.cursor_blink = False


async def preloaded(pilot) -> None:
    """Run the canned commands and wait until every pane shows them."""
    app = pilot.app
    still(app)
    await preload(app.session)
    log = app.query_one(CommandLog)
    await settle(pilot, lambda: len(log.entries) == len(PRELOAD)
                 and all(e.status in ("ok", "error") for e in log.entries.values()))
    await settle(pilot, lambda: app.query_one(TabsPane).row_count == 2
                 and app.query_one(RefsPane).refs
                 and len(app.query_one(DiffPane).steps) == 2)
    await pilot.pause()


def make_app() -> CockpitApp:
    return CockpitApp(FakeSession(), pictures=False)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_main_screen_after_commands(snap_compare, size):
    """Every size shows the log with its rows, the output of the last command as lines,
    the status bar's control field and the footer's F10."""
    assert snap_compare(make_app(), terminal_size=size, run_before=preloaded)


def test_needs_a_human_at_80x24(snap_compare):
    """The page needs a person: one notice above the status bar, which still says it."""
    async def run_before(pilot) -> None:
        await preloaded(pilot)
        fake = pilot.app.session
        for need in ("mfa", "captcha"):  # the second replaces the first
            fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need=need, detail=f"{need} form",
                             url="http://127.0.0.1:8765/challenge", tab=1)
        await settle(pilot, lambda: "captcha" in pilot.app.query_one("#needs").text)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_help_screen(snap_compare):
    async def run_before(pilot) -> None:
        await preloaded(pilot)
        await pilot.press("f1")
        await settle(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        still(pilot.app)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_ref_completion_candidates(snap_compare):
    async def run_before(pilot) -> None:
        await preloaded(pilot)
        prompt = pilot.app.query_one(Prompt)
        prompt.focus()
        await pilot.press(*"fill @")
        await pilot.press("tab")
        await settle(pilot, lambda: prompt.value == "fill @e1")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)
