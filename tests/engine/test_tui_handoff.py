"""The cockpit says when a page needs a person, and F10 hands the browser over and back.

Without a display the handoff happens in the terminal (no relaunch), so these run on the
shared session; the window handoff is covered in test_handoff.py under Xvfb."""

from __future__ import annotations

from conftest import to_the_mfa_code
from test_tui import app_for, log_rows, type_command, until

from cockpit.tui.command_log import CommandLog
from cockpit.tui.status_bar import StatusBar


def footer_says(app, binding_id: str = "handoff") -> str:
    """What the footer shows for a key now (its description)."""
    return next(b.binding.description for b in app.screen.active_bindings.values()
                if b.binding.id == binding_id)


async def test_needs_a_human_then_f10_hands_over_and_back(s, site, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # no window: the terminal handoff
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = app_for(s)
    bells = []
    app.bell = lambda: bells.append(1)
    status = None
    try:
        async with app.run_test(size=(180, 50)) as pilot:
            status = app.query_one(StatusBar).status
            await to_the_mfa_code(s, site)
            await type_command(pilot, "click 'button[type=submit]'")  # Verify -> challenge
            await until(pilot, lambda: status.need.startswith("captcha"))
            assert bells, "the terminal bell rang"
            await until(pilot, lambda: app.query_one(CommandLog).rows[-1].status == "ok")
            assert "needs: captcha" in app.query_one(CommandLog).rows[-1].output
            assert footer_says(app) == "Handoff"
            await pilot.press("f10")
            await until(pilot, lambda: app.human_has_control)
            assert status.control.startswith("HUMAN (needs: captcha") and status.need == ""
            assert footer_says(app) == "Give back"  # what F10 does now
            assert s.agents_held and s.handoff.mode == "terminal"
            # the human solves it from the prompt
            await type_command(pilot, f"fill '#answer' {site.captcha_answer}")
            await type_command(pilot, "click 'button[type=submit]'")
            await until(pilot, lambda: s.active.url.endswith("/inbox"))
            await pilot.press("f10")
            await until(pilot, lambda: not app.human_has_control)
            assert status.control == "human" and s.agents_held is None
            assert footer_says(app) == "Handoff"
            await until(pilot, lambda: log_rows(app)[-1][2] == "resume"
                        and log_rows(app)[-1][3] == "ok")
            assert "The human had control" in log_rows(app)[-1][5]
    finally:
        if s.handoff.active:  # the shared session must not stay handed over
            await s.run("resume")


async def test_a_cockpit_attached_during_a_handoff_resumes_with_f10(live, s, site,
                                                                    monkeypatch):
    """Attached while the human has control: the cockpit knows it from the session (it
    saw no `handoff` event), says F10 resumes, and F10 sends `resume`, not `handoff`."""
    from cockpit.control.remote_session import RemoteSession
    from cockpit.tui.app import CockpitApp
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await s.run(f"goto {site.url}/playground")
    assert (await s.run("handoff --terminal solve it")).ok
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    app = CockpitApp(remote, pictures=False)
    try:
        async with app.run_test(size=(180, 50)) as pilot:
            status = app.query_one(StatusBar).status
            await until(pilot, lambda: status.control.startswith("HUMAN (solve it"))
            assert "resumes" in status.control and app.human_has_control
            assert footer_says(app) == "Give back"  # the footer too, not only the status
            await pilot.press("f10")
            await until(pilot, lambda: not s.handoff.active)
            assert [r.command for r in app.query_one(CommandLog).rows
                    if r.command in ("handoff", "resume")] == ["resume"]
    finally:
        await remote.close()
        if s.handoff.active:
            await s.run("resume")
