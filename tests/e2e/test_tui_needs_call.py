"""The cockpit calls a person once per need: the bell and an OSC 9 / OSC 777 desktop
notification when a page starts needing one; the same need said again calls nobody,
and a new one calls again (a browserless session: tests/tui_fake.py)."""

from __future__ import annotations

from test_tui_layout import loaded, make_app, until

from cockpit.core.base import events as ev
from cockpit.tui.status_bar import StatusBar

CHALLENGE = "http://127.0.0.1:8765/challenge"


async def test_the_tui_rings_and_notifies_once_per_need():
    app = make_app()
    bells: list[int] = []
    written: list[str] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    app.write_to_terminal = written.append  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        fake = app.session
        status = app.query_one(StatusBar).status
        for _ in range(3):  # the same need, said again (another check of the same page)
            fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need="captcha", detail="img.captcha",
                             url=CHALLENGE, tab=1)
        await until(pilot, lambda: status.need.startswith("captcha"))
        await pilot.pause()
        assert len(bells) == 1 and len(written) == 1, written
        assert written[0].startswith("\x1b]9;Cockpit: fake needs a human: captcha "
                                     "(img.captcha) at " + CHALLENGE)
        assert "\x1b]777;notify;Cockpit: fake needs a human;captcha" in written[0]
        fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need="code", detail="otp field",
                         url="http://127.0.0.1:8765/mfa", tab=1)
        await until(pilot, lambda: status.need.startswith("code"))
        await pilot.pause()
        assert len(bells) == 2 and "needs a human: code (otp field)" in written[1]
