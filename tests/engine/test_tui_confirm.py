"""The TUI and --confirm: an agent's command waiting for a person shows as a notice with
the command and the element's name; y approves, n denies (only while nothing is typed:
otherwise the letters are the prompt's)."""

from __future__ import annotations

import asyncio

from conftest import page, ref_of
from test_tui import app_for, until

from cockpit.tui.confirm import ConfirmNotice
from cockpit.tui.prompt import Prompt

BUTTONS = ("<p id=out>nothing deleted</p>"
           "<button onclick=\"out.textContent = 'all deleted'\">Delete all</button>")


async def test_y_approves_and_n_denies_the_agents_waiting_command(s, base):
    s.policy.approvals.require(["click:*Delete*"], s.registry)
    try:
        assert (await s.run(f"goto {base}{page('tui-confirm', BUTTONS)}")).ok
        assert (await s.run("snapshot -i")).ok
        delete = ref_of(s, "button", "Delete all")
        app = app_for(s)
        async with app.run_test(size=(180, 50)) as pilot:
            notice = app.query_one(ConfirmNotice)
            prompt = app.query_one(Prompt)
            assert not notice.display
            click = asyncio.ensure_future(s.run(f"click {delete}", source="agent"))
            await until(pilot, lambda: notice.display)
            assert f'agent wants `click {delete}` on button "Delete all"' in notice.text
            assert "y approves" in notice.text and "n denies" in notice.text
            prompt.focus()
            await pilot.press("a", "n")  # typing: the letters are the prompt's
            assert prompt.value == "an" and not click.done()
            prompt.value = ""
            await pilot.press("n")
            result = await asyncio.wait_for(click, 15)
            assert not result.ok and result.error == "denied by a person"
            await until(pilot, lambda: not notice.display)
            assert prompt.value == ""

            click = asyncio.ensure_future(s.run(f"click {delete}", source="agent"))
            await until(pilot, lambda: notice.display)
            await pilot.press("y")
            result = await asyncio.wait_for(click, 15)
            assert result.ok, result.error
            assert result.data["confirm"]["answer"] == "approved"
            await until(pilot, lambda: not notice.display)
        assert (await s.run("text '#out'")).output == "all deleted"
    finally:
        s.policy.approvals.require([], s.registry)


async def test_the_element_a_waiting_command_acts_on_is_pictured(s, base, monkeypatch):
    from cockpit.tui.app import CockpitApp
    from cockpit.tui.picture import PicturePane
    s.policy.approvals.require(["click:*Delete*"], s.registry)
    asked: list[str | None] = []
    real = s.picture

    async def picture(labels: bool = False, timeout: float = 3.0, target=None):
        asked.append(target)
        return await real(labels=labels, timeout=timeout, target=target)

    monkeypatch.setattr(s, "picture", picture)
    try:
        assert (await s.run(f"goto {base}{page('tui-confirm-pic', BUTTONS)}")).ok
        assert (await s.run("snapshot -i")).ok
        delete = ref_of(s, "button", "Delete all")
        app = CockpitApp(s, pictures=True)
        async with app.run_test(size=(180, 50)) as pilot:
            pane = app.query_one(PicturePane)
            click = asyncio.ensure_future(s.run(f"click {delete}", source="agent"))
            await until(pilot, lambda: delete in asked)  # the element, not the page
            await until(pilot, lambda: pane.updates > 0)
            await pilot.press("n")
            assert not (await asyncio.wait_for(click, 15)).ok
    finally:
        s.policy.approvals.require([], s.registry)
