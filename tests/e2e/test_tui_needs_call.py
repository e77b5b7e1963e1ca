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


async def test_the_needs_notice_and_the_call_name_the_web_view_when_one_is_served():
    """With `cockpit web` serving the session (its live view, with the token: this is the
    person's own cockpit), the NEEDS A HUMAN notice and the terminal's notification say
    where to take the page over; without one, they do not."""
    from cockpit.tui.status_bar import NeedsNotice
    app = make_app()
    written: list[str] = []
    app.bell = lambda: None  # type: ignore[method-assign]
    app.write_to_terminal = written.append  # type: ignore[method-assign]
    link = "http://127.0.0.1:8422/live?token=abc"
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        fake = app.session
        notice = app.query_one(NeedsNotice)
        fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need="captcha", detail="img.captcha",
                         url=CHALLENGE, tab=1)
        await until(pilot, lambda: notice.text.startswith("NEEDS A HUMAN · captcha"))
        assert "web view" not in notice.text
        fake.web_link = link  # `cockpit web` now serves it
        fake.bus.emit_at(fake.clock, ev.NEEDS_HUMAN, need="code", detail="otp field",
                         url="http://127.0.0.1:8765/mfa", tab=1)
        await until(pilot, lambda: notice.text.startswith("NEEDS A HUMAN · code"))
        assert notice.text.endswith(f"or take it over live in the web view: {link}"), \
            notice.text
        await until(pilot, lambda: len(written) == 2)
        assert f"live: {link}" in written[1]


def test_a_notify_command_gets_the_web_view_of_the_session():
    """--notify CMD: COCKPIT_WEB_URL is the web view served when the need came."""
    from cockpit.control.notify import ENV_WEB, SessionNotifier, notify_env
    served: list[str] = []
    notifier = SessionNotifier("s1", "true", desktop=False,
                               web=lambda: served[-1] if served else None)
    calls: list = []
    notifier.caller.call = calls.append  # type: ignore[method-assign]
    notifier.on_event(ev.Event(ev.NEEDS_HUMAN, {"need": "captcha", "detail": "x",
                                                "url": CHALLENGE}))
    assert ENV_WEB not in notify_env(calls[0])
    served.append("http://127.0.0.1:8422/live?token=abc")
    notifier.on_event(ev.Event(ev.NEEDS_HUMAN, {"need": "code", "detail": "y",
                                                "url": CHALLENGE + "/2"}))
    assert notify_env(calls[1])[ENV_WEB] == served[0]
    assert calls[1].text.endswith(f"take it over live: {served[0]}")
