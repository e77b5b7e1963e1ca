"""`cockpit attach`: the TUI on a session that lives elsewhere, over its control socket."""

from __future__ import annotations

import asyncio


from cockpit.control.remote_session import RemoteSession
from cockpit.control.server import ControlServer
from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.diff_pane import DiffPane
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.tabs_pane import TabsPane



async def until(pilot, condition, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, \
            f"condition not met in time; log: {commands(pilot.app)}"
        await pilot.pause(0.05)


def commands(app) -> list[tuple[str, str, str]]:
    return [(e.command, e.source, e.status) for e in app.query_one(CommandLog).rows]


async def attached(live) -> tuple[RemoteSession, CockpitApp]:
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    return remote, CockpitApp(remote, pictures=False)


async def test_two_viewers_see_the_session_live_and_can_drive_it(live, s, site):
    await s.run(f"goto {site.url}/login", source="agent")  # before anyone attached
    await s.run("snapshot -i", source="agent")
    first, app = await attached(live)
    second, other = await attached(live)
    try:
        async with app.run_test(size=(160, 48)) as pilot, \
                other.run_test(size=(160, 48)) as other_pilot:
            for p, a in ((pilot, app), (other_pilot, other)):
                # the log from the start of the session, the tabs and refs as they are
                await until(p, lambda a=a: ("snapshot -i", "agent", "ok") in commands(a))
                assert ("goto " + f"{site.url}/login", "agent", "ok") in commands(a)
                tabs = a.query_one(TabsPane)
                await until(p, lambda tabs=tabs: tabs.row_count == 1
                            and "Sign in" in tabs.get_row_at(0)[2].plain)
                assert any(r[2] == "Sign in" for r in a.query_one(RefsPane).refs)
            email = next(r for r, role, name, _ in first.refs_info() if "Email" in name)
            prompt = app.query_one(Prompt)
            prompt.focus()
            prompt.value = f"fill @{email} typed@viewer.one"  # typed in the first viewer
            await pilot.press("enter")
            for p, a in ((pilot, app), (other_pilot, other)):
                await until(p, lambda a=a: (f"fill @{email} typed@viewer.one", "human", "ok")
                            in commands(a))
                await until(p, lambda a=a: a.query_one(DiffPane).steps
                            and a.query_one(DiffPane).steps[-1].command.startswith(
                                f"fill @{email}"))
            assert s.active.snapshot.refs[email].value == "typed@viewer.one"  # really ran
    finally:
        await first.close()
        await second.close()
    assert (await s.run("title")).ok  # leaving the viewers left the session running
    again = await RemoteSession(socket_path=str(live.socket)).start()  # still served
    await again.close()


async def test_the_viewer_says_when_the_session_ends(s, tmp_path):
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    remote, app = await attached(server)
    async with app.run_test(size=(160, 48)) as pilot:
        await server.close()
        status = app.query_one("#status")
        await until(pilot, lambda: status.status.last_error == "the session has ended")
        result = await remote.run("title")
        assert not result.ok and result.exit_code == 3 and "nothing ran" in result.error
    await remote.close()
