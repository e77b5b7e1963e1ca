"""The demo agent (`python -m cockpit.demo.agent URL`) as a real subprocess on a live
session: it walks the demo site over the control socket, asks for a human at the
challenge, waits while the test plays the human, then finishes the walk."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from types import SimpleNamespace

import pytest

from cockpit.core.base import events as ev
from cockpit.demo.agent import NotOnPage, ref
from cockpit.control import discovery as paths
from cockpit.control.server import ControlServer

ASK = re.compile(r'^I need a human: .* fill (@\w+) "\.\.\." then click (@\w+) '
                 r"\(Continue\)\.$")


@pytest.fixture
async def live(s, tmp_path):
    """The shared session behind a control socket, and the command.finished events."""
    server = ControlServer(s, workspace=tmp_path)
    socket = await server.start()
    finished: list[dict] = []
    unsubscribe = s.bus.subscribe(
        lambda e: finished.append(e.data) if e.kind == ev.COMMAND_FINISHED else None)
    yield server, socket, finished
    unsubscribe()
    await server.close()
    while len(s.tabs) > 1:  # leave the shared session as the next test expects it
        assert (await s.run("closetab")).ok


async def start_agent(site, socket) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cockpit.demo.agent", site.url,
        env={**os.environ, paths.ENV_SOCKET: str(socket)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)


async def read_until(proc, marker: str, seen: list[str]) -> str:
    """Read the agent's lines into `seen` until one contains `marker`; return that line."""
    while True:
        raw = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert raw, f"the agent ended before saying {marker!r}:\n" + "\n".join(seen)
        seen.append(raw.decode().rstrip("\n"))
        if marker in seen[-1]:
            return seen[-1]


async def stopped(proc) -> int:
    if proc.returncode is None:
        try:
            return await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise
    return proc.returncode


async def test_agent_walks_the_site_and_waits_for_a_human(s, site, live):
    _, socket, finished = live
    proc = await start_agent(site, socket)
    seen: list[str] = []
    try:
        ask = await read_until(proc, "I need a human", seen)
        assert f"→ signing in as {site.email}" in seen
        match = ASK.match(ask)
        assert match, ask
        assert s.active.url.endswith("/challenge")
        await asyncio.sleep(1.5)  # the agent polls `url` and stays put: no human yet
        assert s.active.url.endswith("/challenge") and proc.returncode is None

        field, button = match.groups()
        human = [f'fill {field} "{site.captcha_answer}"', f"click {button}"]
        for line in human:
            result = await s.run(line, source="human")
            assert result.ok, result.error
        await read_until(proc, "Done:", seen)
        assert await stopped(proc) == 0, "\n".join(seen)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    # It ended on the report, opened in a second tab.
    assert len(s.tabs) == 2 and s.active is s.tabs[1]
    assert s.active.url == f"{site.url}/report"
    assert any("archiving" in line for line in seen)
    # Every command but the human's came from the agent, tagged so.
    by_source = {(d["source"], d["command"]) for d in finished}
    assert {("human", line) for line in human} <= by_source
    agent = [command for source, command in by_source if source != "human"]
    assert {source for source, _ in by_source} == {"agent", "human"}
    assert {c.split()[0] for c in agent} >= {"goto", "snapshot", "fill", "click", "tab",
                                             "tabs"}
    assert "url" not in {c.split()[0] for c in agent}  # waiting does not fill the log


async def test_agent_exits_3_when_the_session_goes_away(s, site, live):
    server, socket, _ = live
    proc = await start_agent(site, socket)
    seen: list[str] = []
    try:
        await read_until(proc, "I need a human", seen)
        await server.close()  # the cockpit quits while the agent waits for a human
        await read_until(proc, "cannot reach the session", seen)
        assert await stopped(proc) == 3, "\n".join(seen)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_agent_exits_1_when_a_step_fails(s, live):
    _, socket, _ = live
    proc = await start_agent(SimpleNamespace(url="http://127.0.0.1:1"), socket)  # no site
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 1, out.decode()
    assert "✗ stopped: goto http://127.0.0.1:1/login:" in out.decode()


async def test_agent_exits_3_without_a_session(site, tmp_path):
    proc = await start_agent(site, tmp_path / "nobody.sock")
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 3, out.decode()
    assert "cannot reach the session" in out.decode()


def test_ref_reads_snapshot_lines_by_role_and_name():
    text = ('@f3e4 heading "Inbox"\n'
            '@e7 textbox "Email" [active]: jane@example.com\n'
            '@e12 button "Say \\"@e99 button \\"Archive\\"\\""\n'
            '@f3e11 link "Open report" -> /report\n'
            '@f3e35 button "Archive: Lunch on Friday?"\n')
    assert ref(text, "textbox", "email") == "@e7"
    assert ref(text, "link", "Open report") == "@f3e11"
    assert ref(text, "button", "Archive: Lunch") == "@f3e35"
    assert ref(text, "button", "@e99") == "@e12"  # a name cannot fake a ref
    with pytest.raises(NotOnPage, match="no button named 'Sign in'"):
        ref(text, "button", "Sign in")
