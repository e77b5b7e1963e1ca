"""SVG snapshots of the TUI over a FakeSession (no browser, fixed times).

Update the baselines with `pytest tests/test_tui_snapshots.py --snapshot-update`, then look
at the SVGs in tests/__snapshots__/ before keeping them.

These tests are plain functions: `snap_compare` runs the app in its own event loop.
"""

from __future__ import annotations

import time

import pytest

from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.diff_pane import DiffPane
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.screens import HelpScreen
from cockpit.tui.tabs_pane import TabsPane
from tui_fake import PRELOAD, FakeSession, preload

SIZE = (160, 48)


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


async def preloaded(pilot) -> None:
    """Run the canned commands and wait until every pane shows them."""
    app = pilot.app
    await preload(app.session)
    log = app.query_one(CommandLog)
    await settle(pilot, lambda: len(log.entries) == len(PRELOAD)
                 and all(e.status in ("ok", "error") for e in log.entries.values()))
    await settle(pilot, lambda: app.query_one(TabsPane).row_count == 2
                 and app.query_one(RefsPane).refs
                 and len(app.query_one(DiffPane).steps) == 2)
    await pilot.pause()


def make_app() -> CockpitApp:
    return CockpitApp(FakeSession(), owns_session=False, pictures=False)


def test_main_screen_after_commands(snap_compare):
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=preloaded)


def test_help_screen(snap_compare):
    async def run_before(pilot) -> None:
        await preloaded(pilot)
        await pilot.press("f1")
        await settle(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
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
