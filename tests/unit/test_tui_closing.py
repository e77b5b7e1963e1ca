"""A pane that cannot show an event does not end the cockpit: CI once saw a handoff's
event reach the app after its status bar was gone, and the whole app went down with it."""

from __future__ import annotations

import logging

from cockpit.core.base import events as ev


async def test_a_handoff_shown_after_the_status_bar_is_gone_leaves_the_app_running(caplog):
    from tui_fake import FakeSession

    from cockpit.tui.app import CockpitApp
    from cockpit.tui.command_log import CommandLog
    from cockpit.tui.status_bar import StatusBar

    session = FakeSession()
    app = CockpitApp(session, pictures=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.query_one(StatusBar).remove()
        with caplog.at_level(logging.WARNING, logger="cockpit"):
            session.bus.emit(ev.COMMAND_QUEUED, id=1, command="handoff", source="agent")
            session.bus.emit(ev.HANDOFF, reason="a CAPTCHA", mode="terminal")
            for _ in range(100):
                if any("events not shown" in r.message for r in caplog.records):
                    break
                await pilot.pause(0.02)
        assert any("handoff" in r.message and "StatusBar" in r.message
                   for r in caplog.records), caplog.text
        assert app.is_running and app.query_one(CommandLog).rows  # the log still shows it
        session.bus.emit(ev.AGENTS_RELEASED)  # and later events are still handled
        await pilot.pause(0.1)
        assert app.is_running
    assert app.return_code in (None, 0)
